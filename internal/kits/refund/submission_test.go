package refund_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// What a submission gets wrong is data in its report: code that does not
// load is diagnostics at its line, and code that blocks, panics or
// retries forever is a failed scenario, never an error or a hung grade.

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
		{"syntax error", sourceHeader + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n\treturn \"\", nil\n", 10, "syntax error"},
		{"missing entry point", sourceHeader + "func Refund(ctx context.Context, id string) (refundkit.Outcome, error) { return \"\", nil }\n", 0, "declares no function RefundMoney"},
		{"wrong signature", sourceHeader + "func RefundMoney(ctx context.Context, id int) (refundkit.Outcome, error) { return \"\", nil }\n", 9, "wrong signature"},
		{"type error", sourceHeader + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n\tvar n int = \"x\"\n\t_ = n\n\treturn \"\", nil\n}\n", 10, "cannot"},
		{"defer in a loop", sourceHeader + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n\tfor i := 0; i < 3; i++ {\n\t\tdefer println(i)\n\t}\n\treturn \"\", nil\n}\n", 11, "defer inside a loop"},
		{"init panics", sourceHeader + "func init() { panic(\"boom\") }\n\nfunc RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) { return \"\", nil }\n", 0, "boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := gradeSeed(t, tc.src, 1)
			if rep.Status != gradewire.StatusError || rep.ExitCode() != 2 {
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
		{"blocks forever", "\tselect {}\n", "lost-reply", refund.InvBoundedAttempts},
		{"panics", "\tvar m map[string]int\n\tm[id] = 1\n\treturn \"\", nil\n", "lost-reply", refund.InvOutcomeMatchesState},
		{"retries forever", "\tfor {\n\t\trefundkit.CreateRefund(ctx, refundkit.RefundParams{Charge: \"ch_1\", Amount: 1, IdempotencyKey: \"k\"})\n\t}\n", "all-attempts-fail", refund.InvBoundedAttempts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := sourceHeader + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n" + tc.body + "}\n"
			rep := gradeSeed(t, src, 1, tc.scenario)
			if rep.Status == gradewire.StatusError {
				t.Fatalf("not gradable: %s %v", rep.Message, rep.Diagnostics)
			}
			sc := rep.Scenarios[0]
			if sc.Status != gradewire.StatusFail {
				t.Fatalf("scenario %s", sc.Status)
			}
			if tc.name == "panics" {
				if sc.Invocations[0].Ended != faultsim.EndPanicked || !strings.Contains(sc.Invocations[0].Panic, "nil map") {
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
	rep := gradeSeed(t, src, 1, "repeat-after-done")
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
	rep := gradeSeed(t, readSource(t, starterFile), 1, "lost-reply")
	var buf bytes.Buffer
	rep.WriteText(&buf)
	out := buf.String()
	for _, want := range []string{"FAIL", "lost-reply", "violated no-double-refund", "trace:", "no-idempotency-key"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

// TestOutcomeSnapshotAtReturn: a worker that loses the claim returns
// in_progress while the winner is one step from recording done. The record
// is judged as the losing call left it, not after the winner's next step.
func TestOutcomeSnapshotAtReturn(t *testing.T) {
	src := sourceHeader + `func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	ok, err := refundkit.Claim(ctx, id, 5*60*1000*1000*1000)
	if err != nil {
		return "", err
	}
	if !ok {
		rec, err := refundkit.GetRecord(ctx, id)
		if err != nil {
			return "", err
		}
		if rec.Status == refundkit.StatusDone {
			return refundkit.OutcomeDone, nil
		}
		return refundkit.OutcomeInProgress, nil
	}
	if err := refundkit.MarkDone(ctx, id); err != nil {
		return "", err
	}
	return refundkit.OutcomeDone, nil
}
`
	rep := gradeSeed(t, src, 1, "two-concurrent")
	if msg, bad := violated(rep)["two-concurrent "+refund.InvOutcomeMatchesState]; bad {
		t.Fatalf("outcome-matches-state violated: %s", msg)
	}
}

// TestInProgressAsLastSeen: a worker that loses the claim, re-reads the
// record (held by the winner) and logs before it returns in_progress has
// told the truth it knew, though the winner records done while it logs.
// One that answers in_progress from a refused claim that saw the record
// done, without reading it again, has not.
func TestInProgressAsLastSeen(t *testing.T) {
	const claim = `func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	ok, err := refundkit.Claim(ctx, id, 5*60*1000*1000*1000)
	if err != nil {
		return "", err
	}
	if ok {
		if err := refundkit.MarkDone(ctx, id); err != nil {
			return "", err
		}
		return refundkit.OutcomeDone, nil
	}
`
	tests := []struct {
		name, body string
		held       bool
	}{
		{"re-reads, then logs", `	rec, err := refundkit.GetRecord(ctx, id)
	if err != nil {
		return "", err
	}
	out := refundkit.OutcomeInProgress
	if rec.Status == refundkit.StatusDone {
		out = refundkit.OutcomeDone
	}
	refundkit.Logf(ctx, "refund %s: %s", id, out)
	return out, nil
}
`, true},
		{"answers from the refused claim", `	return refundkit.OutcomeInProgress, nil
}
`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := gradeSeed(t, sourceHeader+claim+tt.body, 1, "two-concurrent")
			msg, bad := violated(rep)["two-concurrent "+refund.InvOutcomeMatchesState]
			if bad == tt.held {
				t.Fatalf("outcome-matches-state violated = %v (%s), want %v", bad, msg, !tt.held)
			}
		})
	}
}

// TestErrorTextReadInsideTheRun: the text of a returned error is read once,
// inside the run; an Error method that panics is reported as such, and the
// report is built without calling it again.
func TestErrorTextReadInsideTheRun(t *testing.T) {
	src := sourceHeader + `type loud struct{ n *int }

func (e loud) Error() string {
	*e.n++
	if *e.n > 1 {
		panic("Error called again, outside the run")
	}
	panic("the error's own bug")
}

func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	n := 0
	return "", loud{&n}
}
`
	rep := gradeSeed(t, src, 1, "missing-record")
	iv := rep.Scenarios[0].Invocations[0]
	if !strings.Contains(iv.Error, "its Error method panicked: the error's own bug") {
		t.Fatalf("invocation error %q", iv.Error)
	}
}

// TestStepLimitsSayWhatHappened: a loop that stops waiting after an hour
// is named at the instant it spun, and a loop that waits a millisecond
// between calls is named for the calls it made in all.
func TestStepLimitsSayWhatHappened(t *testing.T) {
	head := strings.Replace(sourceHeader, "\"context\"\n", "\"context\"\n\t\"time\"\n", 1)
	tests := []struct {
		name, body, want string
	}{
		{"spins after an hour", "\ttime.Sleep(time.Hour)\n\tfor {\n\t\trefundkit.GetRecord(ctx, id)\n\t}\n",
			"5000 harness calls at one instant, +1h0m0s, without virtual time passing"},
		{"retries every millisecond", "\tfor {\n\t\trefundkit.GetRecord(ctx, id)\n\t\ttime.Sleep(time.Millisecond)\n\t}\n",
			"50000 harness calls in all, over "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := gradeSeed(t, head+"func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n"+tc.body+"}\n", 1, "repeat-after-done")
			msg := violated(rep)["repeat-after-done "+refund.InvBoundedAttempts]
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("bounded-attempts says %q, want it to say %q", msg, tc.want)
			}
		})
	}
}

// TestOnceDoesNotStopTheClock: sync.Once with a sleep inside, called by
// several goroutines at once, must not freeze virtual time (a second
// caller of the standard sync.Once waits on a real mutex).
func TestOnceDoesNotStopTheClock(t *testing.T) {
	src := `package refund

import (
	"context"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	var once sync.Once
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			once.Do(func() { time.Sleep(time.Second) })
		}()
	}
	wg.Wait()
	ping := sync.OnceFunc(func() { refundkit.Logf(ctx, "once") })
	ping()
	ping()
	if err := refundkit.MarkDone(ctx, id); err != nil {
		return "", err
	}
	return refundkit.OutcomeDone, nil
}
`
	rep := gradeSeed(t, src, 1, "repeat-after-done")
	n := 0
	for _, e := range rep.Scenarios[0].Trace {
		if e.Kind == "log" {
			n++
			if e.At != "+1s" {
				t.Errorf("the log line at %s, want +1s", e.At)
			}
		}
	}
	if n != 1 {
		t.Fatalf("OnceFunc's function ran %d times, want once; trace: %+v", n, rep.Scenarios[0].Trace)
	}
}

func TestOnceFuncPanicsEveryTime(t *testing.T) {
	calls := 0
	f := faultsim.OnceFunc(func() { calls++; panic("boom") })
	for i := 0; i < 2; i++ {
		func() {
			defer func() {
				if v := recover(); v != "boom" {
					t.Errorf("call %d: recovered %v, want boom", i, v)
				}
			}()
			f()
		}()
	}
	if calls != 1 {
		t.Fatalf("f ran %d times", calls)
	}
}
