package web

import (
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
)

// whatIfReport is failingReport whose failing scenario records the
// choices of its shown run: two scripted faults (the first fired), a
// crash point that fired, and two workers.
func whatIfReport() *gradewire.Report {
	r := failingReport()
	r.Seed = 7
	sc := &r.Scenarios[1]
	sc.Invocations = []gradewire.InvocationResult{{Worker: "worker-1", RequestID: "r1", Ended: "crashed"}, {Worker: "worker-2", RequestID: "r1", Ended: "returned"}}
	sc.Choices = &gradewire.RunChoices{
		Run: gradewire.RunRef{Seed: 9, CrashWorker: "worker-1", CrashCall: 2, CrashBefore: true},
		Faults: []gradewire.FaultChoice{
			{ID: "faults[0]", Class: gradewire.FaultLostReply, Text: "the lost reply on request 1", Fired: true, At: "+0.1s"},
			{ID: "faults[1]", Class: gradewire.FaultConnection, Text: "the connection error on request 3"},
		},
		Crash: &gradewire.CrashChoice{Worker: "worker-1", Point: "before its call 2", Fired: true, At: "+2s"},
	}
	return r
}

// gradeWhatIfRun grades code with g answering report, and returns the
// run's page once it has finished.
func gradeWhatIfRun(t *testing.T, b *browser, code string) string {
	t.Helper()
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
	return runURL
}

// TestWhatIfReplays: a failing scenario of a stored run offers its
// what-if; the page lists what can be changed and grades nothing; a
// change asked for is graded as the run's scenario alone, with its code,
// seed and run and the change as a Variation, and the answer lists the
// invariants whose verdict changed; bad choices say what was wrong; a busy
// grader and a replay already going answer with a retry; another user gets
// nothing; the stored grade never changes.
func TestWhatIfReplays(t *testing.T) {
	const code = "package refund\n// WHAT-IF\n"
	g := &fakeGrader{report: whatIfReport()}
	ts := newGradingTestServer(t, g)
	b := ts.newBrowser(t)
	runURL := gradeWhatIfRun(t, b, code)
	whatIf := runURL + "/scenarios/lost-reply/what-if"
	b.get(runURL).mustContain(t, `<p class="grade-what-if-link" data-what-if-link><a href="`+whatIf+`">What if?`)
	jobs := len(g.graded())

	menu := b.get(whatIf)
	if menu.status != 200 {
		t.Fatalf("the what-if page: status %d", menu.status)
	}
	menu.mustContain(t, "<html", `<form class="grade-what-if-form" method="get" action="`+whatIf+`"`,
		`value="fault-1"`, "Deliver the lost reply on request 1", "it fired at +0.1s",
		`value="no-crash"`, "No crash here: worker-1&#39;s process lives on", "worker-1&#39;s process died before its call 2, at +2s",
		`value="wait-2-after-1"`, "Let worker-2 start after worker-1 ends", `value="wait-1-after-2"`, "Let worker-1 start after worker-2 ends",
		"Scripted, but not fired in this run: the connection error on request 3.")
	menu.mustNotContain(t, `value="fault-2"`)
	part := b.get(whatIf + "?part=1")
	if !strings.HasPrefix(part.body, `<section class="grade-what-if"`) || strings.Contains(part.body, "<html") {
		t.Errorf("the part alone: %.120q", part.body)
	}
	if n := len(g.graded()); n != jobs {
		t.Fatalf("showing the what-if graded %d jobs; want none", n-jobs)
	}

	// Bad choices: a 400 saying what was wrong, beside the form, and
	// nothing graded.
	for _, tt := range []struct{ change, want string }{
		{"", "Choose one thing to change"},
		{"fault-9", "There is no fault 9 in this run: its faults are numbered 1 to 2."},
		{"fault-0", "There is no fault 0 in this run"},
		{"fault-2", "Fault 2, the connection error on request 3, did not fire in this run"},
		{"fault-x", "&#34;fault-x&#34; names no fault"},
		{"wait-3-after-1", "There is no worker 3 in this run: its workers are numbered 1 to 2 (worker-1, worker-2)."},
		{"wait-1-after-1", "A worker cannot wait for itself"},
		{"wait-2-before-1", "names no wait"},
		{"reboot", "&#34;reboot&#34; is not a change this page knows"},
	} {
		for _, suffix := range []string{"", "&part=1"} {
			p := b.get(whatIf + "?change=" + url.QueryEscape(tt.change) + suffix)
			if p.status != http.StatusBadRequest {
				t.Errorf("change %q%s: status %d; want 400", tt.change, suffix, p.status)
			}
			p.mustContain(t, tt.want, `role="alert"`, `<form class="grade-what-if-form"`)
		}
	}
	if n := len(g.graded()); n != jobs {
		t.Fatalf("bad choices graded %d jobs; want none", n-jobs)
	}

	// Another user's browser: no such run, and nothing graded.
	if got := ts.newBrowser(t).get(whatIf + "?change=fault-1").status; got != 404 {
		t.Errorf("another user's what-if: status %d; want 404", got)
	}
	if n := len(g.graded()); n != jobs {
		t.Fatalf("another user's what-if graded %d jobs", n-jobs)
	}

	// The replay: the lost reply delivered, the scenario passes and one
	// invariant that held breaks.
	replayed := failingReport()
	replayed.Scenarios = replayed.Scenarios[1:]
	replayed.Scenarios[0].Status = gradewire.StatusPass
	replayed.Scenarios[0].Invariants = []gradewire.InvariantResult{
		{ID: "no-double-refund", Title: "Never refunded twice", Status: gradewire.InvariantHeld},
		{ID: "same-key", Title: "Same key", Status: gradewire.InvariantViolated, Message: "SAME-KEY-EVIDENCE"},
		{ID: "backoff", Title: "Backoff", Status: gradewire.InvariantNotChecked},
	}
	replayed.Scenarios[0].Trace = []gradewire.TraceEvent{{At: "+0s", Actor: "worker-1", Kind: "call", Text: "REPLAYED-EVENT"}}
	g.mu.Lock()
	g.report = replayed
	g.mu.Unlock()
	base := gradewire.Variation{Scenario: "lost-reply", Run: gradewire.RunRef{Seed: 9, CrashWorker: "worker-1", CrashCall: 2, CrashBefore: true}}
	for _, tt := range []struct {
		change, heading string
		want            gradewire.Variation
	}{
		{"fault-1", "Without the lost reply on request 1", func() gradewire.Variation { v := base; v.Drop = []string{"faults[0]"}; return v }()},
		{"no-crash", "Without the crash of worker-1", func() gradewire.Variation { v := base; v.NoCrash = true; return v }()},
		{"wait-2-after-1", "With worker-2 starting after worker-1 ends", func() gradewire.Variation {
			v := base
			v.Holds = []gradewire.Hold{{Actor: "worker-2", Until: "worker-1"}}
			return v
		}()},
	} {
		p := b.get(whatIf + "?change=" + tt.change + "&part=1")
		if p.status != 200 || !strings.HasPrefix(p.body, `<section class="grade-what-if"`) {
			t.Fatalf("change %s: status %d, %.200q; want the part", tt.change, p.status, p.body)
		}
		p.mustContain(t, tt.heading+": the scenario passes",
			`<li class="grade-what-if-to-held"><strong>Never refunded twice</strong>:`, `<span class="grade-what-if-before">broken</span>`,
			`<li class="grade-what-if-to-broken"><strong>Same key</strong>:`, "SAME-KEY-EVIDENCE",
			"Unchanged: 1 invariant", "still not checked", "REPLAYED-EVENT", `value="`+tt.change+`" required checked`)
		all := g.graded()
		if len(all) != jobs+1 {
			t.Fatalf("change %s sent %d jobs; want 1", tt.change, len(all)-jobs)
		}
		jobs = len(all)
		job := all[len(all)-1]
		if !slices.Equal(job.Only, []string{"lost-reply"}) || job.Seed != 7 || job.Source != code || job.Problem != gradedSlug ||
			job.Variation == nil || !reflect.DeepEqual(*job.Variation, tt.want) {
			t.Errorf("change %s: the job is %+v (variation %+v); want only lost-reply, seed 7, the run's code and %+v",
				tt.change, job, job.Variation, tt.want)
		}
	}
	// Without a script the answer is a page, the form on it again.
	full := b.get(whatIf + "?change=fault-1")
	full.mustContain(t, "<html", "What if: LOST-REPLY-TITLE", "Without the lost reply on request 1: the scenario passes",
		`href="`+runURL+`#scenario-lost-reply"`)
	jobs = len(g.graded())

	// A busy grader: a message and a way to try again, never cached.
	g.mu.Lock()
	g.admitErr = &grading.BusyError{RetryAfter: 3 * time.Second}
	g.mu.Unlock()
	for _, suffix := range []string{"", "&part=1"} {
		p := b.get(whatIf + "?change=fault-1" + suffix)
		if p.status != 503 || p.header.Get("Retry-After") != "3" || p.header.Get("Cache-Control") != "no-store" {
			t.Errorf("busy%s: status %d, Retry-After %q, Cache-Control %q; want 503, 3, no-store", suffix, p.status,
				p.header.Get("Retry-After"), p.header.Get("Cache-Control"))
		}
		p.mustContain(t, "The grader is busy, so this what-if cannot be replayed now: try again in 3 s.",
			`<a href="`+whatIf+`?change=fault-1" data-what-if-retry>Try again</a>`)
	}
	g.mu.Lock()
	g.admitErr = nil
	g.mu.Unlock()

	// One replay at a time per identity: a second while the first runs
	// waits its turn; another identity is not held up.
	g.mu.Lock()
	g.gate = make(chan struct{})
	g.mu.Unlock()
	first := make(chan int)
	go func() {
		resp, err := b.client.Get(ts.URL + whatIf + "?change=no-crash&part=1")
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	for deadline := time.Now().Add(10 * time.Second); len(g.graded()) == jobs; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first replay never reached the grader")
		}
	}
	second := b.get(whatIf + "?change=fault-1&part=1")
	if second.status != http.StatusTooManyRequests || second.header.Get("Retry-After") == "" {
		t.Errorf("a second replay while one runs: status %d, Retry-After %q; want 429 and a retry", second.status, second.header.Get("Retry-After"))
	}
	second.mustContain(t, "Another replay of yours is running")
	g.gate <- struct{}{} // the one scenario
	g.gate <- struct{}{} // the report
	if got := <-first; got != 200 {
		t.Errorf("the first replay: status %d; want 200", got)
	}
	g.mu.Lock()
	g.gate = nil
	g.mu.Unlock()

	// The stored grade is as it was.
	b.get(runURL).mustContain(t, "LOST-REPLY-EXPLANATION")
	b.get(runURL).mustNotContain(t, "REPLAYED-EVENT")

	// A passed scenario has no what-if, nor does a report without the
	// runs' choices.
	before := len(g.graded())
	b.get(runURL+"/scenarios/happy-path/what-if?change=fault-1").mustContain(t, "This scenario passed")
	g.mu.Lock()
	g.report = failingReport()
	g.mu.Unlock()
	old := gradeWhatIfRun(t, b, code+"// OLD\n")
	b.get(old).mustNotContain(t, "data-what-if-link")
	p := b.get(old + "/scenarios/lost-reply/what-if?change=fault-1")
	if p.status != 404 {
		t.Errorf("a what-if of a report without choices: status %d; want 404", p.status)
	}
	p.mustContain(t, "grade again to try them")
	if n := len(g.graded()) - before; n != 1 { // the Grade itself
		t.Errorf("what-ifs that cannot be made graded %d jobs", n-1)
	}
}

// TestWhatIfLimitPerAddress: a what-if replay is admitted as a Grade is,
// under its client's address and in the pool's queue, and it holds one of
// the address's places while it runs. With the places taken by Grades of
// others behind the same address it is refused with a retry, admitted
// nowhere; while it runs, a Grade past the places is refused; once it has
// answered, its place is given back.
func TestWhatIfLimitPerAddress(t *testing.T) {
	g := &fakeGrader{report: whatIfReport(), retry: 6 * time.Second}
	ts := newGradingTestServer(t, g, func(c *Config) { c.GradesPerAddress = 2 })
	b := ts.newBrowser(t)
	runURL := gradeWhatIfRun(t, b, "package refund // MINE")
	whatIf := runURL + "/scenarios/lost-reply/what-if"

	// Two others behind the address grade, and their runs wait.
	g.mu.Lock()
	g.gate = make(chan struct{})
	g.mu.Unlock()
	others := []*browser{ts.newBrowser(t), ts.newBrowser(t)}
	var runs []gradeStarted
	for _, o := range others {
		runs = append(runs, o.startGrade("package refund // OTHER"))
	}
	admitted := len(g.admittedKeys())
	for _, suffix := range []string{"", "&part=1"} {
		p := b.get(whatIf + "?change=fault-1" + suffix)
		if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") != "6" || p.header.Get("Cache-Control") != "no-store" {
			t.Errorf("a what-if%s with the address's places taken: status %d, Retry-After %q, Cache-Control %q; want 429, 6, no-store",
				suffix, p.status, p.header.Get("Retry-After"), p.header.Get("Cache-Control"))
		}
		p.mustContain(t, "2 gradings from your network address are running or waiting, the most it may have at once, so this what-if cannot be replayed now: try again in 6 s.",
			`<a href="`+whatIf+`?change=fault-1" data-what-if-retry>Try again</a>`)
	}
	if n := len(g.admittedKeys()) - admitted; n != 0 {
		t.Errorf("what-ifs refused for the address's places were admitted %d times; want none", n)
	}
	close(g.gate)
	for i, o := range others {
		o.events(runs[i].EventsURL).waitFor("report")
	}

	// A what-if runs beside one other Grade: the two fill the address.
	g.mu.Lock()
	g.gate = make(chan struct{})
	g.mu.Unlock()
	jobs, admitted := len(g.graded()), len(g.admittedKeys())
	run := others[0].startGrade("package refund // BESIDE")
	answered := make(chan page)
	go func() { answered <- b.get(whatIf + "?change=fault-1&part=1") }()
	for deadline := time.Now().Add(10 * time.Second); len(g.graded()) < jobs+2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the Grade and the what-if never both reached the grader")
		}
	}
	refusal(t, others[1].postCode("/problems/"+gradedSlug+"/grade", "package refund // THIRD", true),
		http.StatusTooManyRequests, 6, "2 gradings from your network address")
	close(g.gate)
	if p := <-answered; p.status != http.StatusOK || !strings.Contains(p.body, "data-what-if-result") {
		t.Errorf("the what-if: status %d, %.200q; want its answer", p.status, p.body)
	}
	others[0].events(run.EventsURL).waitFor("report")
	keys := g.admittedKeys()
	if n := len(keys) - admitted; n != 2 {
		t.Errorf("the Grade and the what-if took %d places in the pool's queue; want one each", n)
	}
	for i, k := range keys {
		if k != "127.0.0.1" {
			t.Errorf("job %d was admitted under %q; want the client's address, as every Grade", i+1, k)
		}
	}
	variations := 0
	for _, j := range g.graded()[jobs:] {
		if j.Variation != nil {
			variations++
		}
	}
	if variations != 1 {
		t.Errorf("%d of the Grade's and the what-if's jobs carried a variation; want the what-if's alone", variations)
	}

	// Its place is given back: a Grade from the address goes in again.
	g.mu.Lock()
	g.gate = nil
	g.mu.Unlock()
	others[1].startGrade("package refund // AFTER")
}
