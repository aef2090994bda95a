package gradewire

import (
	"encoding/json"
	"reflect"
	"testing"
)

func keptFixture() *Report {
	trace := []TraceEvent{{At: "+0s", Actor: "worker-1", Kind: "call", Text: "Create"}}
	calls := []InvocationResult{{Worker: "worker-1", RequestID: "op-1", Ended: "returned", Outcome: "created"}}
	return &Report{Version: ReportVersion, Kit: "k", Status: StatusFail, Message: "1 of 2 scenarios failed: b.",
		Diagnostics: []Diagnostic{}, Summary: Summary{ScenariosPassed: 1, ScenariosTotal: 2, Defects: []DefectStatus{}},
		Scenarios: []ScenarioReport{
			{Name: "a", Title: "A", Status: StatusPass, Output: "[worker-1]\nhi\n", Invocations: calls, Trace: trace, TraceTruncated: true, EndState: []string{"op-1 created"},
				Invariants: []InvariantResult{{ID: "once", Status: InvariantHeld}}},
			{Name: "b", Title: "B", Status: StatusFail, Invocations: calls, Trace: trace, EndState: []string{"op-1 created twice"},
				Invariants: []InvariantResult{{ID: "once", Status: InvariantViolated, Message: "two"}}},
		}}
}

// TestKeptDropsOnlyWhatNoPageReads checks a passed scenario loses its trace
// and end state, and keeps what the report shows of it and the calls the
// referee reads, while a failed one keeps everything.
func TestKeptDropsOnlyWhatNoPageReads(t *testing.T) {
	r := keptFixture()
	k := r.Kept()
	pass, fail := k.Scenarios[0], k.Scenarios[1]
	if len(pass.Trace) != 0 || pass.Trace == nil || pass.TraceTruncated || pass.EndState != nil {
		t.Errorf("a passed scenario keeps trace %v (cut %v), end state %v", pass.Trace, pass.TraceTruncated, pass.EndState)
	}
	if pass.Title != "A" || pass.Output == "" || len(pass.Invocations) != 1 || len(pass.Invariants) != 1 {
		t.Errorf("a passed scenario lost what is shown: %+v", pass)
	}
	if !reflect.DeepEqual(fail, r.Scenarios[1]) {
		t.Errorf("a failed scenario changed: %+v", fail)
	}
	if len(r.Scenarios[0].Trace) != 1 || r.Scenarios[0].EndState == nil {
		t.Error("Kept changed the report it was called on")
	}
}

// TestStreamedReportIsPutBack checks the report line without its scenarios
// travels and, with the scenario lines that went ahead, becomes the whole
// report again; a count that does not match is a broken protocol.
func TestStreamedReportIsPutBack(t *testing.T) {
	r := keptFixture()
	line, err := json.Marshal(r.Streamed())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		streamed []ScenarioReport
		ok       bool
	}{
		{"every scenario went ahead", r.Scenarios, true},
		{"one is missing", r.Scenarios[:1], false},
		{"none came", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m ChildMessage
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatal(err)
			}
			if m.Streamed != 2 || len(m.Report.Scenarios) != 0 {
				t.Fatalf("the line carries %d scenarios and counts %d", len(m.Report.Scenarios), m.Streamed)
			}
			if got := m.Attach(tt.streamed); got != tt.ok {
				t.Fatalf("Attach = %v, want %v", got, tt.ok)
			}
			if tt.ok && !reflect.DeepEqual(m.Report, r) {
				t.Errorf("put back:\n%+v\nwant\n%+v", m.Report, r)
			}
		})
	}
	// A line that carries its scenarios (the native referee's) is whole.
	whole := ChildMessage{Report: r}
	if !whole.Attach(nil) || len(whole.Report.Scenarios) != 2 {
		t.Error("a report line with its scenarios was changed")
	}
}
