package gradewire

import (
	"encoding/json"
	"reflect"
	"slices"
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

// TestTextsTravelOnce sends scenario lines through Shorten, JSON and Fill,
// as a child and its parent do: each invariant's title and why travel on
// the first line that checks it, or again when they change, and come out
// as they went in; a scenario giving one id two texts goes whole.
func TestTextsTravelOnce(t *testing.T) {
	inv := func(id, title, why string) InvariantResult {
		return InvariantResult{ID: id, Title: title, Why: why, Status: InvariantHeld}
	}
	scenarios := []struct {
		s         ScenarioReport
		wantTexts []string // ids whose texts travel on the line
		short     bool
	}{
		{ScenarioReport{Name: "a", Invariants: []InvariantResult{inv("once", "Once", "money"), inv("ack", "Acked", "")}}, []string{"ack", "once"}, true},
		{ScenarioReport{Name: "b", Invariants: []InvariantResult{inv("once", "Once", "money")}}, nil, true},
		{ScenarioReport{Name: "c", Invariants: []InvariantResult{inv("once", "Once", "money"), inv("new", "New", "x")}}, []string{"new"}, true},
		{ScenarioReport{Name: "d", Invariants: []InvariantResult{inv("once", "Once, said otherwise", "money")}}, []string{"once"}, true},
		{ScenarioReport{Name: "e", Invariants: []InvariantResult{inv("once", "", "")}}, []string{"once"}, true},
		{ScenarioReport{Name: "f", Invariants: []InvariantResult{inv("dup", "One", ""), inv("dup", "Two", "")}}, nil, false},
		{ScenarioReport{Name: "g", Invariants: []InvariantResult{inv("ack", "Acked", "")}}, nil, true},
	}
	child, parent := Texts{}, Texts{}
	for _, tt := range scenarios {
		sent := tt.s
		sent.Invariants = append([]InvariantResult{}, tt.s.Invariants...)
		m := ChildMessage{Scenario: &sent}
		child.Shorten(&m)
		if !reflect.DeepEqual(sent, tt.s) {
			t.Fatalf("%s: Shorten changed the scenario it was given", tt.s.Name)
		}
		var ids []string
		for id := range m.Texts {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		if m.Short != tt.short || !slices.Equal(ids, tt.wantTexts) {
			t.Errorf("%s: short %v with texts of %v, want %v with %v", tt.s.Name, m.Short, ids, tt.short, tt.wantTexts)
		}
		line, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var got ChildMessage
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatal(err)
		}
		if !parent.Fill(&got) {
			t.Fatalf("%s: Fill refused %s", tt.s.Name, line)
		}
		if !reflect.DeepEqual(*got.Scenario, tt.s) {
			t.Errorf("%s: came out as\n%+v\nwant\n%+v", tt.s.Name, *got.Scenario, tt.s)
		}
	}
	// A line whose invariant's texts never came breaks the protocol.
	orphan := ChildMessage{Scenario: &ScenarioReport{Invariants: []InvariantResult{{ID: "never"}}}, Short: true}
	if (Texts{}).Fill(&orphan) {
		t.Error("Fill took an invariant whose texts never came")
	}
}

// TestStreamerLines checks a child's lines, read back as the parent does
// (Texts.Fill, then Attach), give the report as kept; and that a report
// whose scenarios are not the ones sent ahead (a scenario sent after a
// leaking one, left out of the report) travels whole.
func TestStreamerLines(t *testing.T) {
	r := keptFixture()
	r.Scenarios[1].Invariants = append(r.Scenarios[1].Invariants, InvariantResult{ID: "ack", Title: "Acked", Why: "callers", Status: InvariantHeld})
	tests := []struct {
		name   string
		sent   []ScenarioReport // scenarios streamed before the report
		report *Report
		whole  bool
	}{
		{"the report's scenarios went ahead", r.Scenarios, r, false},
		{"one more went ahead than the report has", r.Scenarios, &Report{Version: r.Version, Status: r.Status, Scenarios: r.Scenarios[:1]}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st Streamer
			var lines [][]byte
			for _, s := range tt.sent {
				line, err := json.Marshal(st.Scenario(s))
				if err != nil {
					t.Fatal(err)
				}
				lines = append(lines, line)
			}
			last, err := json.Marshal(st.Report(tt.report))
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, last)
			parent := Texts{}
			var streamed []ScenarioReport
			var got *Report
			for _, line := range lines {
				var m ChildMessage
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatal(err)
				}
				if !parent.Fill(&m) || !m.Attach(streamed) {
					t.Fatalf("the parent refused %s", line)
				}
				if m.Scenario != nil {
					streamed = append(streamed, *m.Scenario)
				}
				if m.Report != nil {
					got = m.Report
					if whole := m.Streamed == 0; whole != tt.whole {
						t.Errorf("the report line went whole: %v, want %v", whole, tt.whole)
					}
				}
			}
			if want := tt.report.Kept(); !reflect.DeepEqual(got, want) {
				t.Errorf("read back:\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestKeepPassedSendsPassedRunsWhole checks a job that keeps passed
// scenarios (a pass replayed on demand) gets their trace and end state on
// every line a child sends, and a job that does not gets them dropped; the
// flag travels in the job's JSON.
func TestKeepPassedSendsPassedRunsWhole(t *testing.T) {
	for _, keep := range []bool{false, true} {
		r := keptFixture()
		st := Streamer{KeepPassed: keep}
		line := st.Scenario(r.Scenarios[0])
		want := r.Scenarios[0]
		if !keep {
			want = want.Kept()
		}
		if len(line.Scenario.Trace) != len(want.Trace) || !reflect.DeepEqual(line.Scenario.EndState, want.EndState) {
			t.Errorf("keep %v: the scenario line has trace %v, end state %v; want %v, %v", keep, line.Scenario.Trace, line.Scenario.EndState, want.Trace, want.EndState)
		}
		// A report line that carries its scenarios (not the ones sent).
		whole := Job{KeepPassed: keep}.Keeps(r)
		if got := len(whole.Scenarios[0].Trace); got != len(want.Trace) {
			t.Errorf("keep %v: the report keeps %d trace events of the pass, want %d", keep, got, len(want.Trace))
		}
		b, err := json.Marshal(Job{KeepPassed: keep})
		if err != nil {
			t.Fatal(err)
		}
		var back Job
		if err := json.Unmarshal(b, &back); err != nil || back.KeepPassed != keep {
			t.Errorf("keep %v: the job travels as %s", keep, b)
		}
	}
}
