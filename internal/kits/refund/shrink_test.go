package refund_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// TestStarterMinimalRuns: every failing scenario of the starter's report
// has a minimal run that breaks one of the invariants the scenario broke,
// told in three to six steps: a smaller one (fewer events, or less fault,
// fewer calls, fewer scheduling choices of the seed) or, where every
// choice of the shown run is needed, the shown run itself, found so by a
// search that did not run out of runs.
func TestStarterMinimalRuns(t *testing.T) {
	rep := gradeSeed(t, readSource(t, starterFile), 1)
	failing, smaller := 0, 0
	defer func() { t.Logf("%d failing scenarios, %d already minimal", failing, smaller) }()
	for _, sc := range rep.Scenarios {
		if sc.Status != gradewire.StatusFail {
			continue
		}
		failing++
		t.Run(sc.Name, func(t *testing.T) {
			m := sc.Minimal
			if m == nil {
				t.Fatalf("no minimal run (run %s, %d events)", sc.FailingRun, len(sc.Trace))
			}
			broke := false
			for _, inv := range sc.Invariants {
				broke = broke || inv.ID == m.Invariant && inv.Status == gradewire.InvariantViolated
			}
			if !broke {
				t.Errorf("the minimal run breaks %s, which the scenario did not break", m.Invariant)
			}
			switch {
			case m.Same && m.Exhausted:
				t.Errorf("the search ran out of runs (%d) before it found anything to remove", m.Runs)
			case m.Same:
				smaller++
				if len(m.Removed) > 0 || len(m.Trace) > 0 {
					t.Errorf("the shown run is minimal, yet %d removed, %d events", len(m.Removed), len(m.Trace))
				}
			case len(m.Removed) == 0:
				t.Error("a minimal run that removes nothing")
			case len(m.Trace) > len(sc.Trace) && !removesFault(sc, m):
				t.Errorf("the minimal run has %d events, the shown run %d, and no fault less", len(m.Trace), len(sc.Trace))
			}
			if len(m.Steps) < 3 || len(m.Steps) > 6 {
				t.Errorf("%d steps: %q", len(m.Steps), m.Steps)
			}
			t.Logf("%d -> %d events in %d runs; without %s", len(sc.Trace), len(m.Trace), m.Runs, strings.Join(m.Removed, "; "))
			for _, s := range m.Steps {
				t.Log("  ", s)
			}
		})
	}
	if failing == 0 {
		t.Fatal("the starter failed no scenario")
	}
}

// removesFault says m switches off a fault that fired in sc's shown run,
// or its crash point. (A minimal run that removes calls or picks alone
// has no more events than the shown run: a call less, or the actors
// ready at once in turn.)
func removesFault(sc gradewire.ScenarioReport, m *gradewire.MinimalRun) bool {
	if m.Variation.NoCrash {
		return true
	}
	for _, f := range sc.Choices.Faults {
		if f.Fired && slices.Contains(m.Variation.Drop, f.ID) {
			return true
		}
	}
	return false
}

// TestSameSeedSameMinimalRun: the search is deterministic.
func TestSameSeedSameMinimalRun(t *testing.T) {
	src := readSource(t, starterFile)
	a, b := gradeSeed(t, src, 3), gradeSeed(t, src, 3)
	for i := range a.Scenarios {
		x, _ := json.Marshal(a.Scenarios[i].Minimal)
		y, _ := json.Marshal(b.Scenarios[i].Minimal)
		if string(x) != string(y) {
			t.Errorf("%s: two grades with seed 3 gave different minimal runs:\n%s\n%s", a.Scenarios[i].Name, x, y)
		}
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
