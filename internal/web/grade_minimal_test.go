package web

import (
	"regexp"
	"strings"
	"testing"

	nethtml "golang.org/x/net/html"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// stepSentenceEnd is a full stop that ends one sentence where another
// begins.
var stepSentenceEnd = regexp.MustCompile(`[a-z0-9)"”]\. +[A-Z]`)

// TestFailedScenarioLeadsWithMinimalRun renders both kits' starter
// reports and checks what issue 30 asks of a failed scenario's part: it
// leads with its minimal run, three to six steps of one sentence each,
// before what broke is listed, and then "Show the full run", folded, with
// the run's events inside it.
func TestFailedScenarioLeadsWithMinimalRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  func(*testing.T) *gradewire.Report
	}{
		{"refund", func(t *testing.T) *gradewire.Report { return goldenReport(t, starterGolden) }},
		{"create-client", kitStarterReport},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := tc.rep(t)
			doc := parseFragment(t, renderReport(t, rep))
			shown := 0
			for _, s := range rep.Scenarios {
				if s.Status != gradewire.StatusFail {
					continue
				}
				if s.Minimal == nil {
					t.Errorf("%s: the report has no minimal run for it", s.Name)
					continue
				}
				box := doc.byID[scenarioAnchor(s.Name)]
				if box == nil {
					t.Errorf("no box for the failed scenario %s", s.Name)
					continue
				}
				shown++
				sections := find(box, func(n *nethtml.Node) bool { return hasClass(n, "grade-minimal") })
				if len(sections) != 1 {
					t.Errorf("%s: %d minimal-run sections; want 1", s.Name, len(sections))
					continue
				}
				kids := elementChildren(sections[0])
				if len(kids) < 3 || kids[0].Data != "h5" || !hasClass(kids[1], "grade-minimal-steps") || !hasClass(kids[2], "grade-full-run") {
					t.Errorf("%s: the section does not lead with a heading, the steps, then the full run: %v", s.Name, tags(kids))
					continue
				}
				steps := find(kids[1], tagged("li"))
				if len(steps) < 3 || len(steps) > 6 {
					t.Errorf("%s: %d steps; want 3 to 6", s.Name, len(steps))
				}
				for _, li := range steps {
					if st := textOf(li); !strings.HasSuffix(st, ".") || stepSentenceEnd.MatchString(st) {
						t.Errorf("%s: a step of more or less than one sentence: %q", s.Name, st)
					}
				}
				sum := find(kids[2], tagged("summary"))
				if len(sum) == 0 || !strings.HasPrefix(textOf(sum[0]), "Show the full run") {
					t.Errorf("%s: the full run's summary does not read \"Show the full run\"", s.Name)
				}
				if hasAttr(kids[2], "open") {
					t.Errorf("%s: the full run is open before it is asked for", s.Name)
				}
				// The full run is there, as a sequence diagram (the refund
				// kit's) or a list of events, and only there.
				isRun := func(n *nethtml.Node) bool { return hasClass(n, "grade-trace-events") || hasClass(n, "grade-sequence") }
				if runs := find(kids[2], isRun); len(s.Trace) > 0 && (len(runs) != 1 || len(find(box, isRun)) != 1) {
					t.Errorf("%s: %d full runs inside \"Show the full run\", %d in all; want 1", s.Name, len(runs), len(find(box, isRun)))
				}
				// The steps come before what broke is listed.
				if v := find(box, func(n *nethtml.Node) bool { return hasClass(n, "grade-violations") }); len(v) > 0 && !before(box, sections[0], v[0]) {
					t.Errorf("%s: the list of broken invariants comes before the steps", s.Name)
				}
			}
			if shown == 0 {
				t.Fatal("no failed scenario with a minimal run was rendered")
			}
		})
	}
}

func elementChildren(n *nethtml.Node) []*nethtml.Node {
	var out []*nethtml.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == nethtml.ElementNode {
			out = append(out, c)
		}
	}
	return out
}

func tags(ns []*nethtml.Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Data+"."+attr(n, "class"))
	}
	return out
}

// before says a comes before b in root's document order.
func before(root, a, b *nethtml.Node) bool {
	for d := range root.Descendants() {
		switch d {
		case a:
			return true
		case b:
			return false
		}
	}
	return false
}
