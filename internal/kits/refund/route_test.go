package refund_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// The refund corpus (testdata/corpus) graded through the engine: each
// correct solution passes every built-in scenario, and each broken one is
// caught at the invariant (or defect) its "// defect:" line names.
func routeCorpus(t *testing.T, kind string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", kind, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no %s corpus in testdata/corpus", kind)
	}
	return files
}

func header(src, key string) string {
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(line, "//") {
			break
		}
		if v, ok := strings.CutPrefix(line, "// "+key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// raceSample is what the corpus test grades under -race: solutions whose
// goroutines exercise the scheduler and the crash model, where the race
// detector earns its cost (as the grader's corpus tests sample).
var raceSample = map[string]bool{
	"goroutine_select.go": true, "pipeline_goroutines.go": true, "check_then_act.go": true, "lease_forever.go": true,
}

func skipOutsideRaceSample(t *testing.T, file string) {
	t.Helper()
	if raceEnabled && !raceSample[filepath.Base(file)] {
		t.Skip("not in the -race sample; the whole corpus runs without -race")
	}
}

func TestCorpusThroughTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("grades the whole corpus")
	}
	passed, caught := 0, 0
	correct, broken := routeCorpus(t, "correct"), routeCorpus(t, "broken")
	for _, f := range correct {
		t.Run("correct/"+filepath.Base(f), func(t *testing.T) {
			skipOutsideRaceSample(t, f)
			rep := grade(t, readSource(t, f), faultsim.Options{FirstSeed: 1})
			if rep.Status != gradewire.StatusPass {
				t.Fatalf("a correct solution fails: %s", rep.Message)
			}
			passed++
		})
	}
	for _, f := range broken {
		t.Run("broken/"+filepath.Base(f), func(t *testing.T) {
			skipOutsideRaceSample(t, f)
			src := readSource(t, f)
			want := header(src, "defect")
			rep := grade(t, src, faultsim.Options{FirstSeed: 1})
			if rep.Status == gradewire.StatusError {
				t.Fatalf("not gradable: %s", rep.Message)
			}
			for _, s := range rep.Scenarios {
				for _, inv := range s.Invariants {
					if inv.Status == gradewire.InvariantViolated && (inv.ID == want || inv.Defect == want) {
						caught++
						return
					}
				}
			}
			t.Fatalf("nothing caught it at %s", want)
		})
	}
	t.Logf("%d of %d correct solutions pass, %d of %d broken ones are caught (all graded unless -race)", passed, len(correct), caught, len(broken))
}

func TestBuiltinScenariosParse(t *testing.T) {
	data, err := os.ReadFile("../../../content/" + refund.BuiltinScenariosFile)
	if err != nil {
		t.Fatal(err)
	}
	list, err := refund.Kit{}.ParseScenarios("scenarios.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(refund.Builtin()) || len(list) < 40 {
		t.Fatalf("%d scenarios parsed, %d built in", len(list), len(refund.Builtin()))
	}
	bad := strings.Replace(string(data), "kit: refund", "kit: refnud", 1)
	if _, err := (refund.Kit{}).ParseScenarios("scenarios.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "scenarios.yaml:") {
		t.Fatalf("a wrong kit name: %v, want an error at file:line", err)
	}
}

// A natively compiled RefundMoney reaches its worker through the context
// the engine passes, and an interpreted one whatever context it passes:
// both read the record in their own worker's name.
func TestBothRoutesReachTheirWorker(t *testing.T) {
	native := func(ctx context.Context, id string) (refundkit.Outcome, error) {
		if _, err := refundkit.GetRecord(ctx, id); err != nil {
			return refundkit.OutcomeFailed, err
		}
		return refundkit.OutcomeUnknown, nil
	}
	const source = `package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	if _, err := refundkit.GetRecord(context.Background(), id); err != nil {
		return refundkit.OutcomeFailed, err
	}
	return refundkit.OutcomeUnknown, nil
}
`
	scenarios := refund.Scenarios(refund.Builtin()[:1])
	interp, diags := interpreted.Interpret(refund.Kit{}, "refund.go", source)
	if diags != nil {
		t.Fatal(diags)
	}
	for name, prog := range map[string]faultsim.Program{"native": faultsimtest.Native{Entry: refund.Entry(native)}, "interpreted": interp} {
		rep, err := refund.Grade(context.Background(), prog, scenarios, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range rep.Scenarios[0].Trace {
			found = found || (e.Actor == "worker-1" && strings.HasPrefix(e.Text, "GetRecord("))
		}
		if !found || rep.Scenarios[0].Invocations[0].Outcome != string(refundkit.OutcomeUnknown) {
			t.Errorf("%s: no GetRecord of worker-1 in the trace, or outcome %+v", name, rep.Scenarios[0].Invocations)
		}
	}
}
