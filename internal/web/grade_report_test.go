package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"slices"
	"strings"
	"testing"

	nethtml "golang.org/x/net/html"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

const (
	refundStarterFile = "../../content/problems/async-refund/starter/refund.go"
	refundKitHeader   = "package refund\n\nimport (\n\t\"context\"\n\n\t\"github.com/faultline-dev/faultline/internal/grader/refundkit\"\n)\n\n"
	// The refund kit's golden reports: what it really produces for the
	// starter and the reference, kept up to date by its own tests.
	starterGolden   = "../kits/refund/testdata/golden/starter.json"
	referenceGolden = "../kits/refund/testdata/golden/reference.json"
)

// gradeForReport grades src with the refund kit in a synctest bubble, so
// the report's HTML is tested against the data the kit really produces.
func gradeForReport(t *testing.T, src string, seed int64, scenarios ...string) *gradewire.Report {
	t.Helper()
	var list []refund.Scenario
	for _, sc := range refund.Builtin() {
		if len(scenarios) == 0 || slices.Contains(scenarios, sc.Name) {
			list = append(list, sc)
		}
	}
	graded, err := interpreted.GradeSource(context.Background(), refund.Kit{}, refund.Scenarios(list), "refund.go", src, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: seed})
	if err != nil {
		t.Fatal(err)
	}
	rep := graded.Wire(seed)
	rep.Problem = "async-refund" // the parent names the problem; the child knows only the kit
	return rep
}

func readRefundStarter(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(refundStarterFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func goldenReport(t *testing.T, path string) *gradewire.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r gradewire.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

func renderReport(t *testing.T, rep *gradewire.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := gradeReport(rep, "c0ffee").Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// htmlDoc is a parsed fragment with the lookups the tests need.
type htmlDoc struct {
	root *nethtml.Node
	byID map[string]*nethtml.Node
}

func parseFragment(t *testing.T, s string) htmlDoc {
	t.Helper()
	root, err := nethtml.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	d := htmlDoc{root: root, byID: map[string]*nethtml.Node{}}
	for n := range root.Descendants() {
		if id := attr(n, "id"); id != "" {
			if d.byID[id] != nil {
				t.Errorf("the id %q is used twice", id)
			}
			d.byID[id] = n
		}
	}
	return d
}

func attr(n *nethtml.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *nethtml.Node, name string) bool {
	for _, a := range n.Attr {
		if a.Key == name {
			return true
		}
	}
	return false
}

func hasClass(n *nethtml.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// find returns the elements under n (n included) that match.
func find(n *nethtml.Node, match func(*nethtml.Node) bool) []*nethtml.Node {
	var out []*nethtml.Node
	if n.Type == nethtml.ElementNode && match(n) {
		out = append(out, n)
	}
	for d := range n.Descendants() {
		if d.Type == nethtml.ElementNode && match(d) {
			out = append(out, d)
		}
	}
	return out
}

func tagged(tag string) func(*nethtml.Node) bool {
	return func(n *nethtml.Node) bool { return n.Data == tag }
}

func textOf(n *nethtml.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == nethtml.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func inside(n *nethtml.Node, match func(*nethtml.Node) bool) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == nethtml.ElementNode && match(p) {
			return true
		}
	}
	return false
}

// TestGradeReportReadsAtAGlance renders the grader's golden reports and
// checks what issue 10 asks of the page: a summary strip, failures grouped
// by invariant with each explanation once, scenario links that land on
// scenarios of that title, everything closed until opened, a diagram with
// a text alternative for every failed run, and nothing the pages' Content
// Security Policy would refuse.
func TestGradeReportReadsAtAGlance(t *testing.T) {
	tests := []struct {
		name, golden string
		fixed        string // how many defects of the original the strip says are fixed
		firstFailure string // the first failed scenario's name; "" when all passed
	}{
		{"starter", starterGolden, "0 of 7", "all-attempts-fail"},
		{"reference", referenceGolden, "7 of 7", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := goldenReport(t, tc.golden)
			out := renderReport(t, rep)
			doc := parseFragment(t, out)
			titles := map[string]string{}
			for _, s := range rep.Scenarios {
				titles[scenarioAnchor(s.Name)] = s.Title
			}

			strips := find(doc.root, func(n *nethtml.Node) bool { return hasClass(n, "grade-strip") })
			if len(strips) != 1 {
				t.Fatalf("%d summary strips; want 1", len(strips))
			}
			strip := textOf(strips[0])
			// The scenario count follows the grader's suite, which grows.
			passed := fmt.Sprintf("%d of %d scenarios passed", rep.Summary.ScenariosPassed, rep.Summary.ScenariosTotal)
			for _, w := range []string{tc.fixed + " defects of the original fixed", passed} {
				if !strings.Contains(strip, w) {
					t.Errorf("the strip %q lacks %q", strip, w)
				}
			}
			first := find(strips[0], tagged("a"))
			switch {
			case tc.firstFailure == "" && len(first) > 0:
				t.Errorf("a passing report links a first failure: %s", attr(first[0], "href"))
			case tc.firstFailure != "" && (len(first) != 1 || attr(first[0], "href") != "#"+scenarioAnchor(tc.firstFailure)):
				t.Errorf("the strip's link to the first failure is %v; want one to #%s", first, scenarioAnchor(tc.firstFailure))
			}

			// Every same-page link lands somewhere; a scenario's link says
			// its title.
			for _, a := range find(doc.root, tagged("a")) {
				href := attr(a, "href")
				target, ok := strings.CutPrefix(href, "#")
				if !ok {
					continue
				}
				if doc.byID[target] == nil {
					t.Errorf("the link %q (%s) leads nowhere", textOf(a), href)
				}
				if want, isScenario := titles[target]; isScenario && textOf(a) != want {
					t.Errorf("a link to %s says %q; the scenario's title is %q", target, textOf(a), want)
				}
			}
			for anchor := range titles {
				if doc.byID[anchor] == nil {
					t.Errorf("no element has the id %s", anchor)
				}
			}

			// Each explanation is written once.
			seen := map[string]bool{}
			for _, s := range rep.Scenarios {
				for _, inv := range s.Invariants {
					if inv.Status == gradewire.InvariantNotChecked || seen[inv.ID] {
						continue
					}
					seen[inv.ID] = true
					if n := strings.Count(out, html.EscapeString(inv.Why)); n != 1 {
						t.Errorf("the explanation of %s appears %d times; want once", inv.ID, n)
					}
				}
			}

			// Closed until the reader opens something; held invariants
			// are inside the collapsed count.
			for _, d := range find(doc.root, tagged("details")) {
				if hasAttr(d, "open") {
					t.Errorf("<details id=%q class=%q> is open", attr(d, "id"), attr(d, "class"))
				}
			}
			for _, h := range find(doc.root, func(n *nethtml.Node) bool { return hasClass(n, "grade-held") && n.Data == "li" }) {
				if !inside(h, func(p *nethtml.Node) bool { return p.Data == "details" && hasClass(p, "grade-held") }) {
					t.Errorf("the held invariant %q is outside the collapsed count", textOf(h))
				}
			}

			// A diagram with a text alternative for every failed run.
			for _, s := range rep.Scenarios {
				sc := doc.byID[scenarioAnchor(s.Name)]
				if sc == nil {
					continue
				}
				svgs := find(sc, tagged("svg"))
				if s.Status == gradewire.StatusPass || len(s.Trace) == 0 {
					if len(svgs) > 0 {
						t.Errorf("%s: a passed scenario has a diagram", s.Name)
					}
					continue
				}
				if len(svgs) != 1 {
					t.Errorf("%s: %d diagrams; want 1", s.Name, len(svgs))
					continue
				}
				svg := svgs[0]
				if attr(svg, "role") != "img" {
					t.Errorf("%s: the diagram's role is %q", s.Name, attr(svg, "role"))
				}
				title := doc.byID[attr(svg, "aria-labelledby")]
				if title == nil || title.Data != "title" || textOf(title) == "" {
					t.Errorf("%s: the diagram is not named by its <title>", s.Name)
				}
				list := doc.byID[attr(svg, "aria-describedby")]
				if list == nil || list.Data != "ol" {
					t.Errorf("%s: the diagram is not described by an ordered list", s.Name)
					continue
				}
				if n := len(find(list, tagged("li"))); n != len(s.Trace) {
					t.Errorf("%s: the text alternative lists %d events; the trace has %d", s.Name, n, len(s.Trace))
				}
			}

			// What the Content Security Policy refuses: inline scripts,
			// event handlers, style attributes.
			for _, n := range find(doc.root, func(*nethtml.Node) bool { return true }) {
				if n.Data == "script" || n.Data == "style" {
					t.Errorf("a <%s> element", n.Data)
				}
				for _, a := range n.Attr {
					if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
						t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
					}
				}
			}

			// No blanks where a value was empty.
			text := textOf(doc.root)
			for _, blank := range []string{" , ", "returned ,", `returns ""`, ": ,"} {
				if strings.Contains(text, blank) {
					t.Errorf("the report reads %q somewhere", blank)
				}
			}
		})
	}
}

// TestGradeReportFromTheGrader renders reports the grader makes now, not
// from the golden files.
func TestGradeReportFromTheGrader(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		scenarios []string
		want      []string
		once      []string // must appear exactly once
	}{
		{"a lost reply, refunded twice", readRefundStarter(t), []string{"lost-reply"}, []string{
			`id="scenario-lost-reply"`, `class="seq-row seq-lost"`, "The provider applied 2 refunds; 1 message lost.",
			"No idempotency key: each retry is a new refund", `worker-1 returned &#34;done&#34; and a nil error`,
		}, nil},
		{"code that does not compile", refundKitHeader + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n\treturn 1, nil\n}\n", nil, []string{
			"could not be graded", "What stops the code from running", "line 10, column", "1 problem to fix first",
		}, []string{"cannot use 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := renderReport(t, gradeForReport(t, tc.src, 1, tc.scenarios...))
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the fragment lacks %q", w)
				}
			}
			for _, w := range tc.once {
				if n := strings.Count(out, w); n != 1 {
					t.Errorf("%q appears %d times; want once", w, n)
				}
			}
		})
	}
}

func TestGradeReportEscapesSubmissionText(t *testing.T) {
	rep := &gradewire.Report{Status: gradewire.StatusFail, Message: "m", Scenarios: []gradewire.ScenarioReport{{
		Name: "x", Status: gradewire.StatusFail, Output: "<script>alert(1)</script>",
		Invocations: []gradewire.InvocationResult{{Worker: "worker-1", Ended: "returned", Error: "<b>bad</b>"}},
		Trace:       []gradewire.TraceEvent{{At: "+0s", Actor: "worker-1", Kind: "log", Text: "<img src=x onerror=alert(1)>"}},
	}}}
	out := renderReport(t, rep)
	for _, bad := range []string{"<script>", "<b>bad", "<img"} {
		if strings.Contains(out, bad) {
			t.Errorf("submission text reached the HTML unescaped: %q", bad)
		}
	}
}

func TestInvocationWords(t *testing.T) {
	tests := []struct {
		iv   gradewire.InvocationResult
		want string
	}{
		{gradewire.InvocationResult{Worker: "worker-1", Ended: "returned", Outcome: "done"}, `worker-1 returned "done" and a nil error`},
		{gradewire.InvocationResult{Worker: "worker-1", Ended: "returned", Error: "boom"}, `worker-1 returned an empty outcome and the error "boom"`},
		{gradewire.InvocationResult{Worker: "worker-2", Ended: "returned", Outcome: "failed", Error: "declined"}, `worker-2 returned "failed" and the error "declined"`},
		{gradewire.InvocationResult{Worker: "worker-1", Ended: "panicked", Panic: "nil map"}, "worker-1 panicked: nil map"},
		{gradewire.InvocationResult{Worker: "worker-1", Ended: "crashed", CrashedAt: "after CreateRefund (call 2)"}, "worker-1's process crashed after CreateRefund (call 2)"},
		{gradewire.InvocationResult{Worker: "worker-1", Ended: "did-not-return"}, "worker-1 had not returned when the run ended"},
		{gradewire.InvocationResult{Worker: "worker-1", Ended: "not-loaded", Error: "undefined: x"}, "worker-1's code could not be loaded: undefined: x"},
	}
	for _, tc := range tests {
		if got := invocationWords(tc.iv); got != tc.want {
			t.Errorf("invocationWords(%+v) = %q; want %q", tc.iv, got, tc.want)
		}
	}
}

// TestSourceHash pins the fingerprint: web/static/grade-report.js computes
// the same FNV-1a, and the browser test checks that they agree.
func TestSourceHash(t *testing.T) {
	for src, want := range map[string]string{"": "811c9dc5", "a": "e40c292c"} {
		if got := sourceHash(src); got != want {
			t.Errorf("sourceHash(%q) = %s; want %s", src, got, want)
		}
	}
}

// TestCheckAndGradeReportsShareAPage: the workspace shows a quick check's
// report beside the last grade's, so their ids must not collide.
func TestCheckAndGradeReportsShareAPage(t *testing.T) {
	rep := goldenReport(t, starterGolden)
	var buf bytes.Buffer
	if err := gradeReport(rep, "").Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if err := checkReport(rep).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc := parseFragment(t, buf.String()) // fails on a repeated id
	for _, a := range find(doc.root, tagged("a")) {
		if target, ok := strings.CutPrefix(attr(a, "href"), "#"); ok && doc.byID[target] == nil {
			t.Errorf("the link %q leads nowhere", attr(a, "href"))
		}
	}
	if doc.byID["check-scenario-lost-reply"] == nil || doc.byID["scenario-lost-reply"] == nil {
		t.Error("each report should have its own anchor for lost-reply")
	}
}
