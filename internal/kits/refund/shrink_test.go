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
// gives the minimal run again, event for event.
func TestMinimalRunReplays(t *testing.T) {
	src := readSource(t, starterFile)
	rep := gradeSeed(t, src, 1)
	smaller, same := 0, 0
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
	}
}
