package web

import (
	"encoding/json"
	"html"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// afterGradeHTMLBudget is the limit on a page after a failing
// grade: at most 200 KB of raw HTML (it was 611 KB with every run drawn).
const afterGradeHTMLBudget = 200 * 1000

var scenarioSrc = regexp.MustCompile(`<details class="grade-scenario grade-(pass|fail|error)" id="scenario-([^"]+)" data-scenario-src="([^"]+)"`)

// starterRunReport is what the refund kit really reports for the starter
// (its golden file): 53 of 58 scenarios fail, each with a run to draw.
func starterRunReport(t *testing.T) *gradewire.Report {
	t.Helper()
	b, err := os.ReadFile("../kits/refund/testdata/golden/starter.json")
	if err != nil {
		t.Fatal(err)
	}
	var r gradewire.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r.Problem = gradedSlug
	return &r
}

// gradeAndWait presses Grade and waits for the run's page to stop
// refreshing itself.
func gradeAndWait(t *testing.T, b *browser) gradeStarted {
	t.Helper()
	started := b.startGrade("package refund\n// LAZY-RUNS\n")
	deadline := time.Now().Add(30 * time.Second)
	for b.get(started.RunURL).header.Get("Refresh") != "" {
		if time.Now().After(deadline) {
			t.Fatal("the run did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return started
}

// TestRunReportLoadsRunsWhenOpened: after a Grade of the starter the page
// carries the first failure whole and every other scenario's run as a link
// to its part, so it stays under the 200 KB; each part is served
// alone for the script and as a page for a reader without one, and only
// to the run's owner.
func TestRunReportLoadsRunsWhenOpened(t *testing.T) {
	rep := starterRunReport(t)
	ts := newGradingTestServer(t, &fakeGrader{report: rep})
	b := ts.newBrowser(t)
	started := gradeAndWait(t, b)

	for _, path := range []string{"/problems/" + gradedSlug, started.RunURL} {
		p := b.get(path)
		if p.status != 200 {
			t.Fatalf("%s: status %d", path, p.status)
		}
		t.Logf("%s after a Grade of the starter: %d bytes of HTML", path, len(p.body))
		if len(p.body) > afterGradeHTMLBudget {
			t.Errorf("%s is %d bytes of HTML after a failing grade; the budget is %d", path, len(p.body), afterGradeHTMLBudget)
		}
		if n := strings.Count(p.body, `<figure class="grade-sequence"`); n != 1 {
			t.Errorf("%s draws %d runs; want the first failure's alone", path, n)
		}
		first := rep.Scenarios[0]
		for _, s := range rep.Scenarios {
			if s.Status != gradewire.StatusPass {
				first = s
				break
			}
		}
		if !strings.Contains(p.body, `id="seq-`+first.Name) {
			t.Errorf("%s does not draw the first failure, %s", path, first.Name)
		}
	}

	p := b.get("/problems/" + gradedSlug)
	parts := scenarioSrc.FindAllStringSubmatch(p.body, -1)
	if want := len(rep.Scenarios) - 1; len(parts) != want {
		t.Fatalf("%d scenarios name a part to load; want %d (all but the first failure)", len(parts), want)
	}
	other := ts.newBrowser(t)
	for i, m := range parts {
		status, name, src := m[1], m[2], html.UnescapeString(m[3])
		page, ok := strings.CutSuffix(src, "?part=1")
		if !ok || page != started.RunURL+"/scenarios/"+name {
			t.Fatalf("scenario %s loads %q", name, src)
		}
		// Without JavaScript the same part is a link away.
		if !strings.Contains(p.body, `<a href="`+page+`">`) {
			t.Errorf("scenario %s has no plain link to %s", name, page)
		}
		if i%8 != 0 && i != len(parts)-1 {
			continue // a sample of the parts: each is the same code
		}
		part := b.get(src)
		if part.status != 200 || !strings.HasPrefix(part.body, `<div class="grade-scenario-body">`) || strings.Contains(part.body, "<html") {
			t.Fatalf("%s: status %d, %.80q; want the scenario's part alone", src, part.status, part.body)
		}
		part.mustContain(t, `<figure class="grade-sequence"`, `id="seq-`+name)
		// The part is the owner's alone: a browser keeps it only for the
		// cookie it was sent with.
		if cc, vary := part.header.Get("Cache-Control"), part.header.Values("Vary"); !strings.HasPrefix(cc, "private") || !slices.Contains(vary, "Cookie") {
			t.Errorf("%s: Cache-Control %q, Vary %q; want private and Vary: Cookie", src, cc, vary)
		}
		if status != "pass" {
			part.mustContain(t, `<ul class="grade-violations">`, `href="#invariant-`)
		}
		full := b.get(page)
		full.mustContain(t, "<html", `<figure class="grade-sequence"`, `href="`+started.RunURL+`#scenario-`+name+`"`)
		if status != "pass" {
			full.mustContain(t, `href="`+started.RunURL+`#invariant-`) // into the whole report, on its page
		}
		if got := other.get(src).status; got != 404 {
			t.Errorf("another user's browser got %s with status %d; want 404", src, got)
		}
	}
	if got := b.get(started.RunURL + "/scenarios/no-such-scenario").status; got != 404 {
		t.Errorf("an unknown scenario: status %d; want 404", got)
	}
}

// TestLiveReportLinksItsParts: the report a live stream sends when the run
// ends links its scenarios' parts under the run's own problem, as the page
// does (the stream's copy of the run once lacked its problem, and linked
// /problems//runs/...).
func TestLiveReportLinksItsParts(t *testing.T) {
	rep := starterRunReport(t)
	g := &fakeGrader{report: rep, gate: make(chan struct{})}
	ts := newGradingTestServer(t, g)
	b := ts.newBrowser(t)
	started := b.startGrade("package refund\n// LIVE\n")
	stream := b.events(started.EventsURL)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for range len(rep.Scenarios) + 1 {
			select {
			case g.gate <- struct{}{}:
			case <-done:
				return
			}
		}
	}()
	live := decode[reportData](t, stream.waitFor("report"), "report")
	want := `data-scenario-src="` + started.RunURL + `/scenarios/`
	if !strings.HasPrefix(started.RunURL, "/problems/"+gradedSlug+"/runs/") || !strings.Contains(live.HTML, want) {
		t.Fatalf("the live report does not load its parts from %s...: %.300s", want, live.HTML)
	}
}
