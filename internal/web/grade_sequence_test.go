package web

import (
	"github.com/faultline-dev/faultline/internal/gradewire"
	"strings"
	"testing"
)

func scenarioOf(t *testing.T, r *gradewire.Report, name string) gradewire.ScenarioReport {
	t.Helper()
	for _, s := range r.Scenarios {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("the report has no scenario %s", name)
	return gradewire.ScenarioReport{}
}

func laneX(d *sequenceDiagram, name string) int {
	for _, l := range d.Lanes {
		if l.Name == name {
			return l.X
		}
	}
	return -1
}

func rowsOf(d *sequenceDiagram, shape string) []seqRow {
	var out []seqRow
	for _, r := range d.Rows {
		if r.Shape == shape {
			out = append(out, r)
		}
	}
	return out
}

// TestSequenceDiagramOfTheStarter draws the starter's failing runs and
// checks the picture tells what happened: the lanes, the two refunds of a
// lost reply and of two concurrent calls, the reply that never arrives,
// the process that dies.
func TestSequenceDiagramOfTheStarter(t *testing.T) {
	rep := goldenReport(t, starterGolden)
	tests := []struct {
		scenario string
		lanes    []string
		refunds  int
		check    func(t *testing.T, d *sequenceDiagram)
	}{
		{"lost-reply", []string{"store", "worker-1", "provider"}, 2, func(t *testing.T, d *sequenceDiagram) {
			lost := rowsOf(d, shapeLost)
			if len(lost) != 1 || lost[0].X1 != laneX(d, "provider") || lost[0].X2 != laneX(d, "worker-1") {
				t.Errorf("lost replies %+v; want one from the provider toward worker-1", lost)
			}
			if n := len(rowsOf(d, shapeTimeout)); n != 1 {
				t.Errorf("%d timeouts drawn; want 1", n)
			}
		}},
		{"two-concurrent", []string{"store", "worker-1", "worker-2", "provider"}, 2, func(t *testing.T, d *sequenceDiagram) {
			from := map[int]bool{}
			for _, r := range rowsOf(d, shapeCall) {
				if r.X2 == laneX(d, "provider") {
					from[r.X1] = true
				}
			}
			if !from[laneX(d, "worker-1")] || !from[laneX(d, "worker-2")] {
				t.Error("both workers should call the provider")
			}
		}},
		{"crash-and-rerun", []string{"store", "worker-1", "worker-2", "provider"}, 2, func(t *testing.T, d *sequenceDiagram) {
			crashes := rowsOf(d, shapeCrash)
			if len(crashes) != 1 || crashes[0].X1 != laneX(d, "worker-1") {
				t.Errorf("crash marks %+v; want one on worker-1", crashes)
			}
			for _, l := range d.Lanes {
				if dead := l.EndY < l.Bottom; dead != (l.Name == "worker-1") {
					t.Errorf("lane %s: line ends at %d of %d", l.Name, l.EndY, l.Bottom)
				}
			}
			if n := len(rowsOf(d, shapeRule)); n != 2 {
				t.Errorf("%d phase rules; want 2 (run 1, run 2)", n)
			}
		}},
		{"missing-record", []string{"store", "worker-1", "provider"}, 0, func(t *testing.T, d *sequenceDiagram) {
			if n := len(rowsOf(d, shapeCrash)); n != 1 {
				t.Errorf("%d panic marks; want 1", n)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.scenario, func(t *testing.T) {
			s := scenarioOf(t, rep, tc.scenario)
			d := newSequenceDiagram("seq-"+s.Name, rep.Story, s.Trace, s.TraceTruncated)
			var lanes []string
			for _, l := range d.Lanes {
				lanes = append(lanes, l.Name)
			}
			if strings.Join(lanes, " ") != strings.Join(tc.lanes, " ") {
				t.Errorf("lanes %v; want %v", lanes, tc.lanes)
			}
			money := rowsOf(d, shapeMoney)
			if len(money) != tc.refunds {
				t.Errorf("%d refunds drawn; want %d", len(money), tc.refunds)
			}
			for i, m := range money {
				if m.Count != i+1 || m.X1 != laneX(d, "provider") {
					t.Errorf("refund mark %d: %+v", i+1, m)
				}
			}
			if n := len(d.listed()); n != len(s.Trace) {
				t.Errorf("the text alternative has %d events; the trace %d", n, len(s.Trace))
			}
			for _, r := range d.Rows {
				if r.Y <= seqHeadH || r.Y >= d.Height {
					t.Errorf("row %q at y=%d is outside the picture (height %d)", r.Label, r.Y, d.Height)
				}
				// Labels are whole, and the picture is wide enough for each.
				if strings.HasSuffix(r.Label, "…") {
					t.Errorf("label %q is cut short", r.Label)
				}
				if d.textX()+labelWidth(r.Label) > d.Width {
					t.Errorf("label %q needs %d units from x=%d; the picture is %d wide", r.Label, labelWidth(r.Label), d.textX(), d.Width)
				}
			}
			tc.check(t, d)
		})
	}
}

// TestSequenceDiagramPlacesEveryCall reads every run of both golden
// reports: each call a worker makes to the store or the provider must be
// an arrow to that lane. A call the kit does not describe (a new harness
// function without its step) fails here rather than turning into a dot.
func TestSequenceDiagramPlacesEveryCall(t *testing.T) {
	for _, golden := range []string{starterGolden, referenceGolden} {
		rep := goldenReport(t, golden)
		for _, s := range rep.Scenarios {
			for _, e := range s.Trace {
				if e.Kind == "call" && !strings.HasPrefix(e.Text, "RefundMoney(") && e.Peer != "store" && e.Peer != "provider" {
					t.Errorf("%s %s: the call %q goes to no lane", golden, s.Name, e.Text)
				}
			}
		}
	}
}

func TestEventWordsNameBlanks(t *testing.T) {
	for in, want := range map[string]string{
		`RefundMoney(r1) returns ""`:              "RefundMoney(r1) returns an empty outcome",
		`RefundMoney(r1) returns "", error: boom`: "RefundMoney(r1) returns an empty outcome, error: boom",
		`RefundMoney(r1) returns "done"`:          `RefundMoney(r1) returns "done"`,
	} {
		if got := eventWords(in); got != want {
			t.Errorf("eventWords(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestSequenceLabelsWhole: a long event is drawn in full, and the picture
// widens to hold it rather than cutting it.
func TestSequenceLabelsWhole(t *testing.T) {
	long := "request #1: refund re_1 of 5000 applied under key " + strings.Repeat("k", 60) + " for the charge ch_1"
	story := &gradewire.Story{Before: []string{"store"}, After: []string{"provider"}}
	short := newSequenceDiagram("s", story, []gradewire.TraceEvent{{At: "+0s", Actor: "worker-1", Kind: "call", Text: "GetRecord(r1)"}}, false)
	d := newSequenceDiagram("l", story, []gradewire.TraceEvent{
		{At: "+0s", Actor: "worker-1", Kind: "call", Text: "GetRecord(r1)"},
		{At: "+0s", Actor: "store", Kind: "note", Text: long},
	}, false)
	var found bool
	for _, r := range d.Rows {
		if strings.Contains(r.Label, long) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no row carries the whole event %q: %+v", long, d.Rows)
	}
	if d.Width < d.textX()+labelWidth("store: "+long) || d.Width <= short.Width {
		t.Errorf("width %d (a short run's %d) does not hold the label's %d units from x=%d", d.Width, short.Width, labelWidth("store: "+long), d.textX())
	}
}

// TestSequenceListCitesRulesWhenAsked: the run's events in words cite each
// event's rule when the kit's story asks for it, and only then: a kit
// whose events' words name their rules is not cited twice.
func TestSequenceListCitesRulesWhenAsked(t *testing.T) {
	trace := []gradewire.TraceEvent{
		{At: "+0s", Actor: "worker-1", Kind: "call", Text: "Claim(r1) -> taken", Rule: "S1", Peer: "store", Outcome: "ok", Message: "Claim(r1)"},
		{At: "+0s", Actor: "worker-1", Kind: "log", Text: "starts"},
	}
	for _, tc := range []struct {
		cite bool
		want []string
	}{
		{false, []string{"", ""}},
		{true, []string{"S1", ""}},
	} {
		story := &gradewire.Story{Before: []string{"store"}, CiteRules: tc.cite}
		d := newSequenceDiagram("s", story, trace, false)
		var got []string
		for _, r := range d.listed() {
			got = append(got, r.Rule)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("CiteRules %v: the list cites %q; want %q", tc.cite, got, tc.want)
		}
	}
}
