package grading

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestKitGradesThroughARealChild grades the create-client problem's files
// in the server binary's grading child, as the pages do: the reference
// passes, the starter fails, and code that never returns is stopped at a
// limit with the scenario it was in named and the finished ones kept.
func TestKitGradesThroughARealChild(t *testing.T) {
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
	if !ok || p.Code == nil || len(p.Code.ScenarioNames) < 2 {
		t.Fatal("the shipped create-client problem has no scenarios")
	}
	// The CPU limit is short so the spinning case ends in seconds; on a
	// loaded machine the wall limit may come first, and either is right.
	limits := sandbox.Limits{CPUTime: 3 * time.Second, WallTime: 40 * time.Second}
	runner := NewChildRunner(limits, nil)
	runner.Executable = bin
	pool := sandbox.NewPool(runner, 1, 4)
	t.Cleanup(func() { pool.Close() })
	svc := New(pool, nil)

	// The reference with a loop at the top of CreatePayment: it spins in
	// the first scenario, never calling the harness or the clock.
	sig := "(createapi.Status, error) {\n"
	if !strings.Contains(p.Code.Reference, "func CreatePayment(") || !strings.Contains(p.Code.Reference, sig) {
		t.Fatal("the reference no longer declares CreatePayment this way: update the test")
	}
	spinning := strings.Replace(p.Code.Reference, sig, sig+"\tfor n := 0; ; n++ {\n\t}\n", 1)

	tests := []struct {
		name, source, status string
		message              []string
	}{
		{"reference", p.Code.Reference, gradewire.StatusPass, []string{"Every invariant held"}},
		{"starter", p.Code.Starter, gradewire.StatusFail, []string{"scenarios failed"}},
		{"never returns", spinning, gradewire.StatusError, []string{"The submission was stopped", p.Code.ScenarioNames[0], "time limit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var progress int
			job := KitJob(p.Code, tt.source, 1, nil)
			job.Seeds = 2
			rep, err := svc.GradeKit(context.Background(), nil, job, p.Code.ScenarioNames, func(gradewire.ScenarioReport) { progress++ })
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != tt.status {
				t.Fatalf("status %q (%s), want %q", rep.Status, rep.Message, tt.status)
			}
			for _, w := range tt.message {
				if !strings.Contains(rep.Message, w) {
					t.Errorf("message %q lacks %q", rep.Message, w)
				}
			}
			if rep.Kit != p.Code.Kit || rep.Seed != 1 || progress != len(rep.Scenarios) {
				t.Errorf("kit %q seed %d, %d progress lines for %d scenarios", rep.Kit, rep.Seed, progress, len(rep.Scenarios))
			}
			if tt.status != gradewire.StatusError && rep.Summary.ScenariosTotal != len(p.Code.ScenarioNames) {
				t.Errorf("%d scenarios in the summary; the file has %d", rep.Summary.ScenariosTotal, len(p.Code.ScenarioNames))
			}
			// What crossed the pipe short comes out whole: every
			// invariant has its title back, a failed scenario its trace;
			// a passed one keeps no trace (gradewire's Kept).
			for _, sc := range rep.Scenarios {
				for _, inv := range sc.Invariants {
					if inv.Title == "" {
						t.Errorf("scenario %s: invariant %s came without its title", sc.Name, inv.ID)
					}
				}
				if passed := sc.Status == gradewire.StatusPass; passed != (len(sc.Trace) == 0) {
					t.Errorf("scenario %s (%s) came with %d trace events", sc.Name, sc.Status, len(sc.Trace))
				}
			}
		})
	}
}
