//go:build !nointerp

package grader

import (
	"context"
	"strings"
	"testing"
)

// TestSpinningErrorMethodStopsItsScenario: an error whose Error method
// never returns, returned in a scenario late in the suite, spins inside
// that scenario's run (its text is read there), so the child is stopped at
// a limit (CPU time, or wall time on a loaded machine) with the scenarios
// before it kept and the scenario named; it never spins while the report
// is built, losing every finished scenario.
func TestSpinningErrorMethodStopsItsScenario(t *testing.T) {
	src := readSource(t, referenceFile)
	old := `return "", fmt.Errorf("refund %s: no refund request with this id: %w", requestID, err)`
	if !strings.Contains(src, old) {
		t.Fatal("the reference no longer reports a missing record this way: update the test")
	}
	src = strings.Replace(src, old, `return "", spinning{}`, 1) + `
type spinning struct{}

func (spinning) Error() string {
	n := 0
	for {
		n++
	}
}
`
	svc := newTestService(t, hostileLimits, 1, 0)
	rep, err := svc.Grade(context.Background(), Job{Problem: "async-refund", Source: src, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	order := scenarioNames(Job{Problem: "async-refund"})
	at := -1
	for i, name := range order {
		if name == "missing-record" {
			at = i
		}
	}
	if rep.Status != StatusError || !strings.Contains(rep.Message, `in scenario "missing-record"`) || !strings.Contains(rep.Message, "time limit") {
		t.Fatalf("report %s: %q", rep.Status, rep.Message)
	}
	if len(rep.Scenarios) != at || rep.Summary.ScenariosPassed != at {
		t.Fatalf("%d scenarios kept, %d passed; want the %d before missing-record", len(rep.Scenarios), rep.Summary.ScenariosPassed, at)
	}
}
