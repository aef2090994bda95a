package web

import (
	"encoding/json"
	"flag"
	"html"
	"os"
	"strings"
	"testing"

	nethtml "golang.org/x/net/html"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

const (
	// kitStarterGolden is what the create-client kit really reports for
	// its starter (kept up to date by the kit's own tests), in the
	// engine's shape; the child sends it as Wire makes it.
	kitStarterGolden = "../kits/createclient/testdata/golden/starter.json"
	// kitStarterHTML is that report's HTML.
	kitStarterHTML = "testdata/kit-starter-report.html"
)

func kitStarterReport(t *testing.T) *gradewire.Report {
	t.Helper()
	b, err := os.ReadFile(kitStarterGolden)
	if err != nil {
		t.Fatal(err)
	}
	var r faultsim.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", kitStarterGolden, err)
	}
	return r.Wire(1)
}

// TestKitReportGolden: a kit's report renders from the wire report alone,
// the same way every time.
func TestKitReportGolden(t *testing.T) {
	out := renderReport(t, kitStarterReport(t))
	if *update {
		if err := os.WriteFile(kitStarterHTML, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(kitStarterHTML)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if out != string(want) {
		i := 0
		for i < len(out) && i < len(want) && out[i] == want[i] {
			i++
		}
		t.Errorf("the kit report differs from %s near byte %d:\n got: %.200s\nwant: %.200s\n(run with -update if the change is intended)",
			kitStarterHTML, i, out[i:], want[i:])
	}
}

// TestKitReportReadsWithoutTheRefundView: what a reader of a kit's report
// needs is there without anything refund-specific: each broken invariant
// with why it matters and the defect it points to, in words; for each
// failed scenario how things stood at the end, its run drawn in the
// kit's own lanes, and the run's events in words, in order, each with
// its time, actor and rule.
func TestKitReportReadsWithoutTheRefundView(t *testing.T) {
	rep := kitStarterReport(t)
	out := renderReport(t, rep)
	doc := parseFragment(t, out)

	why := map[string]string{}
	defect := map[string]string{}
	for _, s := range rep.Scenarios {
		for _, inv := range s.Invariants {
			if inv.Status == gradewire.InvariantViolated {
				why[inv.ID], defect[inv.ID] = inv.Why, inv.Defect
			}
		}
	}
	if len(why) == 0 {
		t.Fatal("the kit's starter report breaks no invariant: the golden file changed")
	}
	for id, w := range why {
		box := doc.byID[invariantAnchor(id)]
		if box == nil {
			t.Errorf("no box for the broken invariant %s", id)
			continue
		}
		text := textOf(box)
		if w == "" || !strings.Contains(text, w) {
			t.Errorf("the box of %s lacks why it matters (%q)", id, w)
		}
		if defect[id] == "" || !strings.Contains(text, "Points to: "+defect[id]) {
			t.Errorf("the box of %s lacks the defect it points to (%q): %s", id, defect[id], text)
		}
		if n := strings.Count(out, html.EscapeString(w)); n != 1 {
			t.Errorf("the explanation of %s appears %d times; want once", id, n)
		}
	}

	for _, s := range rep.Scenarios {
		if s.Status == gradewire.StatusPass {
			continue
		}
		box := doc.byID[scenarioAnchor(s.Name)]
		if box == nil {
			t.Errorf("no box for the failed scenario %s", s.Name)
			continue
		}
		ends := find(box, func(n *nethtml.Node) bool { return hasClass(n, "grade-end-state") })
		if len(s.EndState) == 0 || len(ends) != 1 || len(find(ends[0], tagged("li"))) != len(s.EndState) {
			t.Errorf("%s: the end state (%d lines) is not listed", s.Name, len(s.EndState))
		}
		svgs := find(box, tagged("svg"))
		if len(svgs) != 1 {
			t.Errorf("%s: %d diagrams; want 1", s.Name, len(svgs))
			continue
		}
		var lanes []string
		for _, n := range find(svgs[0], func(n *nethtml.Node) bool { return hasClass(n, "seq-lane-name") }) {
			lanes = append(lanes, textOf(n))
		}
		if len(lanes) < 3 || lanes[0] != "store" || lanes[len(lanes)-1] != "vendor" {
			t.Errorf("%s: lanes %v; want the store's first and the vendor's last, the workers' between", s.Name, lanes)
		}
		traces := find(box, func(n *nethtml.Node) bool { return hasClass(n, "seq-events") })
		if len(traces) != 1 {
			t.Errorf("%s: %d event lists; want 1", s.Name, len(traces))
			continue
		}
		items := find(traces[0], tagged("li"))
		if len(items) != len(s.Trace) {
			t.Errorf("%s: %d events listed; the run has %d", s.Name, len(items), len(s.Trace))
			continue
		}
		for i, li := range items {
			e := s.Trace[i]
			if got := textOf(li); !strings.Contains(got, e.At) || !strings.Contains(got, e.Actor) || !strings.Contains(got, eventWords(e.Text)) ||
				!strings.Contains(got, ruleCitation(e.Rule)) {
				t.Errorf("%s: event %d reads %q; want its time, actor, text and rule (%+v)", s.Name, i, got, e)
				break
			}
		}
	}
	// An invariant that held everywhere says why it matters too.
	held := find(doc.root, func(n *nethtml.Node) bool { return n.Data == "li" && hasClass(n, "grade-held") })
	if len(held) == 0 {
		t.Error("the report lists no invariant that held")
	}
	for _, h := range held {
		if len(find(h, tagged("p"))) != 1 {
			t.Errorf("the held invariant %q does not say why it matters", textOf(h))
		}
	}
	if strings.Contains(out, "Defects of the original code") {
		t.Error("a kit's report shows the refund problem's defect table")
	}
}

// TestReportWithoutStoryListsItsRuns: a report stored before kits told
// their story (no Story, no steps in its events) still renders: each
// failed run is listed event by event, and nothing is drawn.
func TestReportWithoutStoryListsItsRuns(t *testing.T) {
	for name, rep := range map[string]*gradewire.Report{
		"refund":       goldenReport(t, starterGolden),
		"createclient": kitStarterReport(t),
	} {
		t.Run(name, func(t *testing.T) {
			rep.Story = nil
			for i := range rep.Scenarios {
				for j := range rep.Scenarios[i].Trace {
					e := &rep.Scenarios[i].Trace[j]
					e.Peer, e.Back, e.Outcome, e.Message, e.Answer = "", false, "", "", ""
				}
			}
			out := renderReport(t, rep)
			doc := parseFragment(t, out)
			if n := len(find(doc.root, tagged("svg"))); n != 0 {
				t.Errorf("a report without a story draws %d diagrams", n)
			}
			lists := find(doc.root, func(n *nethtml.Node) bool { return hasClass(n, "grade-trace-events") })
			failed := 0
			for _, s := range rep.Scenarios {
				if s.Status != gradewire.StatusPass && len(s.Trace) > 0 {
					failed++
				}
			}
			if failed == 0 || len(lists) != failed {
				t.Errorf("%d runs listed; %d scenarios failed", len(lists), failed)
			}
			if !strings.Contains(out, "event by event") {
				t.Error("the failed list's hint promises a drawing the report does not have")
			}
		})
	}
}
