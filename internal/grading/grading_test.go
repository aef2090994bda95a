package grading

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/grader"
)

func TestStreamReadsTheChildsLines(t *testing.T) {
	tests := []struct {
		name      string
		lines     []string
		finished  int
		report    bool
		childErr  string
		wantBreak bool
	}{
		{name: "progress then report", lines: []string{`{"scenario":{"name":"a","status":"pass"}}`, `{"scenario":{"name":"b","status":"fail"}}`, `{"report":{"kit":"k","status":"fail"}}`}, finished: 2, report: true},
		{name: "an error from the child", lines: []string{`{"error":"faultsim: no kit \"x\""}`}, childErr: `faultsim: no kit "x"`},
		{name: "not the protocol", lines: []string{`PASS`}, wantBreak: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []string
			st := stream{progress: func(s faultsim.ScenarioResult) { seen = append(seen, s.Name) }}
			for _, l := range tt.lines {
				if err := st.receive([]byte(l)); (err != nil) != tt.wantBreak {
					t.Fatalf("receive(%s) = %v", l, err)
				}
			}
			if len(st.finished) != tt.finished || len(seen) != tt.finished || (st.report != nil) != tt.report || st.childErr != tt.childErr {
				t.Errorf("finished %d (progress %v), report %v, error %q", len(st.finished), seen, st.report != nil, st.childErr)
			}
		})
	}
}

func TestWriteTextAndExitCode(t *testing.T) {
	rep := &faultsim.Report{Kit: "createclient", Status: faultsim.StatusFail, Scenarios: []faultsim.ScenarioResult{
		{Name: "ok-one", Status: faultsim.StatusPass, Runs: 3},
		{Name: "bad-one", Title: "The bad one", Status: faultsim.StatusFail, Runs: 3, Run: "seed 2",
			Invariants: []faultsim.InvariantResult{{ID: "no-duplicate", Title: "Created once", Evidence: []string{"pay_1 and pay_2"}}},
			Calls:      []faultsim.CallResult{{Worker: "worker-1", Subject: "op-1", Ended: "returned", Result: "created, nil"}}},
	}}
	var b strings.Builder
	WriteText(&b, rep)
	for _, want := range []string{"FAIL: 1 of 2 scenarios passed", "ok   ok-one", "FAIL bad-one", "run shown: seed 2", "violated no-duplicate: Created once", "pay_1 and pay_2", "worker-1 op-1 returned created, nil"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	for status, code := range map[string]int{faultsim.StatusPass: 0, faultsim.StatusFail: 1, faultsim.StatusError: 2} {
		if got := ExitCode(&faultsim.Report{Status: status}); got != code {
			t.Errorf("ExitCode(%s) = %d, want %d", status, got, code)
		}
	}
}

func TestRefundViewCarriesTheKitReport(t *testing.T) {
	rep := &faultsim.Report{Kit: "createclient", Status: faultsim.StatusFail, Scenarios: []faultsim.ScenarioResult{
		{Name: "a", Status: faultsim.StatusPass, Runs: 2, Invariants: []faultsim.InvariantResult{{ID: "no-duplicate", Held: true}}},
		{Name: "b", Status: faultsim.StatusFail, Runs: 4, Run: "seed 3",
			Invariants: []faultsim.InvariantResult{{ID: "one-key", Title: "One key", Evidence: []string{"key#1", "key#2"}, Defect: "a new key per attempt"}},
			Calls:      []faultsim.CallResult{{Worker: "worker-1", Subject: "op-1", Ended: "returned", Result: "created, nil"}},
			Trace:      []faultsim.Event{{At: 1500 * time.Millisecond, Actor: "worker-1", Kind: "send", Text: "sends"}}},
	}}
	v := RefundView(rep, "p", 7)
	if v.Status != grader.StatusFail || v.Problem != "p" || v.Seed != 7 || v.Summary.ScenariosPassed != 1 || v.Summary.ScenariosTotal != 2 ||
		v.Message != "1 of 2 scenarios failed." {
		t.Fatalf("view = %+v", v)
	}
	b := v.Scenarios[1]
	inv := b.Invariants[0]
	if b.FailingRun != "seed 3" || b.SchedulesExplored != 4 || inv.Status != grader.InvariantViolated ||
		inv.Message != "key#1\nkey#2\nWhat it points to: a new key per attempt." || inv.Defect != "" {
		t.Errorf("scenario b = %+v", b)
	}
	if iv := b.Invocations[0]; iv.Outcome != "created" || iv.Error != "" || iv.RequestID != "op-1" {
		t.Errorf("invocation = %+v", iv)
	}
	if e := b.Trace[0]; e.At != "+1.5s" || e.Kind != "send" {
		t.Errorf("trace = %+v", e)
	}
	if v.Scenarios[0].Invariants[0].Status != grader.InvariantHeld || v.Scenarios[0].FailingRun != "" {
		t.Errorf("scenario a = %+v", v.Scenarios[0])
	}
}
