package faultsimtest

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// CheckMinimalRuns checks what issue 30 asks of the minimal runs of a
// failing grade (rep; again is the same grade made a second time, same
// seed) of kit k: every failing scenario has one; it breaks an invariant
// the scenario broke; it is smaller than the shown run (fewer events; or
// a fault, the crash, a call or a scheduling choice of the seed less: a
// race of two workers keeps every event when its picks go in turn); it is
// told in three to six steps of one sentence each; and the second grade
// gives the same one. A run cut where its invariant broke
// (Variation.StopAfter) is one of an invariant a prefix can break
// (Invariant.Prefix), and says so. The shown run itself (Same) is allowed
// only where the search found every choice of it needed without running
// out of runs, and either its invariant is judged on the run's end, or
// the run broke it at its last step: replay makes the shown run again one
// event short (a grade of that scenario under v alone, with the grade's
// seed), which must hold the invariant or be the whole run again, the
// last step having written more than one event. It returns how many
// scenarios failed and how many of their runs were already minimal, and
// logs why each of those was. Both kits' starter tests use it, so the two
// starters are held to the same rules.
func CheckMinimalRuns(t *testing.T, k faultsim.Kit, rep, again *gradewire.Report, replay func(t *testing.T, v gradewire.Variation) *gradewire.Report) (failing, same int) {
	t.Helper()
	if len(again.Scenarios) != len(rep.Scenarios) {
		t.Fatalf("the second grade has %d scenarios, the first %d", len(again.Scenarios), len(rep.Scenarios))
	}
	prefix := map[string]bool{}
	for _, inv := range k.Invariants() {
		prefix[inv.ID] = inv.Prefix
	}
	why := map[string]int{} // why a shown run was minimal: how many
	for i, sc := range rep.Scenarios {
		if sc.Status != gradewire.StatusFail {
			if sc.Minimal != nil {
				t.Errorf("%s: a minimal run of a scenario that did not fail (%s)", sc.Name, sc.Status)
			}
			continue
		}
		failing++
		t.Run(sc.Name, func(t *testing.T) {
			m := sc.Minimal
			if m == nil {
				t.Fatalf("no minimal run (run %s, %d events)", sc.FailingRun, len(sc.Trace))
			}
			x, _ := json.Marshal(m)
			y, _ := json.Marshal(again.Scenarios[i].Minimal)
			if string(x) != string(y) {
				t.Errorf("two grades with the same seed gave different minimal runs:\n%s\n%s", x, y)
			}
			broke := false
			for _, inv := range sc.Invariants {
				broke = broke || inv.ID == m.Invariant && inv.Status == gradewire.InvariantViolated
			}
			if !broke {
				t.Errorf("the minimal run breaks %q, which the scenario did not break", m.Invariant)
			}
			if (m.Variation.StopAfter > 0 || m.Cut > 0) && !prefix[m.Invariant] {
				t.Errorf("a minimal run cut after %d events (%d left out) breaking %s, which a prefix of a run cannot break", m.Variation.StopAfter, m.Cut, m.Invariant)
			}
			if (m.Variation.StopAfter > 0) != (m.Cut > 0) {
				t.Errorf("a minimal run stopped after %d events with %d left out", m.Variation.StopAfter, m.Cut)
			}
			switch {
			case m.Same && m.Exhausted:
				t.Errorf("the search ran out of runs (%d) before it found anything to remove", m.Runs)
			case m.Same:
				same++
				if len(m.Removed) > 0 || len(m.Trace) > 0 {
					t.Errorf("the shown run is minimal, yet %d removed, %d events", len(m.Removed), len(m.Trace))
				}
				if !prefix[m.Invariant] {
					why["its invariant ("+m.Invariant+") is judged on the run's end"]++
					break
				}
				why["it broke its invariant ("+m.Invariant+") at its last step"]++
				if sc.TraceTruncated {
					t.Errorf("the shown run of %d events and more is minimal, breaking %s, which a prefix can break", len(sc.Trace), m.Invariant)
					break
				}
				v := m.Variation
				v.StopAfter = len(sc.Trace) - 1
				cut := replay(t, v).Scenarios
				if len(cut) != 1 || cut[0].Name != sc.Name {
					t.Fatalf("the replay of %s graded %d scenarios", sc.Name, len(cut))
				}
				if len(cut[0].Trace) >= len(sc.Trace) {
					break // the last step wrote more than one event: no step less
				}
				for _, inv := range cut[0].Invariants {
					if inv.ID == m.Invariant && inv.Status == gradewire.InvariantViolated {
						t.Errorf("the shown run is called minimal, yet its first %d events break %s already", len(cut[0].Trace), m.Invariant)
					}
				}
			case len(m.Removed) == 0:
				t.Error("a minimal run that removes nothing")
			case !fewerEvents(sc, m) && !lessFault(sc, m) && !fewerPicks(sc, m):
				t.Errorf("the minimal run has %d events, the shown run %d, and no fault, crash, call or scheduling choice less (without %s)",
					len(m.Trace), len(sc.Trace), strings.Join(m.Removed, "; "))
			}
			if len(m.Steps) < 3 || len(m.Steps) > 6 {
				t.Errorf("%d steps: %q", len(m.Steps), m.Steps)
			}
			for _, s := range m.Steps {
				if !oneSentence(s) {
					t.Errorf("a step of more or less than one sentence: %q", s)
				}
			}
			if m.Cut > 0 && !slices.ContainsFunc(m.Steps, func(s string) bool { return strings.Contains(s, "nothing after this changed the outcome") }) {
				t.Errorf("a run cut where it broke %s whose steps do not say so: %q", m.Invariant, m.Steps)
			}
			t.Logf("%d -> %d events in %d runs, breaking %s; without %s", len(sc.Trace), len(m.Trace), m.Runs, m.Invariant, strings.Join(m.Removed, "; "))
		})
	}
	if failing == 0 {
		t.Fatal("the grade failed no scenario")
	}
	for _, w := range slices.Sorted(maps.Keys(why)) {
		t.Logf("%d shown runs were minimal because %s", why[w], w)
	}
	return failing, same
}

// fewerEvents says m's run has fewer events than sc's shown run.
func fewerEvents(sc gradewire.ScenarioReport, m *gradewire.MinimalRun) bool {
	return len(m.Trace) < len(sc.Trace) || sc.TraceTruncated && len(m.Trace) <= len(sc.Trace)
}

// lessFault says m switches off a fault that fired in sc's shown run, its
// crash point, or a call of the entry point the shown run made, or lets a
// fault that took effect many times there take effect fewer times.
func lessFault(sc gradewire.ScenarioReport, m *gradewire.MinimalRun) bool {
	if m.Variation.NoCrash && sc.Choices != nil && sc.Choices.Crash != nil && sc.Choices.Crash.Fired {
		return true
	}
	if sc.Choices != nil {
		for _, f := range sc.Choices.Faults {
			if f.Fired && slices.Contains(m.Variation.Drop, f.ID) {
				return true
			}
			for _, l := range m.Variation.Limits {
				if l.ID == f.ID && f.Splits && l.Times < f.Times {
					return true
				}
			}
		}
	}
	for _, w := range m.Variation.Skip {
		if slices.ContainsFunc(sc.Invocations, func(iv gradewire.InvocationResult) bool { return iv.Worker == w }) {
			return true
		}
	}
	return false
}

// fewerPicks says m's run leaves to the seed fewer of its scheduling
// choices than sc's shown run did: the actors ready at once go in turn
// more often. (A race of two workers keeps every event when its picks are
// made in turn.)
func fewerPicks(sc gradewire.ScenarioReport, m *gradewire.MinimalRun) bool {
	if sc.Choices == nil || m.Variation.Rest != gradewire.RestFirst {
		return false
	}
	seeded := 0
	for _, p := range sc.Choices.Picks {
		if len(p.Ready) > 0 && (p.Picked != p.Ready[0] || p.Nth != 0) {
			seeded++
		}
	}
	return len(m.Variation.Picks) < seeded
}

// sentenceEnd is where one sentence ends and another begins: a full stop,
// a space and a capital (not an initial or a number).
var sentenceEnd = regexp.MustCompile(`[a-z0-9)"”]\. +[A-Z]`)

// oneSentence says s is one sentence: it ends with a full stop and has
// none inside it followed by another sentence.
func oneSentence(s string) bool {
	return strings.HasSuffix(s, ".") && !sentenceEnd.MatchString(s)
}
