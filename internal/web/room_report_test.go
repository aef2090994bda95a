package web

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// starterRoomGrader reports what the refund starter gets: 48 failing
// scenarios, each with a drawn run.
type starterRoomGrader struct {
	roomGrader
	report *gradewire.Report
}

func (g starterRoomGrader) GradeAdmitted(context.Context, *sandbox.Ticket, grading.Request, func(gradewire.ScenarioReport)) (*gradewire.Report, error) {
	r := *g.report
	return &r, nil
}

var (
	reportSrc   = regexp.MustCompile(`data-report-src="([^"]+)"`)
	roomPartSrc = regexp.MustCompile(`data-scenario-src="([^"]+)"`)
)

// TestRoomReportsLoadWhenOpened: a room's page sends the newest run's
// report with its first failure whole and the other scenarios' runs to
// load when opened, as a solo run's page does, and the older reports
// only as an entry to load (or open as a page); each part is the asker's
// to see: the candidate gets only what was shared with them.
func TestRoomReportsLoadWhenOpened(t *testing.T) {
	ts := newRoomGradingServer(t, starterRoomGrader{report: starterRunReport(t)}, func(*Config) {})
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	for range 3 {
		if r := ts.do(t, "POST", "/rooms/"+id+"/run", ikey, ""); r.status != http.StatusOK {
			t.Fatalf("run: %d %s", r.status, r.body)
		}
		waitFor(t, func() bool { return ts.runsFinished(t, id, ikey) })
	}
	page := ts.do(t, "GET", "/rooms/"+id, ikey, "")
	if page.status != http.StatusOK {
		t.Fatalf("room page: %d", page.status)
	}
	t.Logf("the interviewer's page with 3 runs of the starter: %d bytes of HTML", len(page.body))
	if n := strings.Count(page.body, `<figure class="grade-sequence"`); n != 1 {
		t.Errorf("the page draws %d runs; want the newest report's first failure alone", n)
	}
	older := reportSrc.FindAllStringSubmatch(page.body, -1)
	if len(older) != 2 {
		t.Fatalf("%d reports to load when opened; want the 2 older ones", len(older))
	}
	if !strings.Contains(page.body, `src="/static/grade-report`) {
		t.Error("the room page does not load the report's script, which brings scenario parts in")
	}
	src := strings.ReplaceAll(older[0][1], "&amp;", "&")
	part := ts.do(t, "GET", src, ikey, "")
	if part.status != http.StatusOK || !strings.HasPrefix(part.body, `<div class="room-report-body">`) || strings.Contains(part.body, "<html") {
		t.Fatalf("%s: %d %.80q; want the report alone", src, part.status, part.body)
	}
	if cc, vary := part.header.Get("Cache-Control"), part.header.Values("Vary"); !strings.HasPrefix(cc, "private") || !strings.Contains(strings.Join(vary, ","), "Cookie") {
		t.Errorf("%s: Cache-Control %q, Vary %q", src, cc, vary)
	}
	whole := ts.do(t, "GET", strings.TrimSuffix(src, "?part=1"), ikey, "")
	if whole.status != http.StatusOK || !strings.Contains(whole.body, "<html") || !strings.Contains(whole.body, "Back to the room") {
		t.Fatalf("the report's own page: %d", whole.status)
	}
	// Ids carry the run: two reports on one page never share one.
	run := regexp.MustCompile(`/runs/(\d+)/`).FindStringSubmatch(src)[1]
	if !strings.Contains(part.body, `id="r`+run+`-`) {
		t.Errorf("the report of run %s has ids without its run", run)
	}
	scen := roomPartSrc.FindStringSubmatch(part.body)
	if scen == nil {
		t.Fatal("the loaded report names no scenario part")
	}
	sp := ts.do(t, "GET", scen[1], ikey, "")
	if sp.status != http.StatusOK || !strings.HasPrefix(sp.body, `<div class="grade-scenario-body">`) || !strings.Contains(sp.body, `<figure class="grade-sequence"`) {
		t.Fatalf("%s: %d %.80q; want the scenario's run", scen[1], sp.status, sp.body)
	}
	alone := ts.do(t, "GET", strings.TrimSuffix(scen[1], "?part=1"), ikey, "")
	if alone.status != http.StatusOK || !strings.Contains(alone.body, "/runs/"+run+"/report#r"+run+"-") {
		t.Errorf("a scenario's own page: %d; want links into the whole report's page", alone.status)
	}

	// The candidate: nothing before it is shared, then the shared one.
	if r := ts.do(t, "GET", src, ckey, ""); r.status != http.StatusNotFound {
		t.Errorf("the candidate got an unshared report: %d; want 404", r.status)
	}
	if r := ts.do(t, "GET", scen[1], ckey, ""); r.status != http.StatusNotFound {
		t.Errorf("the candidate got a scenario of an unshared report: %d; want 404", r.status)
	}
	if r := ts.do(t, "POST", "/rooms/"+id+"/share", ikey, "run="+run); r.status >= 400 {
		t.Fatalf("share run %s: %d %s", run, r.status, r.body)
	}
	if r := ts.do(t, "GET", src, ckey, ""); r.status != http.StatusOK {
		t.Errorf("the candidate cannot read the report shared with them: %d", r.status)
	}
	for _, bad := range []string{"/runs/0/report", "/runs/x/report", "/runs/999/report", "/runs/" + run + "/scenarios/no-such"} {
		if r := ts.do(t, "GET", "/rooms/"+id+bad, ikey, ""); r.status != http.StatusNotFound || !strings.Contains(r.body, "no") {
			t.Errorf("%s: %d; want 404 saying what is missing", bad, r.status)
		}
	}
}

// TestRoomScoreCitesEvidence: a rubric point cites a scenario of the
// latest finished run and an invariant, picked from two short lists (one
// list of every pair made the page megabytes); the run's own status is
// what is saved, and half a cite says what is missing.
func TestRoomScoreCitesEvidence(t *testing.T) {
	rep := starterRunReport(t)
	ts := newRoomGradingServer(t, starterRoomGrader{report: rep}, func(*Config) {})
	id, ikey, _ := ts.room(t, "problem:async-refund")
	for range 3 {
		if r := ts.do(t, "POST", "/rooms/"+id+"/run", ikey, ""); r.status != http.StatusOK {
			t.Fatalf("run: %d %s", r.status, r.body)
		}
		waitFor(t, func() bool { return ts.runsFinished(t, id, ikey) })
	}
	page := ts.do(t, "GET", "/rooms/"+id, ikey, "")
	points := strings.Count(page.body, `name="cite_scenario"`)
	if points == 0 || strings.Count(page.body, `name="cite_invariant"`) != points {
		t.Fatalf("%d scenario lists, %d invariant lists; want one of each per rubric point", points, strings.Count(page.body, `name="cite_invariant"`))
	}
	if n := strings.Count(page.body, "<option"); n > points*(len(rep.Scenarios)+30) {
		t.Errorf("%d options for %d rubric points; want one scenario list and one invariant list each", n, points)
	}
	t.Logf("the interviewer's page with 3 runs of the starter: %d bytes of HTML, %d options", len(page.body), strings.Count(page.body, "<option"))
	latest := regexp.MustCompile(`<option value="(\d+):([a-z0-9-]+)">Run \d+, [^<]*: failed`).FindStringSubmatch(page.body)
	if latest == nil {
		t.Fatal("no failed scenario of the latest run to cite")
	}
	var violated string
	for _, sc := range rep.Scenarios {
		if sc.Name == latest[2] {
			for _, inv := range sc.Invariants {
				if inv.Status == gradewire.InvariantViolated {
					violated = inv.ID
					break
				}
			}
		}
	}
	form := "part=1&point=0&score=2&cite_scenario=" + latest[1] + ":" + latest[2] + "&cite_invariant=" + violated
	if r := ts.do(t, "POST", "/rooms/"+id+"/score", ikey, form); r.status >= 400 {
		t.Fatalf("score with evidence: %d %s", r.status, r.body)
	}
	after := ts.do(t, "GET", "/rooms/"+id, ikey, "")
	if !strings.Contains(after.body, "citing run "+latest[1]+": "+violated+" in "+latest[2]+" violated") {
		t.Error("the saved score does not cite the run's invariant as violated")
	}
	if r := ts.do(t, "POST", "/rooms/"+id+"/score", ikey, "part=1&point=0&score=2&cite_scenario="+latest[1]+":"+latest[2]); r.status != http.StatusBadRequest || !strings.Contains(r.body, "both a scenario and an invariant") {
		t.Errorf("half a cite: %d %s; want 400 saying what is missing", r.status, r.body)
	}
}
