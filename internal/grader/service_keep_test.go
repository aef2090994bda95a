//go:build !nointerp

package grader

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestBrokenChildKeepsFinishedScenarios: a child that breaks late (the
// grader's own failure, or an exit without a final report) loses nothing
// that had finished; with nothing finished the error goes to the caller.
func TestBrokenChildKeepsFinishedScenarios(t *testing.T) {
	svc := NewService(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	order := []string{"all-attempts-fail", "success-on-retry", "lost-reply"}
	done := []ScenarioReport{{Name: "all-attempts-fail", Status: StatusPass}, {Name: "success-on-retry", Status: StatusFail}}
	tests := []struct {
		name     string
		childErr string
		finished []ScenarioReport
		wantErr  bool
	}{
		{"grader failed late", "grader: scenario lost-reply: boom", done, false},
		{"exited without a report", "", done, false},
		{"grader failed at once", "grader: boom", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stream := &resultStream{finished: tc.finished, err: tc.childErr}
			rep, err := svc.interpret(context.Background(), Job{Seed: 1}, order, &sandbox.Outcome{Ending: sandbox.EndNormal}, stream)
			if tc.wantErr {
				if err == nil || rep != nil {
					t.Fatalf("got %v, %v; want an error and no report", rep, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != StatusError || len(rep.Scenarios) != 2 || rep.Summary.ScenariosPassed != 1 || rep.Summary.ScenariosTotal != 3 {
				t.Fatalf("report %s with %d scenarios, %d of %d passed", rep.Status, len(rep.Scenarios), rep.Summary.ScenariosPassed, rep.Summary.ScenariosTotal)
			}
			if !strings.Contains(rep.Message, `in scenario "lost-reply"`) || !strings.Contains(rep.Message, "not of your code") {
				t.Fatalf("message %q", rep.Message)
			}
		})
	}
}

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
	order, err := scenarioOrder(Job{Problem: "async-refund"})
	if err != nil {
		t.Fatal(err)
	}
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
