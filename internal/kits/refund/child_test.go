package refund_test

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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// These tests grade refund submissions in the server binary's real
// grading child, through the parent's service (internal/grading), as the
// pages do: hostile code, the normal path with its progress, a full pool
// and a cancelled job, and a spinning Error method.

// serverBinary is the server built once per test process, without -race
// (a -race child needs far more memory and time than the sandbox's limits
// allow), removed by the test's cleanup of the first caller.
var serverBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func builtServer(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	serverBinary.once.Do(func() {
		serverBinary.dir, serverBinary.err = os.MkdirTemp("", "faultline-refund-test-")
		if serverBinary.err != nil {
			return
		}
		serverBinary.path = filepath.Join(serverBinary.dir, "server")
		out, err := exec.Command("go", "build", "-o", serverBinary.path, "github.com/faultline-dev/faultline/cmd/server").CombinedOutput()
		if err != nil {
			serverBinary.err = fmt.Errorf("go build ./cmd/server: %v\n%s", err, out)
		}
	})
	if serverBinary.err != nil {
		t.Fatal(serverBinary.err)
	}
	return serverBinary.path
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ConfineExecCommand {
		// This test binary confines python3 as the server binary does
		// (pyenv.Launch names the running binary): the benchmark's
		// Python grades run confined.
		sandbox.ExitConfineFailed(sandbox.ConfineAndExec(os.Args[2:]))
	}
	code := m.Run()
	if serverBinary.dir != "" {
		os.RemoveAll(serverBinary.dir)
	}
	os.Exit(code)
}

// childService grades refund jobs through a pool of grading children.
type childService struct {
	svc  *grading.Service
	pool *sandbox.Pool
}

func newTestService(t testing.TB, limits sandbox.Limits, size, queue int) *childService {
	t.Helper()
	runner := grading.NewChildRunner(limits, nil)
	runner.Executable = builtServer(t)
	pool := sandbox.NewPool(runner, size, queue)
	return &childService{svc: grading.New(pool, nil), pool: pool}
}

// builtinNames are the built-in scenarios' names, in the suite's order.
func builtinNames() []string {
	var names []string
	for _, sc := range refund.Builtin() {
		names = append(names, sc.Name)
	}
	return names
}

// grade grades source from seed against the built-in scenarios, as the
// server's refund problem does.
func (s *childService) grade(ctx context.Context, source string, seed int64, progress func(gradewire.ScenarioReport)) (*gradewire.Report, error) {
	data, err := os.ReadFile("../../../content/" + refund.BuiltinScenariosFile)
	if err != nil {
		return nil, err
	}
	job := gradewire.Job{Kit: refund.Name, ScenariosFile: refund.BuiltinScenariosFile, Scenarios: data, File: "refund.go", Source: source, FirstSeed: seed}
	return s.svc.GradeKit(ctx, nil, job, builtinNames(), progress)
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
	files, err := filepath.Glob("../../sandbox/testdata/hostile/*.go")
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
func newGradingServer(svc *childService) *httptest.Server {
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
		report, err := svc.grade(r.Context(), string(src), seed, nil)
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
				var report gradewire.Report
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
		src := readSource(t, referenceFile)
		deadline := time.Now().Add(10 * time.Second)
		for svc.pool.Spares() < svc.pool.Size() {
			if time.Now().After(deadline) {
				t.Fatalf("%d spares after 10s, want %d", svc.pool.Spares(), svc.pool.Size())
			}
			time.Sleep(5 * time.Millisecond)
		}
		report, err := svc.grade(context.Background(), src, 1, nil)
		if err != nil || report.Status != gradewire.StatusPass {
			t.Errorf("reference through a spare: %v, report %v", err, report)
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
		{referenceFile, gradewire.StatusPass},
		{starterFile, gradewire.StatusFail},
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
			report, err := svc.grade(context.Background(), string(src), 1,
				func(s gradewire.ScenarioReport) {
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

// TestServiceBusyAndCanceled checks a full pool answers busy at once, and
// that canceling a grading job kills its child and returns an error, not
// a report blaming the submission.
func TestServiceBusyAndCanceled(t *testing.T) {
	svc := newTestService(t, hostileLimits, 1, 0)
	spin, err := os.ReadFile("../../sandbox/testdata/hostile/loop_in_refundmoney.go")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := svc.grade(ctx, string(spin), 1, nil)
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
	_, err = svc.grade(context.Background(), string(spin), 1, nil)
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

// TestSpinningErrorMethodStopsItsScenario: an error whose Error method
// never returns, returned in a scenario late in the suite, spins inside
// that scenario's run (its text is read there), so the child is stopped at
// a limit (CPU time, or wall time on a loaded machine) with the scenarios
// before it kept and the scenario named; it never spins while the report
// is built, losing every finished scenario.
func TestSpinningErrorMethodStopsItsScenario(t *testing.T) {
	src := readSource(t, referenceFile)
	old := `return "", fmt.Errorf("refund %s: no refund request with this id: %w", requestID, err)`
	if !strings.Contains(src, old) {
		t.Fatal("the reference no longer reports a missing record this way: update the test")
	}
	src = strings.Replace(src, old, `return "", spinning{}`, 1) + `
type spinning struct{}

func (spinning) Error() string {
	n := 0
	for {
		n++
	}
}
`
	svc := newTestService(t, hostileLimits, 1, 0)
	rep, err := svc.grade(context.Background(), src, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	order := builtinNames()
	at := -1
	for i, name := range order {
		if name == "missing-record" {
			at = i
		}
	}
	if rep.Status != gradewire.StatusError || !strings.Contains(rep.Message, `in scenario "missing-record"`) || !strings.Contains(rep.Message, "time limit") {
		t.Fatalf("report %s: %q", rep.Status, rep.Message)
	}
	if len(rep.Scenarios) != at || rep.Summary.ScenariosPassed != at {
		t.Fatalf("%d scenarios kept, %d passed; want the %d before missing-record", len(rep.Scenarios), rep.Summary.ScenariosPassed, at)
	}
}
