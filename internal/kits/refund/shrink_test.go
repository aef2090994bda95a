package refund_test

import (
	"fmt"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// TestStarterMinimalRuns: every failing scenario of the starter's report
// has a minimal run that breaks an invariant the scenario broke, smaller
// than the shown run (cut where it broke, where its invariant is one a
// prefix can break), or found to be the shown run itself where nothing
// can go, told in three to six sentences, and the same from a second
// grade with the same seed (faultsimtest.CheckMinimalRuns, which the
// create-client starter's test uses too).
func TestStarterMinimalRuns(t *testing.T) {
	src := readSource(t, starterFile)
	for _, seed := range []int64{1, 3} {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			replay := func(t *testing.T, v gradewire.Variation) *gradewire.Report { return gradeVariation(t, src, seed, v) }
			failing, same := faultsimtest.CheckMinimalRuns(t, refund.Kit{}, gradeSeed(t, src, seed), gradeSeed(t, src, seed), replay)
			t.Logf("%d failing scenarios, %d already minimal", failing, same)
		})
	}
}

// TestMinimalRunReplays: the minimal run's variation, asked for alone,
// gives the minimal run again, event for event; one cut where it broke
// (Variation.StopAfter) is judged only by the invariants a prefix can
// break, and breaks its own.
func TestMinimalRunReplays(t *testing.T) {
	src := readSource(t, starterFile)
	rep := gradeSeed(t, src, 1)
	smaller, same, cut := 0, 0, 0
	for _, sc := range rep.Scenarios {
		if sc.Minimal == nil || sc.Minimal.Same && same == 1 || !sc.Minimal.Same && smaller == 4 {
			continue
		}
		want := sc.Minimal.Trace
		if sc.Minimal.Same {
			want = sc.Trace // the shown run's variation is the shown run
			same++
		} else {
			smaller++
		}
		v := sc.Minimal.Variation
		again := gradeVariation(t, src, 1, v)
		got := again.Scenarios[0]
		if fmt.Sprint(got.Trace) != fmt.Sprint(want) {
			t.Errorf("%s: the variation's replay differs from the minimal run:\n%v\n%v", sc.Name, got.Trace, want)
		}
		if got.Status != gradewire.StatusFail {
			t.Errorf("%s: the replay passed", sc.Name)
		}
		if v.StopAfter == 0 {
			continue
		}
		// A run cut short is judged only by the invariants a prefix of a
		// run can break: the rest are not checked, not failed.
		cut++
		prefix := map[string]bool{}
		for _, inv := range (refund.Kit{}).Invariants() {
			prefix[inv.ID] = inv.Prefix
		}
		for _, inv := range got.Invariants {
			if !prefix[inv.ID] && inv.Status != gradewire.InvariantNotChecked {
				t.Errorf("%s: the run cut after %d events judged %s (%s), which a prefix of a run cannot break", sc.Name, v.StopAfter, inv.ID, inv.Status)
			}
			if inv.ID == sc.Minimal.Invariant && inv.Status != gradewire.InvariantViolated {
				t.Errorf("%s: the run cut after %d events does not break %s (%s)", sc.Name, v.StopAfter, inv.ID, inv.Status)
			}
		}
	}
	if cut == 0 {
		t.Error("no minimal run replayed was cut")
	}
}
