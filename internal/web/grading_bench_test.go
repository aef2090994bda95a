package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
)

// The benchmarks below grade through the real server binary: its own HTTP
// server, its pool of sandboxed grading children (warm spares included)
// and SQLite, as a browser would use them. They build cmd/server once.
//
//	go test ./internal/web -run '^$' -bench GradeThroughServer -benchtime 20x

// benchServer is a running server binary.
type benchServer struct {
	url  string
	logs *lockedBuffer // the server's output
}

// startBenchServer builds and starts the server with a fresh database and
// the extra serve flags; it is stopped when the benchmark ends.
func startBenchServer(b *testing.B, flags ...string) *benchServer {
	b.Helper()
	srv, stop := startServerFrom(b, buildServer(b), flags...)
	b.Cleanup(stop)
	return srv
}

// buildServer builds cmd/server into the benchmark's temporary folder
// (Go's build cache makes every build after the first a link), or returns
// the binary FAULTLINE_BENCH_SERVER names: another build measured by these
// benchmarks (bench/abuse.sh passes one given as a path).
func buildServer(b *testing.B) string {
	b.Helper()
	if bin := os.Getenv("FAULTLINE_BENCH_SERVER"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			b.Fatalf("FAULTLINE_BENCH_SERVER: %v", err)
		}
		return bin
	}
	bin := filepath.Join(b.TempDir(), "faultline")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/faultline-dev/faultline/cmd/server").CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/server: %v\n%s", err, out)
	}
	return bin
}

// startServerFrom starts bin with a fresh database; stop ends it (SIGINT,
// then SIGKILL after 20 s).
func startServerFrom(b *testing.B, bin string, flags ...string) (srv *benchServer, stop func()) {
	b.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "-addr", "127.0.0.1:0", "-db", filepath.Join(b.TempDir(), "bench.db")}, flags...)...)
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stop = func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	listening := regexp.MustCompile(`url=(http://\S+)`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(logs.String()); m != nil {
			// Let the warm spares start before measuring.
			time.Sleep(500 * time.Millisecond)
			return &benchServer{url: m[1], logs: logs}, stop
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	b.Fatalf("the server did not start; its log:\n%s", logs.String())
	return nil, nil
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// gradeTiming is what one press of Grade saw.
type gradeTiming struct {
	final         string        // report, busy or system-error
	verdict       string        // the report's verdict
	firstProgress time.Duration // from the POST to the first progress event; 0 if none
	end           time.Duration // from the POST to the final event
	retryAfter    int           // a refusal's Retry-After, seconds
}

// newUser is a browser with an empty cookie jar (a new identity) whose
// connections come from the loopback address from (127.0.0.1 when empty):
// every 127.0.0.0/8 address is this machine, so each stands for another
// client address without any proxy header.
func newUser(from string) *http.Client {
	jar, _ := cookiejar.New(nil)
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	return &http.Client{Jar: jar, Transport: &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 4}}
}

// gradeOnce grades code as a new user and follows the run's events to the
// end.
func (s *benchServer) gradeOnce(ctx context.Context, code string) (gradeTiming, error) {
	return s.gradeAs(ctx, newUser(""), code)
}

// gradeAs grades code as client and follows the run's events to the end.
// A Grade refused at once (429, 503) ends as "busy" with no error.
func (s *benchServer) gradeAs(ctx context.Context, client *http.Client, code string) (gradeTiming, error) {
	var timing gradeTiming
	started := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/problems/async-refund/grade",
		strings.NewReader(url.Values{"code": {code}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return timing, err
	}
	var run gradeStarted
	err = json.NewDecoder(resp.Body).Decode(&run)
	resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		timing.end, timing.final = time.Since(started), "busy"
		timing.retryAfter, _ = strconv.Atoi(resp.Header.Get("Retry-After"))
		return timing, nil
	}
	if err != nil || resp.StatusCode != http.StatusAccepted {
		return timing, fmt.Errorf("Grade: status %d, %v", resp.StatusCode, err)
	}
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, s.url+run.EventsURL, nil)
	resp, err = client.Do(req)
	if err != nil {
		return timing, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 4<<20), 4<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && name == "progress":
			if timing.firstProgress == 0 {
				timing.firstProgress = time.Since(started)
			}
		case strings.HasPrefix(line, "data: "):
			timing.end, timing.final = time.Since(started), name
			if name == "busy" {
				var d busyData
				json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d)
				timing.retryAfter = d.RetryAfterS
			}
			if name == "report" {
				var r reportData
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &r); err != nil {
					return timing, err
				}
				timing.verdict = r.Verdict
			}
			return timing, nil
		}
	}
	return timing, fmt.Errorf("the event stream ended without a final event: %v", sc.Err())
}

func referenceSolution(b *testing.B) string {
	b.Helper()
	src, err := fs.ReadFile(content.FS, "problems/async-refund/reference/refund.go")
	if err != nil {
		b.Fatal(err)
	}
	return string(src)
}

// BenchmarkGradeThroughServer measures, for the reference solution, the
// time from pressing Grade to the first streamed progress event and to the
// full report, one grading at a time.
func BenchmarkGradeThroughServer(b *testing.B) {
	srv := startBenchServer(b)
	code := referenceSolution(b)
	ctx := context.Background()
	var first, end []time.Duration
	for b.Loop() {
		t, err := srv.gradeOnce(ctx, code)
		if err != nil {
			b.Fatal(err)
		}
		if t.final != "report" || t.verdict != "pass" {
			b.Fatalf("the reference ended with %s %s", t.final, t.verdict)
		}
		first, end = append(first, t.firstProgress), append(end, t.end)
	}
	b.ReportMetric(ms(median(first)), "ms-to-first-progress")
	b.ReportMetric(ms(median(end)), "ms-to-report")
	b.ReportMetric(ms(slices.Max(end)), "max-ms-to-report")
}

// BenchmarkTwentyGradesAtOnce presses Grade as 20 users at the same moment
// and reports how many were graded and how many were told the grader is
// busy, how long the burst took, and /healthz's worst latency during it.
func BenchmarkTwentyGradesAtOnce(b *testing.B) {
	const users = 20
	srv := startBenchServer(b)
	code := referenceSolution(b)
	ctx := context.Background()
	var graded, busy, failed int
	var burst, health []time.Duration
	var waitedForPlace int
	var slowest time.Duration // Grade to report, the last user of a burst
	for b.Loop() {
		stopProbe := make(chan struct{})
		probed := make(chan []time.Duration)
		go func() {
			var lat []time.Duration
			client := &http.Client{Timeout: 10 * time.Second}
			for {
				select {
				case <-stopProbe:
					probed <- lat
					return
				case <-time.After(20 * time.Millisecond):
				}
				t0 := time.Now()
				resp, err := client.Get(srv.url + "/healthz")
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				lat = append(lat, time.Since(t0))
			}
		}()
		start := make(chan struct{})
		results := make([]gradeTiming, users)
		errs := make([]error, users)
		var wg sync.WaitGroup
		for i := range users {
			// Twenty people, each at an address of their own: the limit
			// per address is not what this measures.
			client := newUser(fmt.Sprintf("127.0.1.%d", i+1))
			wg.Go(func() {
				<-start
				results[i], errs[i] = srv.gradeAs(ctx, client, code)
			})
		}
		t0 := time.Now()
		close(start)
		wg.Wait()
		burst = append(burst, time.Since(t0))
		close(stopProbe)
		health = append(health, <-probed...)
		var reportTimes []time.Duration
		for i, r := range results {
			switch {
			case errs[i] != nil:
				b.Fatal(errs[i])
			case r.final == "report" && r.verdict == "pass":
				graded++
				reportTimes = append(reportTimes, r.firstProgress)
				slowest = max(slowest, r.end)
			case r.final == "busy":
				busy++
			default:
				failed++
			}
		}
		// A run that got a place at once shows progress as fast as a lone
		// run; one that queued waited for a running one to end first.
		slices.Sort(reportTimes)
		if len(reportTimes) > 0 {
			for _, d := range reportTimes {
				if d > 2*reportTimes[0]+50*time.Millisecond {
					waitedForPlace++
				}
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(graded)/n, "graded/burst")
	b.ReportMetric(float64(waitedForPlace)/n, "queued/burst")
	b.ReportMetric(float64(busy)/n, "busy/burst")
	b.ReportMetric(float64(failed)/n, "system-errors/burst")
	b.ReportMetric(ms(median(burst)), "ms/burst")
	b.ReportMetric(ms(slowest), "max-ms-to-report")
	b.ReportMetric(ms(median(health)), "healthz-median-ms")
	b.ReportMetric(ms(slices.Max(health)), "healthz-max-ms")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
