package grader

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/golden")

const (
	starterFile   = "../../content/problems/async-refund/starter/refund.go"
	referenceFile = "../../content/problems/async-refund/reference/refund.go"
)

func readSource(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grade(t *testing.T, src string, seed int64, scenarios ...string) *Report {
	t.Helper()
	rep, err := Grade(context.Background(), Job{Problem: "async-refund", Source: src, Seed: seed, Scenarios: scenarios}, BubbleFromT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// violated lists "scenario invariant" for every violation in the report.
func violated(r *Report) map[string]string {
	out := map[string]string{}
	for _, s := range r.Scenarios {
		for _, inv := range s.Invariants {
			if inv.Status == InvariantViolated {
				out[s.Name+" "+inv.ID] = inv.Message
			}
		}
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sanitizedJSON(t *testing.T, r *Report) []byte {
	t.Helper()
	b, err := json.MarshalIndent(r.Sanitized(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestReusedInterpretersMatchFresh checks the interpreter reuse: grading
// with a fresh interpreter for every worker of every run gives the same
// report.
func TestReusedInterpretersMatchFresh(t *testing.T) {
	for _, path := range []string{referenceFile, starterFile} {
		src, diags := gointerp.ParseSource("refund.go", readSource(t, path), []string{RefundkitPath})
		if diags != nil {
			t.Fatal(diags)
		}
		job := Job{Seed: 3, Scenarios: []string{"two-concurrent", "redelivery", "crash-and-rerun", "helper-panics"}}
		reused, fresh := newInterpretedProgram(src), newInterpretedProgram(src)
		fresh.stateless = false
		var reports [2]*Report
		for i, p := range []*interpretedProgram{reused, fresh} {
			reports[i] = newReport(job)
			if err := GradeProgram(context.Background(), job, p, BubbleFromT(t), nil, reports[i]); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(sanitizedJSON(t, reports[0]), sanitizedJSON(t, reports[1])) {
			t.Fatalf("%s: reused and fresh interpreters disagree", path)
		}
		if reused.compiled >= fresh.compiled {
			t.Fatalf("%s: reuse compiled %d times, fresh %d", path, reused.compiled, fresh.compiled)
		}
	}
}

func TestGoldenReports(t *testing.T) {
	for name, path := range map[string]string{"starter": starterFile, "reference": referenceFile} {
		t.Run(name, func(t *testing.T) {
			got := sanitizedJSON(t, grade(t, readSource(t, path), 1))
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGoldenReports -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the report differs from %s (run go test -run TestGoldenReports -update and review the diff)", golden)
			}
		})
	}
}

const header = "package refund\n\nimport (\n\t\"context\"\n\n\t\"github.com/faultline-dev/faultline/internal/grader/refundkit\"\n)\n\n"

func TestNotGradable(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		line     int
		contains string
	}{
		{"forbidden import", "package refund\n\nimport (\n\t\"context\"\n\t\"os\"\n\n\t\"github.com/faultline-dev/faultline/internal/grader/refundkit\"\n)\n",
			5, `import "os" is not allowed (line 5)`},
		{"relative import", "package refund\n\nimport \"./x\"\n", 3, `import "./x" is not allowed`},
		{"syntax error", header + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n\treturn \"\", nil\n", 10, "syntax error"},
		{"missing entry point", header + "func Refund(ctx context.Context, id string) (refundkit.Outcome, error) { return \"\", nil }\n", 0, "declares no function RefundMoney"},
		{"wrong signature", header + "func RefundMoney(ctx context.Context, id int) (refundkit.Outcome, error) { return \"\", nil }\n", 9, "wrong signature"},
		{"type error", header + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n\tvar n int = \"x\"\n\t_ = n\n\treturn \"\", nil\n}\n", 10, "cannot"},
		{"range over int", header + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n\tfor i := range 3 {\n\t\t_ = i\n\t}\n\treturn \"\", nil\n}\n", 10, "range over an integer"},
		{"init panics", header + "func init() { panic(\"boom\") }\n\nfunc RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) { return \"\", nil }\n", 0, "boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := grade(t, tc.src, 1)
			if rep.Status != StatusError || rep.ExitCode() != 2 {
				t.Fatalf("status %s exit %d, want error and 2", rep.Status, rep.ExitCode())
			}
			if len(rep.Diagnostics) == 0 {
				t.Fatal("no diagnostics")
			}
			d := rep.Diagnostics[0]
			if !strings.Contains(d.Message, tc.contains) {
				t.Fatalf("diagnostic %q does not contain %q", d.Message, tc.contains)
			}
			if tc.line != 0 && d.Line != tc.line {
				t.Fatalf("diagnostic on line %d, want %d: %s", d.Line, tc.line, d)
			}
			if len(rep.Scenarios) != 0 {
				t.Fatal("scenarios ran for code that does not load")
			}
		})
	}
}

// TestSubmissionFailuresAreData: what a submission does wrong at run time
// ends up in the report, never as an error or a hung grader.
func TestSubmissionFailuresAreData(t *testing.T) {
	tests := []struct {
		name, body, scenario, invariant string
	}{
		{"blocks forever", "\tselect {}\n", "lost-reply", InvBoundedAttempts},
		{"panics", "\tvar m map[string]int\n\tm[id] = 1\n\treturn \"\", nil\n", "lost-reply", InvOutcomeMatchesState},
		{"retries forever", "\tfor {\n\t\trefundkit.CreateRefund(ctx, refundkit.RefundParams{Charge: \"ch_1\", Amount: 1, IdempotencyKey: \"k\"})\n\t}\n", "all-attempts-fail", InvBoundedAttempts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := header + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n" + tc.body + "}\n"
			rep := grade(t, src, 1, tc.scenario)
			if rep.Status == StatusError {
				t.Fatalf("not gradable: %s %v", rep.Message, rep.Diagnostics)
			}
			sc := rep.Scenarios[0]
			if sc.Status != StatusFail {
				t.Fatalf("scenario %s", sc.Status)
			}
			if tc.name == "panics" {
				if sc.Invocations[0].Ended != endPanicked || !strings.Contains(sc.Invocations[0].Panic, "nil map") {
					t.Fatalf("invocation %+v", sc.Invocations[0])
				}
				return
			}
			if _, ok := violated(rep)[tc.scenario+" "+tc.invariant]; !ok {
				t.Fatalf("%s not violated: %v", tc.invariant, keys(violated(rep)))
			}
		})
	}
}

// TestMutexDoesNotStopTheClock: a sync.Mutex held across a sleep by one
// goroutine while another waits must not freeze virtual time (the
// interpreter's Mutex is a channel lock).
func TestMutexDoesNotStopTheClock(t *testing.T) {
	src := `package refund

import (
	"context"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			time.Sleep(time.Second)
			mu.Unlock()
		}()
	}
	wg.Wait()
	refundkit.Logf(ctx, "slept")
	if err := refundkit.MarkDone(ctx, id); err != nil {
		return "", err
	}
	return refundkit.OutcomeDone, nil
}
`
	rep := grade(t, src, 1, "repeat-after-done")
	sc := rep.Scenarios[0]
	found := false
	for _, e := range sc.Trace {
		if e.Kind == "log" && e.At == "+3s" {
			found = true
		}
	}
	if !found {
		t.Fatalf("want the log line at +3s; trace: %+v", sc.Trace)
	}
}

func TestTextReport(t *testing.T) {
	rep := grade(t, readSource(t, starterFile), 1, "lost-reply")
	var buf bytes.Buffer
	rep.WriteText(&buf)
	out := buf.String()
	for _, want := range []string{"FAIL", "lost-reply", "violated no-double-refund", "trace:", "no-idempotency-key"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

// TestCrashStopsDeferredWrites: when a worker's process dies, its deferred
// cleanup must not reach the store, as a killed process's would not.
func TestCrashStopsDeferredWrites(t *testing.T) {
	src := header + `func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	ok, err := refundkit.Claim(ctx, id, 0)
	if err != nil || !ok {
		return "", err
	}
	defer refundkit.MarkNeedsCheck(ctx, id, "cleanup")
	refundkit.Logf(ctx, "claimed")
	if _, err := refundkit.GetRecord(ctx, id); err != nil {
		return "", err
	}
	return refundkit.OutcomeUnknown, nil
}
`
	parsed, diags := gointerp.ParseSource("refund.go", src, []string{RefundkitPath})
	if diags != nil {
		t.Fatal(diags)
	}
	sc := AsyncRefundSuite()[2] // lost-reply: one worker, record r1 pending
	for _, tc := range []struct {
		crash world.CrashPoint
		want  string
	}{
		{world.CrashPoint{Call: 1, Before: false}, "processing"}, // died right after the claim: the deferred write is lost
		{world.CrashPoint{Call: 2, Before: true}, "processing"},  // died before GetRecord
		{world.CrashPoint{}, "needs_check"},                      // no crash: the deferred write happens
	} {
		r := &run{seed: 1, crash: tc.crash, crashFor: "worker-1"}
		execute(BubbleFromT(t), &sc, newInterpretedProgram(parsed), r)
		rec, _ := r.env.Store().Lookup("r1")
		if string(rec.Status) != tc.want {
			t.Errorf("crash %+v: r1 is %s, want %s", tc.crash, rec.Status, tc.want)
		}
		if tc.crash.Call != 0 && r.invs[0].ended != endCrashed {
			t.Errorf("crash %+v: the invocation %s", tc.crash, r.invs[0].ended)
		}
	}
}

// TestLanesFor checks how many lanes a grade takes: one per core unless
// the program (a dear compile, or the job's Lanes) or a test says fewer,
// never more than there is work, and one for a program without lanes.
func TestLanesFor(t *testing.T) {
	defer func(n int) { maxLanes = n }(maxLanes)
	cores := runtime.GOMAXPROCS(0)
	for _, tt := range []struct {
		name                 string
		prog                 Program
		maxLanes, work, want int
	}{
		{"one per core", &interpretedProgram{}, 0, 100, cores},
		{"no more than the work", &interpretedProgram{}, 0, 1, 1},
		{"the program's limit", &interpretedProgram{lanes: 1}, 0, 100, 1},
		{"a limit above the cores", &interpretedProgram{lanes: cores + 3}, 0, 100, cores},
		{"a test's count wins", &interpretedProgram{lanes: 1}, 3, 100, 3},
		{"no lanes of its own", NativeProgram(nil), 0, 100, 1},
	} {
		maxLanes = tt.maxLanes
		if got := lanesFor(tt.prog, tt.work); got != tt.want {
			t.Errorf("%s: %d lanes, want %d", tt.name, got, tt.want)
		}
	}
}
