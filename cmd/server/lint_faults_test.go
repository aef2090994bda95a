package main

import (
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

type linedScenario struct {
	name string
	line int
}

func (s linedScenario) Plan() faultsim.Plan { return faultsim.Plan{Name: s.name} }
func (s linedScenario) Line() int           { return s.line }

// TestFaultWarnings: lint warns, at the scenario's line, of each scenario
// the reference passes while a fault it scripts never fired; not of one
// whose faults all fired, nor of one the reference fails (that is an
// error of its own), nor of a fault whose author said why a correct
// solution may never meet it (FaultRef.Unmet).
func TestFaultWarnings(t *testing.T) {
	scs := []faultsim.Scenario{linedScenario{"all-fire", 3}, linedScenario{"one-silent", 12}, linedScenario{"failed", 20}, linedScenario{"two-silent", 30},
		linedScenario{"silent-as-said", 40}, linedScenario{"three-silent-one-as-said", 50}}
	rep := &gradewire.Report{Scenarios: []gradewire.ScenarioReport{
		{Name: "all-fire", Status: gradewire.StatusPass, FaultsFired: []string{gradewire.FaultLostReply}},
		{Name: "one-silent", Status: gradewire.StatusPass, FaultsUnfired: []string{"the lost reply to request 3"}},
		{Name: "failed", Status: gradewire.StatusFail, FaultsUnfired: []string{"the 503 answer to request 2"}},
		{Name: "two-silent", Status: gradewire.StatusPass, FaultsUnfired: []string{"the 429 answer to request 2", "the slow handling of request 4"}},
		{Name: "silent-as-said", Status: gradewire.StatusPass, FaultsUnfired: []string{"the lost reply to request 9"}},
		{Name: "three-silent-one-as-said", Status: gradewire.StatusPass, FaultsUnfired: []string{"the lost reply to request 8", "the lost reply to request 9", "the 500 answer to every look-up"}},
	}}
	refs := func(sc faultsim.Scenario) []faultsim.FaultRef {
		switch sc.Plan().Name {
		case "silent-as-said":
			return []faultsim.FaultRef{{ID: "faults[0]", Text: "the lost reply to request 9", Unmet: "for code that tries more than eight times"}}
		case "three-silent-one-as-said", "two-silent":
			return []faultsim.FaultRef{{ID: "faults[0]", Text: "the lost reply to request 8"}, {ID: "faults[1]", Text: "the lost reply to request 9", Unmet: "for code that tries more than eight times"},
				{ID: "lookup_faults[0]", Text: "the 500 answer to every look-up"}, {ID: "faults[2]", Text: "the 429 answer to request 2"}}
		}
		return nil
	}
	got := faultWarnings("problems/x/scenarios.yaml", "ref.go", scs, refs, rep)
	var lines []string
	for _, d := range got {
		if !d.Warning {
			t.Errorf("%s is not a warning", d)
		}
		lines = append(lines, d.String())
	}
	want := []string{
		`problems/x/scenarios.yaml:12: warning: scenario "one-silent": a fault it scripts never fires against the reference ref.go, in any of its runs (the lost reply to request 3): a pass of it does not show the code copes with that fault`,
		`problems/x/scenarios.yaml:30: warning: scenario "two-silent": 2 faults it scripts never fire against the reference ref.go, in any of its runs (the 429 answer to request 2; the slow handling of request 4): a pass of it does not show the code copes with that fault`,
		`problems/x/scenarios.yaml:50: warning: scenario "three-silent-one-as-said": 2 faults it scripts never fire against the reference ref.go, in any of its runs (the lost reply to request 8; the 500 answer to every look-up): a pass of it does not show the code copes with that fault`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
