package refund_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// gradeSeed grades source interpreted from seed on the named built-in
// scenarios (all of them when none are named).
func gradeSeed(t *testing.T, source string, seed int64, names ...string) *gradewire.Report {
	t.Helper()
	rep, err := refund.GradeSource(context.Background(), "refund.go", source, scenariosNamed(t, names...), faultsimtest.Bubble(t), faultsim.Options{FirstSeed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSameSeedSameReport(t *testing.T) {
	for _, path := range []string{starterFile, referenceFile} {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			src := readSource(t, path)
			a := sanitizedJSON(t, gradeSeed(t, src, 7))
			b := sanitizedJSON(t, gradeSeed(t, src, 7))
			if !bytes.Equal(a, b) {
				t.Fatal("two grades with seed 7 gave different reports")
			}
		})
	}
}

func TestSeedsChangeSchedules(t *testing.T) {
	src := readSource(t, starterFile)
	traces := map[string]bool{}
	for seed := int64(1); seed <= 6; seed++ {
		rep := gradeSeed(t, src, seed, "redelivery")
		var b strings.Builder
		for _, e := range rep.Scenarios[0].Trace {
			b.WriteString(e.At + e.Actor + e.Text + "\n")
		}
		traces[b.String()] = true
	}
	if len(traces) < 2 {
		t.Fatal("six seeds gave one and the same schedule")
	}
}

// TestFailingSeedReproduces grades a concurrency failure, then grades again
// with the reported failing seed: its first schedule must fail the same way.
func TestFailingSeedReproduces(t *testing.T) {
	src := mutantSource(t, "testdata/mutants/check-then-set.patch")
	sc := gradeSeed(t, src, 1, "two-concurrent").Scenarios[0]
	if sc.FailingSeed == nil {
		t.Fatal("no failing seed reported")
	}
	again := gradeSeed(t, src, *sc.FailingSeed, "two-concurrent").Scenarios[0]
	if again.FailingSeed == nil || *again.FailingSeed != *sc.FailingSeed {
		t.Fatalf("seed %d did not fail first when given as the job seed", *sc.FailingSeed)
	}
	if !slices.Equal(sc.Trace, again.Trace) {
		t.Fatal("the reproduced run's trace differs")
	}
}

// TestLanesDoNotChangeTheReport grades on one, two and three lanes:
// scenarios spread over lanes (a whole suite) and runs spread over lanes
// (one explored scenario). The reports must be identical, and progress
// must arrive in the suite's order whichever lane finishes first.
func TestLanesDoNotChangeTheReport(t *testing.T) {
	for _, tt := range []struct {
		name, path string
		scenarios  []string
	}{
		{"starter, whole suite", starterFile, nil},
		{"reference, whole suite", referenceFile, nil},
		{"starter, one explored scenario", starterFile, []string{"two-concurrent"}},
		{"reference, one crash exploration", referenceFile, []string{"crash-and-rerun"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var want []byte
			for _, lanes := range []int{1, 2, 3} {
				var progressed []string
				opt := faultsim.Options{FirstSeed: 5, Lanes: lanes, Progress: func(s faultsim.ScenarioResult) { progressed = append(progressed, s.Name) }}
				rep, err := refund.GradeSource(context.Background(), "refund.go", readSource(t, tt.path), scenariosNamed(t, tt.scenarios...), faultsimtest.Bubble(t), opt)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, s := range rep.Scenarios {
					names = append(names, s.Name)
				}
				if !slices.Equal(progressed, names) {
					t.Fatalf("%d lanes: progress came as %v, the report lists %v", lanes, progressed, names)
				}
				got := sanitizedJSON(t, rep)
				if want == nil {
					want = got
				} else if !bytes.Equal(got, want) {
					t.Fatalf("%d lanes gave another report than one", lanes)
				}
			}
		})
	}
}

// sourceHeader starts a submission: its package clause and the harness.
const sourceHeader = "package refund\n\nimport (\n\t\"context\"\n\n\t\"github.com/faultline-dev/faultline/internal/grader/refundkit\"\n)\n\n"

// TestResetStartsEveryRunAfresh checks what the reset restores: a counter
// in a package variable, a mutex held when the run ended, a map written by
// the run, and an init function's work, all as a new process has them.
func TestResetStartsEveryRunAfresh(t *testing.T) {
	src := strings.Replace(sourceHeader, "import (\n\t\"context\"\n", "import (\n\t\"context\"\n\t\"fmt\"\n\t\"sync\"\n", 1) + `var (
	mu    sync.Mutex
	calls int
	seen  = map[string]int{}
	ready bool
)

func init() { ready = true }

func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	if !mu.TryLock() {
		panic("the mutex is still held from an earlier run")
	}
	calls++
	seen[id]++
	if calls != 1 || seen[id] != 1 || !ready {
		panic(fmt.Sprintf("state from an earlier run: calls %d, seen %d, ready %v", calls, seen[id], ready))
	}
	return "", fmt.Errorf("stop here")
}
`
	prog, diags := interpreted.Interpret(refund.Kit{}, "refund.go", src)
	if diags != nil {
		t.Fatal(diags)
	}
	// One lane: a worker's interpreter is reused by the next run's.
	rep, err := refund.Grade(context.Background(), prog, scenariosNamed(t, "all-attempts-fail", "two-concurrent", "redelivery"), faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1, Lanes: 1})
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for _, sc := range rep.Scenarios {
		runs += sc.SchedulesExplored
		for _, inv := range sc.Invocations {
			if inv.Panic != "" {
				t.Fatalf("%s: %s panicked: %s", sc.Name, inv.Worker, inv.Panic)
			}
		}
	}
	// The trial load's, and one per worker of the busiest run.
	if prog.Compiled > 4 {
		t.Fatalf("%d interpreters compiled for %d runs on one lane: the state was not reset in place", prog.Compiled, runs)
	}
}

// paddedSolution is the reference grown to about n lines by a read-only
// lookup table that the code consults, as a large real file might.
func paddedSolution(t testing.TB, n int) string {
	ref := readSource(t, referenceFile)
	lines := strings.Count(ref, "\n")
	var b strings.Builder
	b.WriteString("\n// reasonNote explains a give-up reason in the log.\nvar reasonNote = map[string]string{\n")
	for k := 0; k < n-lines-8; k++ {
		fmt.Fprintf(&b, "\t\"reason-%05d\": \"note %d\",\n", k, k)
	}
	b.WriteString("}\n")
	out := ref + b.String()
	old := "func (r *refundRun) giveUp(why string) (refundkit.Outcome, error) {\n"
	if !strings.Contains(out, old) {
		t.Fatal("the reference has no giveUp method to pad")
	}
	return strings.Replace(out, old, old+"\t_ = reasonNote[why]\n", 1)
}

func TestPaddedSolutionPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("grades a 5,000-line file")
	}
	src := paddedSolution(t, 5000)
	if n := strings.Count(src, "\n"); n < 4990 {
		t.Fatalf("the padded file has %d lines", n)
	}
	if rep := gradeSeed(t, src, 1); rep.Status != gradewire.StatusPass {
		t.Fatalf("the padded reference fails: %s", rep.Message)
	}
}

// gradeVariation grades source interpreted with the grade's seed, making
// of v's scenario the one run v describes.
func gradeVariation(t *testing.T, source string, seed int64, v gradewire.Variation) *gradewire.Report {
	t.Helper()
	rep, err := refund.GradeSource(context.Background(), "refund.go", source, scenariosNamed(t, v.Scenario), faultsimtest.Bubble(t),
		faultsim.Options{FirstSeed: seed, Variation: &v})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
