package grading

import (
	"context"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestScenarioAloneReplaysTheGrade checks what a passed scenario's replay
// (issue 27) rests on: the engine seeds each scenario on its own, so one
// scenario graded alone (Only) with the grade's seed gives the verdict,
// the runs and the trace it had in the whole grade. A failed scenario's
// trace is kept in both, so it is compared event for event; a passed one
// comes back with its run only when the job keeps passed runs.
func TestScenarioAloneReplaysTheGrade(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/server").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := cat.Problem("idempotent-create-client-code")
	if !ok || p.Code == nil {
		t.Fatal("the shipped create-client problem has no code")
	}
	runner := NewChildRunner(sandbox.Limits{CPUTime: 20 * time.Second, WallTime: 60 * time.Second}, nil)
	runner.Executable = bin
	pool := sandbox.NewPool(runner, 1, 4)
	t.Cleanup(func() { pool.Close() })
	svc := New(pool, nil)
	ctx := context.Background()
	const seed = 3

	grade := func(source string) *gradewire.Report {
		r, err := svc.GradeKit(ctx, nil, KitJob(p.Code, source, seed, nil), p.Code.ScenarioNames, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// A scenario from the middle of each grade: what ran before it in the
	// grade does not run before it alone.
	ref, starter := grade(p.Code.Reference), grade(p.Code.Starter)
	if len(ref.Scenarios) < 3 || len(starter.Scenarios) != len(ref.Scenarios) {
		t.Fatalf("the grades have %d and %d scenarios", len(ref.Scenarios), len(starter.Scenarios))
	}
	mid := len(ref.Scenarios) / 2
	passed, failed := &ref.Scenarios[mid], &starter.Scenarios[mid]
	if passed.Status != gradewire.StatusPass || failed.Status != gradewire.StatusFail {
		t.Fatalf("scenario %d: the reference's %s, the starter's %s; want a pass and a failure", mid, passed.Status, failed.Status)
	}
	if len(passed.Trace) != 0 {
		t.Fatalf("the whole grade kept the run of passed %s", passed.Name)
	}
	sources := map[*gradewire.ScenarioReport]string{passed: p.Code.Reference, failed: p.Code.Starter}
	for _, want := range []*gradewire.ScenarioReport{passed, failed} {
		job := KitJob(p.Code, sources[want], seed, []string{want.Name})
		job.KeepPassed = true
		t0 := time.Now()
		alone, err := svc.GradeKit(ctx, nil, job, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s (%s) alone: %s", want.Name, want.Status, time.Since(t0).Round(time.Millisecond))
		if len(alone.Scenarios) != 1 {
			t.Fatalf("%s alone: %d scenarios", want.Name, len(alone.Scenarios))
		}
		got := alone.Scenarios[0]
		if got.Status != want.Status || got.SchedulesExplored != want.SchedulesExplored || !reflect.DeepEqual(got.Invariants, want.Invariants) {
			t.Errorf("%s alone: %s in %d runs, %+v; in the grade: %s in %d runs, %+v", want.Name, got.Status, got.SchedulesExplored,
				got.Invariants, want.Status, want.SchedulesExplored, want.Invariants)
		}
		if len(got.Trace) == 0 {
			t.Errorf("%s alone, keeping passed runs: no trace", want.Name)
		}
		if want.Status == gradewire.StatusFail && !reflect.DeepEqual(got.Trace, want.Trace) {
			t.Errorf("%s alone ran another run than in the grade:\n%v\nwant\n%v", want.Name, got.Trace, want.Trace)
		}
	}
}
