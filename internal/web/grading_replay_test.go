package web

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
)

// TestPassedScenarioRunIsReplayed: a stored report keeps no run of a
// passed scenario, so the report offers it to load, and the scenario's
// part grades that one scenario again, with the run's code and seed and a
// job that keeps passed runs, and draws the replayed run; a busy grader is
// a message with a retry, a replay that does not pass as the grade did is
// a message, and another user gets nothing graded.
func TestPassedScenarioRunIsReplayed(t *testing.T) {
	const seed, code = 7, "package refund\n// REPLAY-ME\n"
	graded := failingReport() // as a child sends it: the pass has no trace
	graded.Seed = seed
	g := &fakeGrader{report: graded}
	ts := newGradingTestServer(t, g)
	b := ts.newBrowser(t)
	status, started := b.postJSON("/problems/"+gradedSlug+"/grade", url.Values{"code": {code}, "seed": {"7"}})
	runURL, _ := started["run_url"].(string)
	if status != 202 || runURL == "" {
		t.Fatalf("Grade: status %d, %v", status, started)
	}
	for deadline := time.Now().Add(30 * time.Second); b.get(runURL).header.Get("Refresh") != ""; {
		if time.Now().After(deadline) {
			t.Fatal("the run did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	part := runURL + "/scenarios/happy-path?part=1"
	b.get(runURL).mustContain(t, `<details class="grade-scenario grade-pass" id="scenario-happy-path" data-scenario-src="`+part+`"`,
		`<a href="`+runURL+`/scenarios/happy-path">Its run, replayed`)
	jobs := len(g.graded())

	// Another user's browser: no such run, and nothing graded.
	if got := ts.newBrowser(t).get(part).status; got != 404 {
		t.Errorf("another user got the replay with status %d; want 404", got)
	}
	if n := len(g.graded()); n != jobs {
		t.Fatalf("another user's request graded %d jobs", n-jobs)
	}

	replayed := failingReport()
	replayed.Seed = seed
	replayed.Scenarios = replayed.Scenarios[:1]
	replayed.Scenarios[0].Trace = []gradewire.TraceEvent{{At: "+0s", Actor: "worker-1", Kind: "call", Text: "REPLAYED-EVENT"}}
	g.mu.Lock()
	g.report = replayed
	g.mu.Unlock()
	p := b.get(part)
	if p.status != 200 || !strings.HasPrefix(p.body, `<div class="grade-scenario-body">`) {
		t.Fatalf("%s: status %d, %.200q; want the replayed part", part, p.status, p.body)
	}
	p.mustContain(t, "REPLAYED-EVENT")
	all := g.graded()
	if len(all) != jobs+1 {
		t.Fatalf("the replay sent %d jobs; want 1", len(all)-jobs)
	}
	job := all[len(all)-1]
	if !slices.Equal(job.Only, []string{"happy-path"}) || !job.KeepPassed || job.Seed != seed || job.Source != code || job.Problem != gradedSlug {
		t.Errorf("the replay's job is %+v; want only happy-path, passed runs kept, seed %d and the run's code", job, seed)
	}
	// Without a script the part is a page with the run.
	full := b.get(runURL + "/scenarios/happy-path")
	if full.status != 200 {
		t.Fatalf("the replayed page: status %d", full.status)
	}
	full.mustContain(t, "<html", "REPLAYED-EVENT")

	// A busy grader: a message and a retry, never stored for later.
	g.mu.Lock()
	g.admitErr = &grading.BusyError{RetryAfter: 3 * time.Second}
	g.mu.Unlock()
	for _, path := range []string{part, runURL + "/scenarios/happy-path"} {
		p := b.get(path)
		if p.status != 503 || p.header.Get("Retry-After") != "3" || p.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s while busy: status %d, Retry-After %q, Cache-Control %q; want 503, 3, no-store", path, p.status,
				p.header.Get("Retry-After"), p.header.Get("Cache-Control"))
		}
		p.mustContain(t, "The grader is busy", "try again in 3 s", `>Try again</a>`)
	}
	g.mu.Lock()
	g.admitErr = nil
	// A replay that does not pass as the grade did draws nothing.
	g.report = failingReport()
	g.report.Scenarios[0].Status = gradewire.StatusFail
	g.report.Scenarios[0].Trace = replayed.Scenarios[0].Trace
	g.mu.Unlock()
	p = b.get(part)
	if p.status != 500 || strings.Contains(p.body, "REPLAYED-EVENT") {
		t.Errorf("a replay that failed: status %d, %.200q; want 500 and no run", p.status, p.body)
	}
	p.mustContain(t, "the grade&#39;s verdict stands")

	// The failed scenario keeps its stored run: nothing is graded for it.
	before := len(g.graded())
	if got := b.get(runURL + "/scenarios/lost-reply?part=1").status; got != 200 || len(g.graded()) != before {
		t.Errorf("a failed scenario's part: status %d, %d jobs graded; want 200 and none", got, len(g.graded())-before)
	}
}
