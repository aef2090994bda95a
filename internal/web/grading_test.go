package web

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/storage"
)

// gradedSlug is a problem the real grader has a suite for, so progress
// counts against the real number of scenarios.
const gradedSlug = "async-refund"

// gradingCatalog is testCatalog plus a gradable problem.
func gradingCatalog() *problems.Catalog {
	cat := testCatalog()
	cat.Problems = append([]*problems.Problem{{
		Slug: gradedSlug, Title: "Debug the async refund", Prompt: md("REFUND-PROMPT"),
		ModelAnswer: md("REFUND-MODEL"),
		Code: &problems.Code{Language: "go", StarterPath: "problems/async-refund/starter/refund.go",
			Starter: "package refund\n\n// STARTER-CODE\nfunc RefundMoney() {}\n", Kit: "refund"},
	}}, cat.Problems...)
	return cat
}

// fakeGrader grades by a script: it reports each scenario of its report
// as progress, after waiting for a step on the gate when there is one.
type fakeGrader struct {
	report   *gradewire.Report
	err      error
	gate     chan struct{} // nil: no waiting
	admitErr error         // Admit's answer
	retry    time.Duration // RetryAfter's answer

	mu       sync.Mutex
	jobs     []grading.Request
	admitted []string // keys, in order
}

func (f *fakeGrader) Admit(key string) (*sandbox.Ticket, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.admitErr == nil {
		f.admitted = append(f.admitted, key)
	}
	return nil, f.admitErr
}

func (f *fakeGrader) RetryAfter(string) time.Duration { return f.retry }

// Plan is the real plan of the refund problem (its shipped scenarios file's
// scenarios and Check list), and nothing for any other problem.
func (f *fakeGrader) Plan(problem string) (grading.Plan, bool) {
	if problem != gradedSlug {
		return grading.Plan{}, false
	}
	return shippedPlan(gradedSlug), true
}

// shippedPlan is the plan of a problem of the shipped content.
func shippedPlan(slug string) grading.Plan {
	shippedCatalog.once.Do(func() { shippedCatalog.cat, shippedCatalog.err = problems.Load(content.FS) })
	if shippedCatalog.err != nil {
		panic(shippedCatalog.err)
	}
	p, ok := shippedCatalog.cat.Problem(slug)
	if !ok || p.Code == nil {
		panic("the shipped content has no code problem " + slug)
	}
	return grading.Plan{Scenarios: p.Code.ScenarioNames, Check: p.Code.CheckScenarios}
}

var shippedCatalog struct {
	once sync.Once
	cat  *problems.Catalog
	err  error
}

func (f *fakeGrader) GradeAdmitted(ctx context.Context, _ *sandbox.Ticket, job grading.Request, progress func(gradewire.ScenarioReport)) (*gradewire.Report, error) {
	f.mu.Lock()
	f.jobs = append(f.jobs, job)
	f.mu.Unlock()
	if f.report != nil {
		for _, sc := range f.report.Scenarios {
			if f.gate != nil {
				select {
				case <-f.gate:
				case <-ctx.Done():
					return nil, fmt.Errorf("fake grader: %w", ctx.Err())
				}
			}
			progress(sc)
		}
	}
	if f.gate != nil {
		select {
		case <-f.gate: // one more step lets the report out
		case <-ctx.Done():
			return nil, fmt.Errorf("fake grader: %w", ctx.Err())
		}
	}
	return f.report, f.err
}

func (f *fakeGrader) graded() []grading.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]grading.Request(nil), f.jobs...)
}

// failingReport is a report with two scenarios, one failed.
func failingReport() *gradewire.Report {
	return &gradewire.Report{Version: gradewire.ReportVersion, Status: gradewire.StatusFail, Message: "1 of 2 scenarios failed.",
		Problem: gradedSlug, Seed: 1, Diagnostics: []gradewire.Diagnostic{},
		Summary: gradewire.Summary{ScenariosPassed: 1, ScenariosTotal: 2, Defects: []gradewire.DefectStatus{
			{ID: "blind-resend", Title: "BLIND-RESEND-DEFECT", Kind: gradewire.DefectKindOriginal, Fixed: false},
			{ID: "no-key", Title: "NO-KEY-DEFECT", Kind: gradewire.DefectKindOriginal, Fixed: true},
			{ID: "lost-claim", Title: "LOST-CLAIM-MISTAKE", Kind: gradewire.DefectKindRewrite, Fixed: true},
		}},
		Scenarios: []gradewire.ScenarioReport{
			{Name: "happy-path", Title: "HAPPY-PATH-TITLE", Status: gradewire.StatusPass, SchedulesExplored: 1,
				Invariants: []gradewire.InvariantResult{{ID: "no-double-refund", Title: "Never refunded twice", Status: gradewire.InvariantHeld}}},
			{Name: "lost-reply", Title: "LOST-REPLY-TITLE", Status: gradewire.StatusFail, SchedulesExplored: 3,
				Invariants: []gradewire.InvariantResult{
					{ID: "no-double-refund", Title: "Never refunded twice", Status: gradewire.InvariantViolated,
						Message: "LOST-REPLY-EXPLANATION", Defect: "blind-resend"},
					{ID: "same-key", Title: "Same key", Status: gradewire.InvariantHeld},
					{ID: "backoff", Title: "Backoff", Status: gradewire.InvariantNotChecked},
				}},
		},
	}
}

// compileErrorReport is the report of code that does not compile.
func compileErrorReport() *gradewire.Report {
	return &gradewire.Report{Version: gradewire.ReportVersion, Status: gradewire.StatusError, Message: "The code does not compile.",
		Problem: gradedSlug, Seed: 1, Scenarios: []gradewire.ScenarioReport{}, Summary: gradewire.Summary{Defects: []gradewire.DefectStatus{}},
		Diagnostics: []gradewire.Diagnostic{{Line: 3, Column: 5, Message: "undefined: COMPILE-MARKER"}}}
}

func newGradingTestServer(t *testing.T, g Grader, configure ...func(*Config)) *testServer {
	t.Helper()
	store, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "web.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cfg := Config{Catalog: gradingCatalog(), Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if g != nil {
		cfg.Grader = g
	}
	for _, f := range configure {
		f(&cfg)
	}
	app, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(app)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := app.StopGrading(ctx); err != nil {
			t.Errorf("StopGrading: %v", err)
		}
	})
	return &testServer{Server: ts, app: app, store: store}
}

// postCode sends code to a workspace route as the script does (asking for
// JSON) or as a plain form, without following redirects.
func (b *browser) postCode(path, code string, script bool) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.ts.URL+path, strings.NewReader(url.Values{"code": {code}}.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if script {
		req.Header.Set("Accept", "application/json")
	}
	client := *b.client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		b.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, body: string(body), header: resp.Header}
}

// startGrade presses Grade from the script and returns the run it started.
func (b *browser) startGrade(code string) gradeStarted {
	b.t.Helper()
	p := b.postCode("/problems/"+gradedSlug+"/grade", code, true)
	if p.status != http.StatusAccepted {
		b.t.Fatalf("Grade: status %d: %s", p.status, p.body)
	}
	var started gradeStarted
	if err := json.Unmarshal([]byte(p.body), &started); err != nil {
		b.t.Fatalf("Grade answered %q: %v", p.body, err)
	}
	return started
}

type event struct {
	id   string // "" when the event has none
	name string
	data string
}

// eventStream reads a run's server-sent events.
type eventStream struct {
	t      *testing.T
	resp   *http.Response
	events chan event
	// gap is the longest wait for the next event (10 s when zero).
	gap time.Duration
}

func (b *browser) events(path string) *eventStream {
	b.t.Helper()
	return b.eventsAfter(path, "")
}

// eventsAfter reads a run's events as a reconnecting browser does, with
// lastID as the Last-Event-ID header ("" sends none).
func (b *browser) eventsAfter(path, lastID string) *eventStream {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.ts.URL+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { resp.Body.Close() })
	s := &eventStream{t: b.t, resp: resp, events: make(chan event, 64)}
	if resp.StatusCode != http.StatusOK {
		return s
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		b.t.Errorf("events Content-Type = %q", ct)
	}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					s.events <- ev
				}
				ev = event{}
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return s
}

// next is the next event; the stream ending is a failure.
func (s *eventStream) next() event {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			s.t.Fatal("the event stream ended early")
		}
		return ev
	case <-time.After(cmp.Or(s.gap, 10*time.Second)):
		s.t.Fatalf("no event within %s", cmp.Or(s.gap, 10*time.Second))
	}
	return event{}
}

// ended reports whether the server closed the stream after its events.
func (s *eventStream) ended() bool {
	select {
	case _, ok := <-s.events:
		return !ok
	case <-time.After(10 * time.Second):
		return false
	}
}

func decode[T any](t *testing.T, ev event, name string) T {
	t.Helper()
	if ev.name != name {
		t.Fatalf("event %q (%s); want %q", ev.name, ev.data, name)
	}
	var v T
	if err := json.Unmarshal([]byte(ev.data), &v); err != nil {
		t.Fatalf("%s event data %q: %v", name, ev.data, err)
	}
	return v
}

func TestGradeStreamsProgressThenReport(t *testing.T) {
	g := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
	ts := newGradingTestServer(t, g)
	b := ts.newBrowser(t)
	total := len(shippedPlan(gradedSlug).Scenarios)
	if total < 2 {
		t.Fatalf("the real suite of %s has %d scenarios", gradedSlug, total)
	}

	started := b.startGrade("package refund\r\n// GRADED-CODE\r\n")
	if started.Total != total || !strings.HasSuffix(started.EventsURL, "/events") {
		t.Fatalf("Grade answered %+v", started)
	}
	// The code is saved before grading starts, with \n line endings.
	b.get("/problems/"+gradedSlug).mustContain(t, "// GRADED-CODE\n</textarea>", "Saved")
	if jobs := g.graded(); len(jobs) != 1 || jobs[0].Source != "package refund\n// GRADED-CODE\n" ||
		jobs[0].Problem != gradedSlug || jobs[0].Seed != defaultSeed {
		t.Fatalf("graded jobs = %+v", jobs)
	}

	first := b.events(started.EventsURL)
	g.gate <- struct{}{}
	p1 := decode[progressData](t, first.next(), "progress")
	if p1.Finished != 1 || p1.Total != total || p1.Name != "happy-path" || p1.Status != "pass" || p1.Failed != 0 {
		t.Errorf("first progress = %+v", p1)
	}
	// The run page, without JavaScript, says how far it got and reloads.
	runPage := b.get(started.RunURL)
	runPage.mustContain(t, "Grading… 1 of "+strconv.Itoa(total)+" scenarios finished")
	if runPage.header.Get("Refresh") == "" {
		t.Error("the page of a running run does not refresh itself")
	}
	g.gate <- struct{}{}
	p2 := decode[progressData](t, first.next(), "progress")
	if p2.Finished != 2 || p2.Failed != 1 || p2.Title != "LOST-REPLY-TITLE" {
		t.Errorf("second progress = %+v", p2)
	}

	t.Run("a late subscriber gets the progress so far", func(t *testing.T) {
		late := b.events(started.EventsURL)
		for i := 1; i <= 2; i++ {
			if p := decode[progressData](t, late.next(), "progress"); p.Finished != i {
				t.Errorf("replayed progress %d = %+v", i, p)
			}
		}
	})

	g.gate <- struct{}{}
	report := decode[reportData](t, first.next(), "report")
	if report.RunID != started.RunID || report.Verdict != "fail" || report.Summary != "Graded: 1 of 2 scenarios passed." {
		t.Errorf("report event = %+v", report)
	}
	for _, want := range []string{`class="grade-report grade-fail"`, "LOST-REPLY-EXPLANATION", "BLIND-RESEND-DEFECT", "grade-violated"} {
		if !strings.Contains(report.HTML, want) {
			t.Errorf("report HTML lacks %q", want)
		}
	}
	if !first.ended() {
		t.Error("the stream stays open after the report")
	}

	t.Run("the stored run has the figures", func(t *testing.T) {
		run, err := ts.store.GradeRun(context.Background(), started.RunID)
		if err != nil {
			t.Fatal(err)
		}
		want := storage.GradeSummary{Verdict: "fail", ScenariosPassed: 1, ScenariosTotal: 2, InvariantsHeld: 2,
			InvariantsTotal: 3, DefectsFixed: 1, DefectsTotal: 2}
		if run.Status != storage.GradeDone || run.Summary != want || run.Source != "package refund\n// GRADED-CODE\n" {
			t.Errorf("stored run = %+v; want done with %+v", run, want)
		}
	})
	t.Run("a finished run streams only its report", func(t *testing.T) {
		again := b.events(started.EventsURL)
		decode[reportData](t, again.next(), "report")
		if !again.ended() {
			t.Error("the stream of a finished run stays open")
		}
	})
	t.Run("a reload shows the last report and the code", func(t *testing.T) {
		pg := b.get("/problems/" + gradedSlug)
		pg.mustContain(t, `id="grade-report"`, "LOST-REPLY-EXPLANATION", "Graded: 1 of 2 scenarios passed.",
			"// GRADED-CODE")
		pg.mustNotContain(t, "// STARTER-CODE\nfunc RefundMoney() {}\n</textarea>", `data-running-events="/`,
			`id="grade-diagnostics-data"`)
		b.get(started.RunURL).mustContain(t, "LOST-REPLY-EXPLANATION", "Grade run "+strconv.FormatInt(started.RunID, 10))
	})
}

// TestGradeStreamResumes follows a run the way a browser whose
// connection dropped does: each event has its number as the id, and a
// stream opened with Last-Event-ID sends only what came after it, then
// the report; a bad Last-Event-ID is refused saying what was wrong.
func TestGradeStreamResumes(t *testing.T) {
	g := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
	ts := newGradingTestServer(t, g)
	b := ts.newBrowser(t)
	started := b.startGrade("package refund\n// RESUMED\n")

	first := b.events(started.EventsURL)
	for k, want := range map[string]string{"Cache-Control": "private, no-store", "X-Accel-Buffering": "no"} {
		if got := first.resp.Header.Get(k); got != want {
			t.Errorf("the stream's %s = %q; want %q", k, got, want)
		}
	}
	g.gate <- struct{}{}
	g.gate <- struct{}{}
	for i, want := range []string{"1", "2"} {
		if ev := first.next(); ev.name != "progress" || ev.id != want {
			t.Fatalf("event %d is %s with id %q; want progress with id %s", i+1, ev.name, ev.id, want)
		}
	}
	first.resp.Body.Close() // the connection drops

	tests := []struct {
		name, lastID string
		wantStatus   int
		wantIDs      []string // the progress events resent
		wantBody     string
	}{
		{"after the first", "1", http.StatusOK, []string{"2"}, ""},
		{"after both", "2", http.StatusOK, nil, ""},
		{"from the start", "0", http.StatusOK, []string{"1", "2"}, ""},
		{"not a number", "two", http.StatusBadRequest, nil, "The Last-Event-ID header is &#34;two&#34;"},
		{"negative", "-2", http.StatusBadRequest, nil, "whole number from 0 up"},
	}
	var resumed []*eventStream
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := b.eventsAfter(started.EventsURL, tt.lastID)
			if s.resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d; want %d", s.resp.StatusCode, tt.wantStatus)
			}
			if tt.wantStatus != http.StatusOK {
				body, _ := io.ReadAll(s.resp.Body)
				if !strings.Contains(string(body), tt.wantBody) {
					t.Errorf("the refusal %q lacks %q", body, tt.wantBody)
				}
				return
			}
			for _, id := range tt.wantIDs {
				if ev := s.next(); ev.name != "progress" || ev.id != id {
					t.Fatalf("resent %s with id %q; want progress %s", ev.name, ev.id, id)
				}
			}
			resumed = append(resumed, s)
		})
	}
	g.gate <- struct{}{}
	for _, s := range resumed {
		if ev := s.next(); ev.name != "report" || ev.id != "3" {
			t.Errorf("after the progress came %s with id %q; want the report, id 3", ev.name, ev.id)
		}
		if !s.ended() {
			t.Error("a resumed stream stays open after the report")
		}
	}
	// Once the run has finished, a reconnect gets the stored end only.
	late := b.eventsAfter(started.EventsURL, "1")
	if ev := late.next(); ev.name != "report" || ev.id != "" {
		t.Errorf("a finished run's stream sent %s with id %q; want the report without an id", ev.name, ev.id)
	}
}

func TestGradeEndings(t *testing.T) {
	tests := []struct {
		name       string
		grader     *fakeGrader
		event      string
		check      func(t *testing.T, data string)
		pageShows  []string
		pageHides  []string
		wantStatus storage.GradeStatus
	}{
		{
			name:   "busy",
			grader: &fakeGrader{err: &sandbox.BusyError{RetryAfter: 2500 * time.Millisecond}},
			event:  "busy",
			check: func(t *testing.T, data string) {
				var d busyData
				json.Unmarshal([]byte(data), &d)
				if d.RetryAfterS != 3 || d.Message != "The grader is busy; try again in 3 s. Your code is saved." {
					t.Errorf("busy event = %+v", d)
				}
			},
			pageShows:  []string{"The grader is busy; try again in 3 s. Your code is saved."},
			wantStatus: storage.GradeBusy,
		},
		{
			name:   "system error",
			grader: &fakeGrader{err: errors.New("SECRET-CHILD-DETAIL: pipe broke")},
			event:  "system-error",
			check: func(t *testing.T, data string) {
				var d messageData
				json.Unmarshal([]byte(data), &d)
				if d.Message != messageGraderBroke {
					t.Errorf("system-error event = %+v", d)
				}
			},
			pageShows:  []string{html.EscapeString(messageGraderBroke)},
			pageHides:  []string{"SECRET-CHILD-DETAIL"},
			wantStatus: storage.GradeSystemError,
		},
		{
			name:   "compile error",
			grader: &fakeGrader{report: compileErrorReport()},
			event:  "report",
			check: func(t *testing.T, data string) {
				var d reportData
				json.Unmarshal([]byte(data), &d)
				if len(d.Diagnostics) != 1 || d.Diagnostics[0].Line != 3 || d.Diagnostics[0].Column != 5 ||
					d.Verdict != "error" || !strings.Contains(d.HTML, "line 3, column 5: ") {
					t.Errorf("report event = %+v", d)
				}
			},
			pageShows:  []string{"undefined: COMPILE-MARKER", `"line":3`, "The code could not be graded: 1 problem."},
			wantStatus: storage.GradeDone,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newGradingTestServer(t, tt.grader)
			b := ts.newBrowser(t)
			started := b.startGrade("package refund // MY-CODE")
			stream := b.events(started.EventsURL)
			ev := stream.next()
			if ev.name != tt.event {
				t.Fatalf("event %q (%s); want %q", ev.name, ev.data, tt.event)
			}
			tt.check(t, ev.data)
			if strings.Contains(ev.data, "SECRET") {
				t.Errorf("event leaks internals: %s", ev.data)
			}
			if !stream.ended() {
				t.Error("the stream stays open after the final event")
			}
			run, err := ts.store.GradeRun(context.Background(), started.RunID)
			if err != nil || run.Status != tt.wantStatus {
				t.Errorf("stored run: %s, %v; want %s", run.Status, err, tt.wantStatus)
			}
			// A failed grading never loses the code.
			pg := b.get("/problems/" + gradedSlug)
			pg.mustContain(t, append(tt.pageShows, "package refund // MY-CODE")...)
			pg.mustNotContain(t, tt.pageHides...)
			rp := b.get(started.RunURL)
			rp.mustNotContain(t, tt.pageHides...)
			if rp.header.Get("Refresh") != "" {
				t.Error("a finished run's page keeps refreshing")
			}
		})
	}
}

func TestRunsBelongToTheirUser(t *testing.T) {
	ts := newGradingTestServer(t, &fakeGrader{report: failingReport()})
	owner, other := ts.newBrowser(t), ts.newBrowser(t)
	started := owner.startGrade("package refund // OWNER-CODE")
	if p := owner.get(started.RunURL); p.status != http.StatusOK {
		t.Fatalf("owner's run page: status %d", p.status)
	}
	other.get("/problems/" + gradedSlug) // the other user has an identity, and even an attempt:
	other.postCode("/problems/"+gradedSlug+"/code", "package refund", true)
	id := strconv.FormatInt(started.RunID, 10)
	for _, path := range []string{started.RunURL, started.EventsURL, "/problems/refund-bug/runs/" + id,
		"/problems/" + gradedSlug + "/runs/abc", "/problems/" + gradedSlug + "/runs/999999"} {
		t.Run(path, func(t *testing.T) {
			p := other.get(path)
			if p.status != http.StatusNotFound {
				t.Errorf("status %d; want 404", p.status)
			}
			p.mustNotContain(t, "OWNER-CODE", "LOST-REPLY")
		})
	}
	if p := owner.get("/problems/refund-bug/runs/" + id); p.status != http.StatusNotFound {
		t.Errorf("the owner's run under another problem: status %d; want 404", p.status)
	}
}

func TestCodeTooLarge(t *testing.T) {
	ts := newGradingTestServer(t, &fakeGrader{report: failingReport()})
	b := ts.newBrowser(t)
	if p := b.postCode("/problems/"+gradedSlug+"/code", "package refund // KEPT-DRAFT", true); p.status != http.StatusOK {
		t.Fatalf("autosave: status %d %s", p.status, p.body)
	}
	tests := []struct {
		name string
		code string
	}{
		{"just over the grader's limit", strings.Repeat("a", gradewire.MaxSourceBytes+1)},
		{"over the body limit", strings.Repeat("{", gradewire.MaxSourceBytes+2<<10)}, // %7B: three bytes each
	}
	for _, tt := range tests {
		for _, route := range []string{"code", "grade"} {
			t.Run(tt.name+"/"+route, func(t *testing.T) {
				p := b.postCode("/problems/"+gradedSlug+"/"+route, tt.code, true)
				if p.status != http.StatusRequestEntityTooLarge {
					t.Fatalf("status %d; want 413", p.status)
				}
				var e jsonError
				if err := json.Unmarshal([]byte(p.body), &e); err != nil || !strings.Contains(e.Error, "256 KiB") {
					t.Errorf("413 body %q: want a JSON error naming the limit", p.body)
				}
				plain := b.postCode("/problems/"+gradedSlug+"/"+route, tt.code, false)
				if plain.status != http.StatusRequestEntityTooLarge || !strings.Contains(plain.body, "last saved draft is kept") {
					t.Errorf("plain form: status %d", plain.status)
				}
			})
		}
	}
	b.get("/problems/"+gradedSlug).mustContain(t, "package refund // KEPT-DRAFT")
	ts.app.grading.mu.Lock()
	n := len(ts.app.grading.live)
	ts.app.grading.mu.Unlock()
	if n != 0 {
		t.Errorf("%d runs started for code that was too large", n)
	}
}

func TestOneRunAtATime(t *testing.T) {
	g := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
	ts := newGradingTestServer(t, g)
	b := ts.newBrowser(t)
	first := b.startGrade("package refund // FIRST")
	// The run reaches the grader on a goroutine of its own, which a loaded
	// machine may not have run yet. Its first step taken means its job is
	// recorded, so the count of gradings below is final.
	g.gate <- struct{}{}

	second := b.postCode("/problems/"+gradedSlug+"/grade", "package refund // SECOND", true)
	if second.status != http.StatusConflict {
		t.Fatalf("second Grade: status %d; want 409", second.status)
	}
	var got gradeStarted
	json.Unmarshal([]byte(second.body), &got)
	if got.RunID != first.RunID || got.EventsURL != first.EventsURL || got.Error == "" {
		t.Errorf("second Grade answered %+v; want the first run", got)
	}
	plain := b.postCode("/problems/"+gradedSlug+"/grade", "package refund // THIRD", false)
	if plain.status != http.StatusSeeOther || plain.header.Get("Location") != first.RunURL+"?already=1" {
		t.Errorf("plain second Grade: %d to %q", plain.status, plain.header.Get("Location"))
	}
	b.get(first.RunURL+"?already=1").mustContain(t, "This run was still going when you pressed Grade again.")
	// The newer code is the draft even though it was not graded.
	b.get("/problems/"+gradedSlug).mustContain(t, "package refund // THIRD", `data-running-events="`+first.EventsURL+`"`)
	if n := len(g.graded()); n != 1 {
		t.Errorf("%d gradings; want 1", n)
	}
	// Another user is not held up.
	other := ts.newBrowser(t)
	other.startGrade("package refund // OTHER")

	// Followed while it runs: a live stream's final event goes out once
	// the run has left the registry, so the user's place is free by then.
	// (A stream opened after the end reads it from the store, which is
	// written first, and may get there before the place is given back.)
	stream := b.events(first.EventsURL)
	for range 5 { // 2 scenarios and the report, for each of the two runs, less the first run's first step
		g.gate <- struct{}{}
	}
	ev := stream.next()
	for ev.name == "progress" {
		ev = stream.next()
	}
	if ev.name != "report" {
		t.Fatalf("first run ended with %q", ev.name)
	}
	// Once it has finished, the user may grade again.
	b.startGrade("package refund // FOURTH")
	for range 3 {
		g.gate <- struct{}{}
	}
	// Every Grade that started a run reached the grader (each took its
	// steps): the first, the other user's and the one after the end.
	var sources []string
	for _, job := range g.graded() {
		sources = append(sources, strings.TrimPrefix(job.Source, "package refund // "))
	}
	slices.Sort(sources)
	if want := []string{"FIRST", "FOURTH", "OTHER"}; !slices.Equal(sources, want) {
		t.Errorf("graded %v; want %v", sources, want)
	}
}

func TestGradeWithoutJavaScript(t *testing.T) {
	ts := newGradingTestServer(t, &fakeGrader{report: failingReport()})
	b := ts.newBrowser(t)
	pg := b.get("/problems/" + gradedSlug)
	pg.mustContain(t, `<form method="post" action="/problems/`+gradedSlug+`/grade"`, `name="code"`,
		`id="code-editor-textarea"`, `<label for="code-editor-textarea"`, `id="editor-help"`, `id="grade-button"`,
		"STARTER-CODE", `id="code-save-status"`, `id="grade-progress"`, `aria-live="polite"`, `id="grade-busy"`)

	// A browser without JavaScript follows the redirect to the run page,
	// which reloads itself until the report is there.
	resp := b.post("/problems/"+gradedSlug+"/grade", url.Values{"code": {"package refund // NO-JS"}})
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(resp.body, "LOST-REPLY-EXPLANATION") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		resp = b.get("/problems/" + gradedSlug + "/runs/1")
	}
	resp.mustContain(t, "LOST-REPLY-EXPLANATION", "back to your code")
	// The run's page shows the code it graded beside the report.
	resp.mustContain(t, "The code graded", `<span class="run-line"><span class="run-line-no" aria-hidden="true">1</span>package refund // NO-JS</span>`)
	b.get("/problems/"+gradedSlug).mustContain(t, "package refund // NO-JS")
}

func TestGradingOff(t *testing.T) {
	ts := newGradingTestServer(t, nil)
	b := ts.newBrowser(t)
	pg := b.get("/problems/" + gradedSlug)
	pg.mustContain(t, "Grading is off on this server", `action="/problems/`+gradedSlug+`/code"`)
	pg.mustNotContain(t, `id="grade-button"`)
	p := b.postCode("/problems/"+gradedSlug+"/grade", "package refund // SAVED-ANYWAY", true)
	if p.status != http.StatusServiceUnavailable || !strings.Contains(p.body, "Grading is off") {
		t.Errorf("Grade with grading off: %d %s", p.status, p.body)
	}
	b.get("/problems/"+gradedSlug).mustContain(t, "package refund // SAVED-ANYWAY")
	// The plain form saves and comes back to the page.
	b.post("/problems/"+gradedSlug+"/code", url.Values{"code": {"package refund // PLAIN-SAVE"}}).
		mustContain(t, "package refund // PLAIN-SAVE")
	// A problem without code has no workspace and takes no code.
	b.get("/problems/design-client").mustNotContain(t, "code-editor-textarea")
	if p := b.postCode("/problems/design-client/code", "x", true); p.status != http.StatusNotFound {
		t.Errorf("code for a problem without code: status %d", p.status)
	}
}

func TestAbandonedAndStoppedRuns(t *testing.T) {
	t.Run("a run left running by an earlier server", func(t *testing.T) {
		ctx := context.Background()
		store, err := storage.Open(ctx, filepath.Join(t.TempDir(), "web.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		// The earlier server: a browser's user id and a run it never finished.
		userID := newUserID()
		a, err := store.StartAttempt(ctx, userID, storage.KindProblem, gradedSlug)
		if err != nil {
			t.Fatal(err)
		}
		run, err := store.StartGradeRun(ctx, a.ID, gradedSlug, 1, "package refund")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		app, err := New(Config{Catalog: gradingCatalog(), Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Grader: &fakeGrader{report: failingReport()}})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, "/problems/"+gradedSlug, nil)
		req.AddCookie(&http.Cookie{Name: userCookie, Value: userID})
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		if !strings.Contains(rec.Body.String(), messageAbandoned) {
			t.Errorf("the page does not say the run was cut off")
		}
		if got, _ := store.GradeRun(ctx, run.ID); got.Status != storage.GradeSystemError {
			t.Errorf("abandoned run is %s; want system-error", got.Status)
		}
	})
	t.Run("shutting down stops running gradings", func(t *testing.T) {
		g := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
		ts := newGradingTestServer(t, g)
		b := ts.newBrowser(t)
		started := b.startGrade("package refund // STOPPED")
		stream := b.events(started.EventsURL)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ts.app.StopGrading(ctx); err != nil {
			t.Fatal(err)
		}
		// The open stream ends, so the server's Shutdown is not held up.
		for closed := false; !closed; {
			select {
			case _, ok := <-stream.events:
				closed = !ok
			case <-ctx.Done():
				t.Fatal("a progress stream stayed open after StopGrading")
			}
		}
		run, _ := ts.store.GradeRun(context.Background(), started.RunID)
		if run.Status != storage.GradeSystemError || run.Message != messageStopped {
			t.Errorf("stopped run = %s %q", run.Status, run.Message)
		}
		p := b.postCode("/problems/"+gradedSlug+"/grade", "package refund // AFTER", true)
		if p.status != http.StatusServiceUnavailable {
			t.Errorf("Grade after stopping: status %d; want 503", p.status)
		}
		b.get("/problems/"+gradedSlug).mustContain(t, "package refund // AFTER")
	})
}

func TestAutosave(t *testing.T) {
	ts := newGradingTestServer(t, nil)
	b := ts.newBrowser(t)
	tests := []struct {
		name, code, shown string
	}{
		{"plain", "package refund // ONE", "package refund // ONE"},
		{"CRLF becomes LF", "package refund\r\n// TWO\r\n", "package refund\n// TWO\n</textarea>"},
		{"a leading blank line survives the textarea", "\n\npackage refund // THREE", "<textarea" /* checked below */},
		{"markup is text", "// </textarea><script>alert(1)</script>", "// &lt;/textarea&gt;&lt;script&gt;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := b.postCode("/problems/"+gradedSlug+"/code", tt.code, true)
			var saved savedData
			if err := json.Unmarshal([]byte(p.body), &saved); p.status != http.StatusOK || err != nil || saved.SavedAt.IsZero() {
				t.Fatalf("autosave: %d %s", p.status, p.body)
			}
			pg := b.get("/problems/" + gradedSlug)
			pg.mustContain(t, tt.shown)
			if tt.name == "a leading blank line survives the textarea" {
				pg.mustContain(t, ">\n\n\npackage refund // THREE</textarea>")
			}
		})
	}
}

// TestEventStreamOutlivesWriteTimeout runs the app behind a server whose
// WriteTimeout is far shorter than the run, as serve's 60 s is shorter
// than a queued grading can be: each event extends the deadline.
func TestEventStreamOutlivesWriteTimeout(t *testing.T) {
	g := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
	store, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "web.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	app, err := New(Config{Catalog: gradingCatalog(), Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Grader: g})
	if err != nil {
		t.Fatal(err)
	}
	const writeTimeout = 300 * time.Millisecond
	srv := httptest.NewUnstartedServer(app)
	srv.Config.WriteTimeout = writeTimeout
	srv.Start()
	t.Cleanup(srv.Close)
	ts := &testServer{Server: srv, app: app, store: store}
	b := ts.newBrowser(t)
	started := b.startGrade("package refund")
	stream := b.events(started.EventsURL)
	for i := 1; i <= 2; i++ {
		time.Sleep(2 * writeTimeout)
		g.gate <- struct{}{}
		if p := decode[progressData](t, stream.next(), "progress"); p.Finished != i {
			t.Fatalf("progress %d = %+v", i, p)
		}
	}
	time.Sleep(2 * writeTimeout)
	g.gate <- struct{}{}
	decode[reportData](t, stream.next(), "report")
}

// TestGradeSeed checks that the seed field reaches the grader, is offered
// again after a reload (so a replay stays chosen), and that a seed that is
// not a whole number is refused with the reason and the code kept.
func TestGradeSeed(t *testing.T) {
	fake := &fakeGrader{report: failingReport()}
	ts := newGradingTestServer(t, fake)
	b := ts.newBrowser(t)
	b.get("/problems/"+gradedSlug).mustContain(t, `id="grade-seed"`, `name="seed"`, `value="1"`, "Grading options")

	tests := []struct {
		name       string
		seed       string
		wantStatus int
		wantSeed   int64
		want       string
	}{
		{"a chosen seed reaches the grader", "42", http.StatusSeeOther, 42, ""},
		{"no seed is seed 1", "", http.StatusSeeOther, 1, ""},
		{"not a number", "4x", http.StatusBadRequest, 0, `The seed must be a whole number, not \"4x\". Your code is saved.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fake.jobsSoFar())
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/problems/"+gradedSlug+"/grade",
				strings.NewReader(url.Values{"code": {"package refund // SEED-" + tt.name}, "seed": {tt.seed}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			client := *b.client
			client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d; want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.want != "" && !strings.Contains(string(body), tt.want) && !strings.Contains(string(body), strings.ReplaceAll(tt.want, `\"`, "&#34;")) {
				t.Errorf("body lacks %q: %s", tt.want, body)
			}
			if tt.wantSeed == 0 {
				b.get("/problems/"+gradedSlug).mustContain(t, "SEED-"+tt.name)
				return
			}
			waitUntilTrue(t, func() bool { return len(fake.jobsSoFar()) > before })
			if got := fake.jobsSoFar()[before].Seed; got != tt.wantSeed {
				t.Errorf("the grader got seed %d; want %d", got, tt.wantSeed)
			}
			// The run ends and gives up the user's place before the next
			// Grade (one run at a time).
			waitUntilTrue(t, func() bool {
				g := ts.app.grading
				g.mu.Lock()
				defer g.mu.Unlock()
				return len(g.live) == 0 && g.places.Users() == 0
			})
			b.get("/problems/"+gradedSlug).mustContain(t, `value="`+strconv.FormatInt(tt.wantSeed, 10)+`"`)
		})
	}
}

func (f *fakeGrader) jobsSoFar() []grading.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.jobs)
}

func waitUntilTrue(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
