package grading

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestBrokenChildKeepsFinishedScenarios: a child that breaks late (the
// grader's own failure, or an exit without a final report) loses nothing
// that had finished; with nothing finished the error goes to the caller.
func TestBrokenChildKeepsFinishedScenarios(t *testing.T) {
	svc := New(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	order := []string{"all-attempts-fail", "success-on-retry", "lost-reply"}
	done := []gradewire.ScenarioReport{{Name: "all-attempts-fail", Status: gradewire.StatusPass}, {Name: "success-on-retry", Status: gradewire.StatusFail}}
	tests := []struct {
		name     string
		childErr string
		finished []gradewire.ScenarioReport
		wantErr  bool
	}{
		{"grader failed late", "grader: scenario lost-reply: boom", done, false},
		{"exited without a report", "", done, false},
		{"grader failed at once", "grader: boom", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stream := &resultStream{finished: tc.finished, err: tc.childErr}
			rep, err := svc.interpret(context.Background(), grade{seed: 1, order: func() []string { return order }}, &sandbox.Outcome{Ending: sandbox.EndNormal}, stream)
			if tc.wantErr {
				if err == nil || rep != nil {
					t.Fatalf("got %v, %v; want an error and no report", rep, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != gradewire.StatusError || len(rep.Scenarios) != 2 || rep.Summary.ScenariosPassed != 1 || rep.Summary.ScenariosTotal != 3 {
				t.Fatalf("report %s with %d scenarios, %d of %d passed", rep.Status, len(rep.Scenarios), rep.Summary.ScenariosPassed, rep.Summary.ScenariosTotal)
			}
			if !strings.Contains(rep.Message, `in scenario "lost-reply"`) || !strings.Contains(rep.Message, "not of your code") {
				t.Fatalf("message %q", rep.Message)
			}
		})
	}
}

// TestScenarioOrderReadOnlyWhenNeeded: GradeKitNaming's list of scenarios
// is asked for only when a report must name or count scenarios the child
// did not finish, not for a finished report.
func TestScenarioOrderReadOnlyWhenNeeded(t *testing.T) {
	svc := New(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	asked := 0
	g := grade{seed: 1, order: func() []string { asked++; return []string{"one", "two"} }}
	finished := []gradewire.ScenarioReport{{Name: "one", Status: gradewire.StatusPass}}

	done := &resultStream{finished: finished, report: &gradewire.Report{Status: gradewire.StatusPass, Seed: 1}}
	if rep, err := svc.interpret(context.Background(), g, &sandbox.Outcome{Ending: sandbox.EndNormal}, done); err != nil || rep.Status != gradewire.StatusPass {
		t.Fatalf("a finished report: %v, %v", rep, err)
	}
	if asked != 0 {
		t.Errorf("the order was asked for %d times for a finished report; want none", asked)
	}

	stopped := &resultStream{finished: finished}
	rep, err := svc.interpret(context.Background(), g, &sandbox.Outcome{Ending: sandbox.EndCPUTime, Limits: sandbox.DefaultLimits()}, stopped)
	if err != nil {
		t.Fatal(err)
	}
	if asked == 0 || !strings.Contains(rep.Message, `in scenario "two"`) || rep.Summary.ScenariosTotal != 2 {
		t.Errorf("a stopped child (order asked %d times): message %q, %d scenarios in all; want scenario \"two\" named, 2", asked, rep.Message, rep.Summary.ScenariosTotal)
	}
}
