package grader

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// testChildEnv makes this test binary, re-executed by a Service under
// test, act as the grading child (TestGradingChild). The server binary
// does the same through ChildCommand and ServeChild; the protocol and the
// sandbox are the same, only the bubble comes from a test.
const testChildEnv = "FAULTLINE_GRADER_TEST_CHILD"

// TestGradingChild is the grading child when the service tests re-execute
// this binary; run directly, it skips.
func TestGradingChild(t *testing.T) {
	if os.Getenv(testChildEnv) != "1" {
		t.Skip("the grading child of the service tests; nothing to do on its own")
	}
	job, err := readJob(os.Stdin)
	if err != nil {
		t.Fatal(err)
	}
	debug.SetMaxStack(childMaxStack)
	serveJob(context.Background(), job, BubbleFromT(t), os.NewFile(sandbox.ResultFD, "results"))
}

// newTestService returns a Service whose children are this test binary
// running TestGradingChild, with limits tightened so hostile code is
// stopped in seconds.
//
// Under -race the child is instead the server binary built without the
// race detector (a -race child needs far more memory and time than the
// limits allow), so the same tests still run the real sandbox there.
func newTestService(t testing.TB, limits sandbox.Limits, size, queue int) *Service {
	t.Helper()
	runner := &sandbox.Runner{
		Args:   []string{"-test.run=^TestGradingChild$", "-test.count=1"},
		Env:    []string{testChildEnv + "=1"},
		Limits: limits,
	}
	if serviceTestRace {
		runner = NewChildRunner(limits, nil)
		runner.Executable = plainServerBinary(t)
	}
	return NewService(sandbox.NewPool(runner, size, queue), nil)
}

// plainServer is the server binary built once per test process without
// -race, removed by TestMain.
var plainServer struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func plainServerBinary(t testing.TB) string {
	t.Helper()
	plainServer.once.Do(func() {
		plainServer.dir, plainServer.err = os.MkdirTemp("", "faultline-grader-test-")
		if plainServer.err != nil {
			return
		}
		plainServer.path = filepath.Join(plainServer.dir, "server")
		out, err := exec.Command("go", "build", "-o", plainServer.path, "github.com/faultline-dev/faultline/cmd/server").CombinedOutput()
		if err != nil {
			plainServer.err = fmt.Errorf("go build ./cmd/server: %v\n%s", err, out)
		}
	})
	if plainServer.err != nil {
		t.Fatal(plainServer.err)
	}
	return plainServer.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if plainServer.dir != "" {
		os.RemoveAll(plainServer.dir)
	}
	os.Exit(code)
}

// hostileLimits stop a busy loop after 4 s of CPU; the wall limit is far
// above that so a loaded machine still shows the CPU limit.
var hostileLimits = sandbox.Limits{WallTime: 30 * time.Second, CPUTime: 4 * time.Second}

// hostileCase is one file of ../sandbox/testdata/hostile with what its
// header says the result must be.
type hostileCase struct {
	name    string
	source  string
	status  *regexp.Regexp
	message *regexp.Regexp
}

func loadHostileCases(t *testing.T) []hostileCase {
	t.Helper()
	files, err := filepath.Glob("../sandbox/testdata/hostile/*.go")
	if err != nil || len(files) < 25 {
		t.Fatalf("want at least 25 hostile submissions, found %d (%v)", len(files), err)
	}
	var cases []hostileCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := hostileCase{name: strings.TrimSuffix(filepath.Base(f), ".go"), source: string(data)}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "// want-status: "); ok {
				c.status = regexp.MustCompile("^(" + v + ")$")
			}
			if v, ok := strings.CutPrefix(line, "// want-message: "); ok {
				c.message = regexp.MustCompile(v)
			}
			if strings.HasPrefix(line, "package ") {
				break
			}
		}
		if c.status == nil || c.message == nil {
			t.Fatalf("%s: header needs want-status and want-message lines", f)
		}
		cases = append(cases, c)
	}
	return cases
}

// newGradingServer is a server under test: /healthz answers at once, and
// POST /grade grades the body through svc.
func newGradingServer(svc *Service) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("POST /grade", func(w http.ResponseWriter, r *http.Request) {
		src, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		seed, _ := strconv.ParseInt(r.URL.Query().Get("seed"), 10, 64)
		report, err := svc.Grade(r.Context(), Job{Problem: "async-refund", Source: string(src), Seed: seed}, nil)
		var busy *sandbox.BusyError
		switch {
		case errors.As(err, &busy):
			w.Header().Set("Retry-After", strconv.Itoa(int(busy.RetryAfter/time.Second)))
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(report)
	})
	return httptest.NewServer(mux)
}

// healthProbe polls /healthz until stopped and records every probe that
// did not get a 200 within its deadline.
type healthProbe struct {
	mu       sync.Mutex
	probes   int
	failures []string
	slowest  time.Duration
}

func (p *healthProbe) run(ctx context.Context, url string, deadline time.Duration) {
	client := &http.Client{Timeout: deadline}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		start := time.Now()
		resp, err := client.Get(url + "/healthz")
		took := time.Since(start)
		p.mu.Lock()
		p.probes++
		p.slowest = max(p.slowest, took)
		switch {
		case err != nil:
			p.failures = append(p.failures, err.Error())
		case resp.StatusCode != http.StatusOK:
			p.failures = append(p.failures, resp.Status)
		}
		p.mu.Unlock()
		if resp != nil {
			resp.Body.Close()
		}
	}
}

// TestHostileSubmissions grades every hostile submission through a real
// grading child and checks each gives the Result its header names, while
// a server under test keeps answering health checks. It runs twice: with
// a child started per job, and with warm spares (sandbox.Pool.KeepWarm),
// which must change nothing but the start-up time.
func TestHostileSubmissions(t *testing.T) {
	if testing.Short() {
		t.Skip("grades 30+ hostile submissions in child processes")
	}
	cases := loadHostileCases(t)
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		t.Run(name, func(t *testing.T) { gradeHostile(t, cases, warm) })
	}
}

func gradeHostile(t *testing.T, cases []hostileCase, warm bool) {
	svc := newTestService(t, hostileLimits, 2, len(cases))
	if warm {
		svc.pool.KeepWarm()
		defer svc.pool.Close()
	}
	srv := newGradingServer(svc)
	defer srv.Close()

	probeCtx, stopProbe := context.WithCancel(context.Background())
	probe := &healthProbe{}
	probeDone := make(chan struct{})
	go func() {
		// The probes check that hostile code never takes the server
		// down or hangs it, not how fast it answers (that is the
		// benchmarks' job): on a shared 2-core machine with other test
		// packages running, a 1 s deadline failed on load alone.
		probe.run(probeCtx, srv.URL, 10*time.Second)
		close(probeDone)
	}()

	t.Run("files", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				resp, err := http.Post(srv.URL+"/grade?seed=1", "text/plain", strings.NewReader(c.source))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("POST /grade: %s: %s", resp.Status, body)
				}
				var report Report
				if err := json.Unmarshal(body, &report); err != nil {
					t.Fatalf("decode report: %v\n%s", err, body)
				}
				t.Logf("%s: %s", report.Status, report.Message)
				var text bytes.Buffer
				report.WriteText(&text)
				if !c.status.MatchString(report.Status) {
					t.Errorf("status %q, want %s; message: %s", report.Status, c.status, report.Message)
				}
				if !c.message.MatchString(report.Message) && !c.message.MatchString(text.String()) && !c.message.Match(body) {
					t.Errorf("report does not match %q; message: %s\n%s", c.message, report.Message, firstBytes(text.String(), 3000))
				}
			})
		}
	})
	stopProbe()
	<-probeDone
	probe.mu.Lock()
	defer probe.mu.Unlock()
	t.Logf("health probes during the run: %d, slowest %s", probe.probes, probe.slowest)
	if probe.probes < 10 {
		t.Errorf("only %d health probes ran", probe.probes)
	}
	if len(probe.failures) > 0 {
		t.Errorf("%d of %d health probes failed, first: %s", len(probe.failures), probe.probes, probe.failures[0])
	}
	if warm {
		// After all that, a spare still grades the reference correctly.
		src, err := os.ReadFile(referencePath)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for svc.pool.Spares() < svc.pool.Size() {
			if time.Now().After(deadline) {
				t.Fatalf("%d spares after 10s, want %d", svc.pool.Spares(), svc.pool.Size())
			}
			time.Sleep(5 * time.Millisecond)
		}
		report, out, err := svc.grade(context.Background(), nil, Job{Problem: "async-refund", Source: string(src), Seed: 1}, nil)
		if err != nil || report.Status != StatusPass || !out.Warm {
			t.Errorf("reference through a spare: %v, status %v, warm %v", err, report, out)
		}
	}
}

func firstBytes(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// TestServiceGradesReferenceAndStarter checks the normal path through the
// child: the reference passes, the starter fails, each with every scenario
// streamed as progress before the report.
func TestServiceGradesReferenceAndStarter(t *testing.T) {
	svc := newTestService(t, sandbox.Limits{}, 2, 4)
	tests := []struct {
		file   string
		status string
	}{
		{"../../content/problems/async-refund/reference/refund.go", StatusPass},
		{"../../content/problems/async-refund/starter/refund.go", StatusFail},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(filepath.Dir(tt.file)), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var progress []string
			report, err := svc.Grade(context.Background(), Job{Problem: "async-refund", Source: string(src), Seed: 1},
				func(s ScenarioReport) {
					mu.Lock()
					progress = append(progress, s.Name)
					mu.Unlock()
				})
			if err != nil {
				t.Fatal(err)
			}
			if report.Status != tt.status {
				var text bytes.Buffer
				report.WriteText(&text)
				t.Fatalf("status %s, want %s:\n%s", report.Status, tt.status, firstBytes(text.String(), 4000))
			}
			var names []string
			for _, s := range report.Scenarios {
				names = append(names, s.Name)
			}
			if len(names) == 0 || fmt.Sprint(progress) != fmt.Sprint(names) {
				t.Errorf("progress %v, want every scenario of the report in order: %v", progress, names)
			}
		})
	}
}

// TestServiceRefusesHugeSource checks an oversized file is refused before
// any child starts (the pool here has no runner that could start one).
func TestServiceRefusesHugeSource(t *testing.T) {
	svc := NewService(sandbox.NewPool(&sandbox.Runner{Executable: "/nonexistent"}, 1, 0), nil)
	report, err := svc.Grade(context.Background(), Job{Problem: "async-refund", Source: strings.Repeat("x", MaxSourceBytes+1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if report.Status != StatusError || !strings.Contains(report.Message, "source too large") || report.ExitCode() != 2 {
		t.Errorf("report %q %q exit %d", report.Status, report.Message, report.ExitCode())
	}
}

// TestServiceBusyAndCanceled checks a full pool answers busy at once, and
// that canceling a grading job kills its child and returns an error, not
// a report blaming the submission.
func TestServiceBusyAndCanceled(t *testing.T) {
	svc := newTestService(t, hostileLimits, 1, 0)
	spin, err := os.ReadFile("../sandbox/testdata/hostile/loop_in_refundmoney.go")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := svc.Grade(ctx, Job{Problem: "async-refund", Source: string(spin), Seed: 1}, nil)
		done <- err
	}()
	// Wait until the first job holds the only place.
	deadline := time.Now().Add(10 * time.Second)
	for svc.pool.Running() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first job never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, err = svc.Grade(context.Background(), Job{Problem: "async-refund", Source: string(spin), Seed: 1}, nil)
	if !errors.Is(err, sandbox.ErrBusy) || !strings.Contains(err.Error(), "busy, try again in") {
		t.Errorf("second job on a full pool: %v, want busy", err)
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("canceled job: %v, want context.Canceled", err)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("canceling took %s", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a canceled job did not return")
	}
}
