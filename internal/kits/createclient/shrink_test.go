package createclient_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

// TestStarterMinimalRuns: every failing scenario of the starter's report
// has a minimal run that breaks one of the invariants the scenario broke,
// told in three to six steps: a smaller run or, where every choice of the
// shown run is needed, the shown run itself, found so by a search that
// did not run out of runs. The same seed gives the same minimal runs.
func TestStarterMinimalRuns(t *testing.T) {
	rep := gradeSource(t, problemDir+"/starter/client.go", faultsim.Options{Seeds: 3})
	again := gradeSource(t, problemDir+"/starter/client.go", faultsim.Options{Seeds: 3})
	failing, same := 0, 0
	for i, sc := range rep.Scenarios {
		if sc.Status != faultsim.StatusFail {
			continue
		}
		failing++
		t.Run(sc.Name, func(t *testing.T) {
			m := sc.Minimal
			if m == nil {
				t.Fatalf("no minimal run (run %s)", sc.Run)
			}
			x, _ := json.Marshal(m)
			y, _ := json.Marshal(again.Scenarios[i].Minimal)
			if string(x) != string(y) {
				t.Errorf("two grades gave different minimal runs:\n%s\n%s", x, y)
			}
			broke := false
			for _, inv := range sc.Invariants {
				broke = broke || inv.ID == m.Invariant && !inv.Held
			}
			if !broke {
				t.Errorf("the minimal run breaks %s, which the scenario did not break", m.Invariant)
			}
			switch {
			case m.Same && m.Exhausted:
				t.Errorf("the search ran out of runs (%d) before it found anything to remove", m.Runs)
			case m.Same:
				same++
			case len(m.Removed) == 0:
				t.Error("a minimal run that removes nothing")
			case len(m.Trace) > len(sc.Trace) && !m.Variation.NoCrash && len(m.Variation.Drop) == 0:
				t.Errorf("the minimal run has %d events, the shown run %d, and no fault less", len(m.Trace), len(sc.Trace))
			}
			if len(m.Steps) < 3 || len(m.Steps) > 6 {
				t.Errorf("%d steps: %q", len(m.Steps), m.Steps)
			}
			t.Logf("%d -> %d events in %d runs; without %s", len(sc.Trace), len(m.Trace), m.Runs, strings.Join(m.Removed, "; "))
		})
	}
	t.Logf("%d failing scenarios, %d already minimal", failing, same)
	if failing == 0 {
		t.Fatal("the starter failed no scenario")
	}
}
