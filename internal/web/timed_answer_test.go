package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// testClock is the server's clock in these tests, moved by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *testClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func newTimedServer(t *testing.T) (*testServer, *testClock) {
	ts := newTestServer(t, testCatalog())
	clock := &testClock{now: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
	ts.app.clock = clock.Now
	return ts, clock
}

// postJSON sends a form as the box's script does and decodes the JSON reply.
func (b *browser) postJSON(path string, form url.Values) (int, map[string]any) {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.ts.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	p := b.do(req)
	var out map[string]any
	if err := json.Unmarshal([]byte(p.body), &out); err != nil {
		b.t.Fatalf("POST %s: status %d, body is not JSON: %v\n%.300s", path, p.status, err, p.body)
	}
	return p.status, out
}

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

const (
	problemBase  = "/problems/refund-bug"
	questionBase = "/sets/rapid/questions/what-is-rag"
)

// start starts the box at base and returns the session id as the form sends it.
func (b *browser) start(base, mode string) (string, map[string]any) {
	b.t.Helper()
	status, got := b.postJSON(base+"/timer/start", url.Values{"mode": {mode}})
	if status != http.StatusOK {
		b.t.Fatalf("start %s: status %d %v", base, status, got)
	}
	return fmt.Sprint(num(got["session"])), got
}

func (b *browser) draft(base, session string, seq int, text string) (int, map[string]any) {
	b.t.Helper()
	return b.postJSON(base+"/timer/draft", url.Values{"session": {session}, "seq": {fmt.Sprint(seq)}, "text": {text}})
}

func (b *browser) submitTimed(base, session, text string) (int, map[string]any) {
	b.t.Helper()
	return b.postJSON(base+"/answer", url.Values{"session": {session}, "answer": {text}})
}

var boxStateRE = regexp.MustCompile(`data-timed-box data-state="([a-z]+)"`)

func boxStates(body string) []string {
	var out []string
	for _, m := range boxStateRE.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestTimedBoxOnPages(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)

	p := b.get(problemBase)
	p.mustContain(t, `data-limit-ms="120000"`, `data-timer-clock role="timer"`, `>2:00</span>`,
		`name="mode" value="timed" id="answer-text-mode-timed" checked`, `name="mode" value="untimed" id="answer-text-mode-untimed"`,
		`id="answer-text"`, `data-timer-notice role="status"`, `timed-answer.js?v=`, `timed-answer.css?v=`)
	if got := boxStates(p.body); len(got) != 1 || got[0] != "idle" {
		t.Errorf("problem box states = %v; want [idle]", got)
	}
	// The clock does not start on load: the page sat open for ten minutes
	// and the box still has its whole limit, and no attempt was created.
	clock.Advance(10 * time.Minute)
	p = b.get(problemBase)
	p.mustContain(t, `data-state="idle"`, `data-remaining-ms="120000"`, `>2:00</span>`)
	if _, err := ts.store.Attempt(context.Background(), cookieUser(t, b), storage.KindProblem, "refund-bug"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("loading the page made an attempt (err %v); want none", err)
	}

	set := b.get("/sets/rapid")
	if got := boxStates(set.body); len(got) != 2 {
		t.Errorf("set page has boxes %v; want one per question", got)
	}
	set.mustContain(t, `id="answer-what-is-rag"`, `id="answer-a-project-you-led"`, `timed-answer.js?v=`)

	plain := b.get("/problems/design-client")
	plain.mustNotContain(t, "data-timed-box", "timed-answer.js")
	plain.mustContain(t, `<textarea id="answer-text" name="answer"`)
}

// cookieUser is the anonymous user id the browser's cookie holds.
func cookieUser(t *testing.T, b *browser) string {
	t.Helper()
	u, _ := url.Parse(b.ts.URL)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == userCookie {
			return c.Value
		}
	}
	t.Fatal("no user cookie")
	return ""
}

func TestTimedStartIsIdempotentAndReloadKeepsTime(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	session, got := b.start(problemBase, "timed")
	if num(got["remaining_ms"]) != 120000 || num(got["limit_ms"]) != 120000 || got["mode"] != "timed" || got["state"] != "running" || got["created"] != true {
		t.Fatalf("start = %v", got)
	}
	clock.Advance(45 * time.Second)
	again, got := b.start(problemBase, "untimed")
	if again != session || num(got["remaining_ms"]) != 75000 || got["mode"] != "timed" || got["created"] != false {
		t.Fatalf("second start = %v; want session %s with 1:15 left, still timed", got, session)
	}
	if status, got := b.draft(problemBase, session, 1, "Reuse the key"); status != 200 || got["late"] != false || num(got["remaining_ms"]) != 75000 {
		t.Fatalf("draft = %d %v", status, got)
	}
	clock.Advance(500 * time.Millisecond)
	p := b.get(problemBase) // the reload
	p.mustContain(t, `data-state="running"`, `data-remaining-ms="74500"`, `>1:15</span>`, ">Reuse the key</textarea>",
		`name="session" value="`+session+`"`, `data-seq="1"`)
	p.mustContain(t, `<fieldset class="timer-mode" data-timer-modes hidden disabled>`)

	t.Run("a stale draft never overwrites a newer one", func(t *testing.T) {
		if status, got := b.draft(problemBase, session, 5, "Reuse the key, and reconcile"); status != 200 || got["stale"] != false {
			t.Fatalf("newer draft = %d %v", status, got)
		}
		if status, got := b.draft(problemBase, session, 3, "Reuse"); status != 200 || got["stale"] != true {
			t.Fatalf("stale draft = %d %v; want accepted as stale", status, got)
		}
		b.get(problemBase).mustContain(t, ">Reuse the key, and reconcile</textarea>")
	})
}

func TestTimedSubmitEarly(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	session, _ := b.start(questionBase, "timed")
	clock.Advance(47 * time.Second)
	status, got := b.submitTimed(questionBase, session, "Retrieve documents, then generate from them.")
	if status != 200 || got["how_ended"] != "submitted" || num(got["time_used_ms"]) != 47000 || num(got["word_count"]) != 6 ||
		got["late"] != false || got["mode"] != "timed" || got["state"] != "submitted" {
		t.Fatalf("submit = %d %v", status, got)
	}
	p := b.get("/sets/rapid")
	p.mustContain(t, "Retrieve documents, then generate from them.", "Timed: 0:47 of 2:00 used · 6 words",
		"Q1-MODEL-MARKER", "Q1-KEY-MARKER", "Shown because you submitted an answer.",
		`data-self-assessment`, `name="covered" value="0" id="answer-what-is-rag-kp-0"`)
	if got := boxStates(p.body); len(got) != 2 || got[0] != "submitted" || got[1] != "idle" {
		t.Errorf("box states = %v; want [submitted idle]", got)
	}
	if status, got := b.submitTimed(questionBase, session, "again"); status != http.StatusOK || got["answer"] == nil {
		t.Errorf("a retried submit = %d %v; want the stored answer again", status, got)
	}
	if status, got := b.draft(questionBase, session, 99, "more"); status != http.StatusConflict || !strings.Contains(fmt.Sprint(got["error"]), "already submitted") {
		t.Errorf("draft after submit = %d %v; want 409 already submitted", status, got)
	}
}

func TestTimedLimitAndGrace(t *testing.T) {
	tests := []struct {
		name      string
		elapsed   time.Duration
		wantEnded string
		wantUsed  int64
		wantLate  bool
		wantBody  string
	}{
		{"exactly at the limit", 2 * time.Minute, "expired", 120000, false, "final text"},
		{"within the grace", 2*time.Minute + 3*time.Second, "expired", 120000, false, "final text"},
		{"after the grace", 2*time.Minute + timer.Grace + time.Second, "expired", 120000, true, "saved in time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, clock := newTimedServer(t)
			b := ts.newBrowser(t)
			session, _ := b.start(problemBase, "timed")
			clock.Advance(time.Minute)
			b.draft(problemBase, session, 1, "saved in time")
			clock.Advance(tt.elapsed - time.Minute)
			status, got := b.submitTimed(problemBase, session, "final text")
			if status != 200 || got["how_ended"] != tt.wantEnded || num(got["time_used_ms"]) != tt.wantUsed || got["late"] != tt.wantLate {
				t.Fatalf("submit = %d %v", status, got)
			}
			a, err := ts.store.TimedAnswer(context.Background(), num(got["answer"]))
			if err != nil {
				t.Fatal(err)
			}
			if a.Body != tt.wantBody {
				t.Errorf("stored body %q; want %q", a.Body, tt.wantBody)
			}
			if tt.wantLate && a.Timing.LateBody != "final text" {
				t.Errorf("late text %q; want the late submit kept", a.Timing.LateBody)
			}
		})
	}
}

func TestTimedLateDraftIsKept(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	session, _ := b.start(problemBase, "timed")
	b.draft(problemBase, session, 1, "on time")
	clock.Advance(2*time.Minute + timer.Grace + time.Second)
	status, got := b.draft(problemBase, session, 2, "on time, plus a late thought")
	if status != 200 || got["late"] != true || got["state"] != "locked" || got["stale"] != false {
		t.Fatalf("late draft = %d %v; want kept, late, locked", status, got)
	}
	st, err := ts.store.TimedSession(context.Background(), num(mustInt(t, session)))
	if err != nil || st.Draft != "on time" || st.LateText != "on time, plus a late thought" {
		t.Fatalf("session after a late draft = %+v, %v", st, err)
	}
}

func mustInt(t *testing.T, s string) float64 {
	t.Helper()
	var n float64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The user typed, then closed the tab. When they come back after the limit
// the page shows the box locked with the last on-time draft, and reading it
// stores nothing (a GET never writes); the next write to the attempt stores
// that draft as the answer, expired. Text the old tab sends afterwards is
// kept too, marked late.
func TestTimedExpiryWhileAwayStoresTheAnswer(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	session, _ := b.start(problemBase, "timed")
	clock.Advance(30 * time.Second)
	b.draft(problemBase, session, 1, "Keep one key per operation")
	clock.Advance(10 * time.Minute)
	for range 2 {
		p := b.get(problemBase)
		if got := boxStates(p.body); len(got) != 1 || got[0] != "locked" {
			t.Fatalf("box state after expiry while away = %v; want locked until a write stores it", got)
		}
		p.mustContain(t, ">Keep one key per operation</textarea>", `name="session" value="`+session+`"`)
	}
	st, err := ts.store.TimedSession(context.Background(), num(mustInt(t, session)))
	if err != nil || !st.Open() {
		t.Fatalf("after two reads the session is %+v, %v; want still open: a GET must not write", st, err)
	}
	// Any write to the attempt stores it: here, revealing a hint.
	b.post(problemBase+"/hints", url.Values{"part": {"1"}, "hint": {"1"}})
	p := b.get(problemBase)
	if got := boxStates(p.body); len(got) != 1 || got[0] != "submitted" {
		t.Fatalf("box state after the next write = %v; want submitted", got)
	}
	p.mustContain(t, "Keep one key per operation", "Timed: time ran out at 2:00 · 5 words",
		"MODEL-ANSWER-MARKER", "STRONG-MARKER", "Shown because you submitted an answer.", "data-self-assessment")
	p.mustNotContain(t, `name="session" value="`+session+`"`)

	// The old tab comes back online and submits what it had.
	status, got := b.submitTimed(problemBase, session, "Keep one key per operation, stored first")
	if status != 200 || got["late"] != true || got["how_ended"] != "expired" {
		t.Fatalf("submit to the expired session = %d %v; want kept, late", status, got)
	}
	b.get(problemBase).mustContain(t, "Text that arrived late", "Keep one key per operation, stored first")
}

func TestTimedUntimedModeNeverExpires(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	session, got := b.start(questionBase, "untimed")
	if got["mode"] != "untimed" || got["state"] != "running" {
		t.Fatalf("untimed start = %v", got)
	}
	clock.Advance(time.Hour)
	if status, got := b.draft(questionBase, session, 1, "thinking slowly"); status != 200 || got["late"] != false || got["state"] != "running" {
		t.Fatalf("draft an hour later = %d %v; want on time", status, got)
	}
	b.get("/sets/rapid").mustContain(t, `data-mode="untimed"`, ">no limit</span>", ">thinking slowly</textarea>")
	status, got := b.submitTimed(questionBase, session, "thinking slowly, done")
	if status != 200 || got["late"] != false || got["how_ended"] != "submitted" || num(got["time_used_ms"]) != time.Hour.Milliseconds() {
		t.Fatalf("untimed submit = %d %v", status, got)
	}
	b.get("/sets/rapid").mustContain(t, "No limit: 60:00 used · 3 words")
}

func TestTimedBadInput(t *testing.T) {
	ts, _ := newTimedServer(t)
	alice, bob := ts.newBrowser(t), ts.newBrowser(t)
	aliceSession, _ := alice.start(problemBase, "timed")
	alice.draft(problemBase, aliceSession, 1, "alice's text")
	bobSession, _ := bob.start(questionBase, "timed")

	tests := []struct {
		name       string
		b          *browser
		path       string
		form       url.Values
		wantStatus int
		wantError  string
	}{
		{"bad mode", alice, questionBase + "/timer/start", url.Values{"mode": {"sprint"}}, 400, `"timed" or "untimed"`},
		{"problem without a box", alice, "/problems/design-client/timer/start", url.Values{"mode": {"timed"}}, 404, "has no timed answer box"},
		{"unknown question", alice, "/sets/rapid/questions/nope/timer/start", nil, 404, "has no question nope"},
		{"unknown session", alice, problemBase + "/timer/draft", url.Values{"session": {"9999"}, "seq": {"2"}, "text": {"x"}}, 404, "no timer session 9999"},
		{"session not a number", alice, problemBase + "/timer/draft", url.Values{"session": {"abc"}, "seq": {"2"}, "text": {"x"}}, 400, "not a session number"},
		{"another user's session", bob, problemBase + "/timer/draft", url.Values{"session": {aliceSession}, "seq": {"2"}, "text": {"x"}}, 404, "no timer session"},
		{"another box's session", alice, questionBase + "/timer/draft", url.Values{"session": {aliceSession}, "seq": {"2"}, "text": {"x"}}, 404, "no timer session"},
		{"bad seq", alice, problemBase + "/timer/draft", url.Values{"session": {aliceSession}, "seq": {"soon"}, "text": {"x"}}, 400, "sequence number"},
		{"text over the limit", alice, problemBase + "/timer/draft", url.Values{"session": {aliceSession}, "seq": {"2"}, "text": {strings.Repeat("x", maxAnswerBytes+1)}}, 413, "longer than 64 KiB"},
		{"submit with another user's session", alice, questionBase + "/answer", url.Values{"session": {bobSession}, "answer": {"x"}}, 404, "no timer session"},
		{"empty submit before the limit", alice, problemBase + "/answer", url.Values{"session": {aliceSession}, "answer": {"  "}}, 422, "Write an answer"},
		{"assessment of an unknown answer", alice, problemBase + "/assessment", url.Values{"answer": {"9999"}, "covered": {"0"}}, 404, "no answer 9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := tt.b.postJSON(tt.path, tt.form)
			if status != tt.wantStatus || !strings.Contains(fmt.Sprint(got["error"]), tt.wantError) {
				t.Fatalf("status %d, %v; want %d with an error containing %q", status, got, tt.wantStatus, tt.wantError)
			}
		})
	}
	// Nothing above changed alice's draft.
	alice.get(problemBase).mustContain(t, ">alice&#39;s text</textarea>")
}

func TestSelfAssessment(t *testing.T) {
	ts, _ := newTimedServer(t)
	alice, bob := ts.newBrowser(t), ts.newBrowser(t)
	session, _ := alice.start(problemBase, "timed")
	_, got := alice.submitTimed(problemBase, session, "my answer")
	answer := fmt.Sprint(num(got["answer"]))

	status, got := alice.postJSON(problemBase+"/assessment", url.Values{"answer": {answer}, "covered": {"0"}})
	if status != 200 || got["text"] != "Saved: 1 of 1 key points covered" {
		t.Fatalf("assessment = %d %v", status, got)
	}
	alice.get(problemBase).mustContain(t, "Saved: 1 of 1 key points covered",
		`name="covered" value="0" id="answer-text-kp-0" checked`)

	// Without the script: a plain form, back to the page.
	p := alice.post(problemBase+"/assessment", url.Values{"answer": {answer}})
	if p.status != 200 {
		t.Fatalf("plain assessment: status %d", p.status)
	}
	p.mustContain(t, "Saved: 0 of 1 key points covered")

	bad := []struct {
		name       string
		b          *browser
		form       url.Values
		wantStatus int
	}{
		{"no such key point", alice, url.Values{"answer": {answer}, "covered": {"1"}}, 400},
		{"not a number", alice, url.Values{"answer": {answer}, "covered": {"first"}}, 400},
		{"another user's answer", bob, url.Values{"answer": {answer}, "covered": {"0"}}, 404},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if status, got := tt.b.postJSON(problemBase+"/assessment", tt.form); status != tt.wantStatus || got["error"] == nil {
				t.Fatalf("status %d %v; want %d with an error", status, got, tt.wantStatus)
			}
		})
	}
	// An answer to the problem is not an answer to a question.
	if status, _ := alice.postJSON(questionBase+"/assessment", url.Values{"answer": {answer}}); status != 404 {
		t.Errorf("assessing a problem's answer under a question: status %d; want 404", status)
	}
}

// Without the script the box is a plain form: no session, stored untimed,
// back to the page, and the answer still has its word count.
func TestTimedBoxWithoutScript(t *testing.T) {
	ts, _ := newTimedServer(t)
	b := ts.newBrowser(t)
	p := b.post(questionBase+"/answer", url.Values{"answer": {"Retrieval, then generation."}, "mode": {"timed"}, "session": {""}})
	if p.status != 200 {
		t.Fatalf("plain submit: status %d", p.status)
	}
	p.mustContain(t, "Retrieval, then generation.", "Not timed (sent without the timer) · 3 words", "Q1-MODEL-MARKER")
	p = b.post(problemBase+"/answer", url.Values{"answer": {""}})
	if p.status != http.StatusUnprocessableEntity {
		t.Fatalf("empty plain submit: status %d; want 422", p.status)
	}
	p.mustContain(t, "Write an answer before submitting", `aria-invalid="true"`, "data-timed-box")
	a, err := ts.store.Attempt(context.Background(), cookieUser(t, b), storage.KindSet, "rapid")
	if err != nil {
		t.Fatal(err)
	}
	latest, err := ts.store.LatestTimedAnswers(context.Background(), a.ID)
	if err != nil || latest[storage.ScopeQuestion("what-is-rag")].Timing != (storage.AnswerTiming{WordCount: 3}) {
		t.Fatalf("plain answer timing = %+v, %v", latest, err)
	}
}

// The web layer passes modes and endings between timer and storage as
// strings; they must be the same words.
func TestTimerAndStorageNamesAgree(t *testing.T) {
	pairs := [][2]string{
		{string(timer.Timed), storage.ModeTimed},
		{string(timer.Untimed), storage.ModeUntimed},
		{string(timer.Submitted), storage.EndedSubmitted},
		{string(timer.Expired), storage.EndedExpired},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("timer says %q where storage says %q", p[0], p[1])
		}
	}
}

// TestTimedDraftSeq: a sequence number past what the box's script can
// count is refused, saying so, and leaves later saves working; a stale save
// is told the newest save's number and text, and a save numbered after it
// goes through.
func TestTimedDraftSeq(t *testing.T) {
	ts, _ := newTimedServer(t)
	b := ts.newBrowser(t)
	session, _ := b.start(problemBase, "timed")
	const now = 1_800_000_000_000 // Date.now() in 2027
	steps := []struct {
		name       string
		seq        string
		text       string
		wantStatus int
		wantError  string
		wantStale  bool
		wantSeq    int64
		wantText   string
	}{
		{"2^63-1 is refused", "9223372036854775807", "absurd", 400, "from 1 to 9007199254740991", false, 0, ""},
		{"one past the bound is refused", "9007199254740992", "absurd", 400, "from 1 to 9007199254740991", false, 0, ""},
		{"beyond int64 is refused", "99999999999999999999", "absurd", 400, "is not a whole number", false, 0, ""},
		{"a save by the clock still goes through", fmt.Sprint(now), "mine", 200, "", false, 0, ""},
		{"another device, its clock ahead", fmt.Sprint(now + 600_000), "theirs", 200, "", false, 0, ""},
		{"this tab's next save is stale and told why", fmt.Sprint(now + 3000), "mine, longer", 200, "", true, now + 600_000, "theirs"},
		{"numbered after the newest, it goes through", fmt.Sprint(now + 600_001), "mine, longer", 200, "", false, 0, ""},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			status, got := b.postJSON(problemBase+"/timer/draft", url.Values{"session": {session}, "seq": {st.seq}, "text": {st.text}})
			if status != st.wantStatus {
				t.Fatalf("status %d %v; want %d", status, got, st.wantStatus)
			}
			if st.wantError != "" {
				if msg, _ := got["error"].(string); !strings.Contains(msg, st.wantError) {
					t.Fatalf("error %q; want it to say %q", msg, st.wantError)
				}
				return
			}
			if got["stale"] != st.wantStale || num(got["seq"]) != st.wantSeq || fmt.Sprint(got["text"]) != fmt.Sprint(orNil(st.wantText)) {
				t.Fatalf("reply %v; want stale %v, seq %d, text %q", got, st.wantStale, st.wantSeq, st.wantText)
			}
		})
	}
	stored, err := ts.store.TimedSession(context.Background(), num(mustInt(t, session)))
	if err != nil || stored.Draft != "mine, longer" {
		t.Fatalf("stored draft %q, %v; want the last save's text", stored.Draft, err)
	}
}

// orNil is what a JSON field left out decodes to in a map: nil for "".
func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TestAnswerBesideModelAnswer: once an answer is in, the box sets it beside
// the model answer and the key points, in that order, and only then offers
// to answer again; before it, none of them is in the box.
func TestAnswerBesideModelAnswer(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	b.get("/sets/rapid").mustNotContain(t, "data-answer-compare", `id="answer-what-is-rag-model-h"`)
	session, _ := b.start(questionBase, "timed")
	clock.Advance(20 * time.Second)
	if status, got := b.submitTimed(questionBase, session, "MY-ANSWER-MARKER"); status != http.StatusOK {
		t.Fatalf("submit = %d %v", status, got)
	}
	body := b.get("/sets/rapid").body
	start := strings.Index(body, `id="answer-what-is-rag-box"`)
	end := strings.Index(body, `id="answer-a-project-you-led-box"`)
	if start < 0 || end < start {
		t.Fatalf("the first question's box is not before the second's")
	}
	box := body[start:end]
	order := []string{"data-answer-compare", `class="compare-yours"`, "MY-ANSWER-MARKER",
		`class="compare-model"`, `id="answer-what-is-rag-model-h"`, "Q1-MODEL-MARKER",
		`class="compare-points"`, "Q1-KEY-MARKER", "Answer question 1 again"}
	at := 0
	for _, w := range order {
		i := strings.Index(box[at:], w)
		if i < 0 {
			t.Fatalf("the answered box lacks %q after the parts before it (want in order %q)", w, order)
		}
		at += i + len(w)
	}
	// The second question, unanswered, shows none of it.
	second := body[end:]
	if i := strings.Index(second, "</section>"); i > 0 {
		second = second[:i]
	}
	if strings.Contains(second, "data-answer-compare") || strings.Contains(second, "Q2-MODEL-MARKER") {
		t.Error("the unanswered question's box shows the comparison or its model answer")
	}
}

// TestModelAnswerShownOnce: once an answer is in, the box sets the model
// answer and the key points beside it, and the page's own answer material
// leaves them out while keeping the rest (the rubric, the guidance); the
// reader meets each once,
// with the script's timed submit and with a plain form alike.
func TestModelAnswerShownOnce(t *testing.T) {
	cases := []struct {
		name, base, page, model string
		keep                    []string // the material that must stay
		timed                   bool
	}{
		{"problem, timed", problemBase, problemBase, "MODEL-ANSWER-MARKER", []string{`id="answer-material"`, "RUBRIC-1-MARKER", "PITFALL-MARKER", "GUIDANCE-MARKER"}, true},
		{"problem, without script", problemBase, problemBase, "MODEL-ANSWER-MARKER", []string{`id="answer-material"`, "RUBRIC-1-MARKER", "PITFALL-MARKER"}, false},
		{"set question, timed", questionBase, "/sets/rapid", "Q1-MODEL-MARKER", []string{"Q1-KEY-MARKER"}, true},
		{"set question, without script", questionBase, "/sets/rapid", "Q1-MODEL-MARKER", []string{"Q1-KEY-MARKER"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts, clock := newTimedServer(t)
			b := ts.newBrowser(t)
			if tc.timed {
				session, _ := b.start(tc.base, "timed")
				clock.Advance(20 * time.Second)
				if status, got := b.submitTimed(tc.base, session, "MY-ANSWER-MARKER"); status != http.StatusOK {
					t.Fatalf("submit = %d %v", status, got)
				}
			} else if p := b.post(tc.base+"/answer", url.Values{"answer": {"MY-ANSWER-MARKER"}, "session": {""}}); p.status != http.StatusOK {
				t.Fatalf("plain submit: status %d", p.status)
			}
			body := b.get(tc.page).body
			if n := strings.Count(body, tc.model); n != 1 {
				t.Errorf("the model answer %q appears %d times; want once", tc.model, n)
			}
			if i, j := strings.Index(body, "data-compare-model"), strings.Index(body, tc.model); i < 0 || j < i {
				t.Errorf("the model answer is not in the box's comparison (compare at %d, model at %d)", i, j)
			}
			for _, w := range tc.keep {
				if !strings.Contains(body, w) {
					t.Errorf("the answer material lost %q", w)
				}
			}
			// The key points are the box's to tick: the material leaves
			// them out, so they too are met once.
			if n := strings.Count(body, "Q1-KEY-MARKER"); tc.base == questionBase && n != 1 {
				t.Errorf("the key point appears %d times; want once, in the box", n)
			}
		})
	}
	// Revealed without answering, the box has no comparison: the material
	// still carries the model answer.
	ts, _ := newTimedServer(t)
	b := ts.newBrowser(t)
	b.post(problemBase+"/reveal", nil)
	if n := strings.Count(b.get(problemBase).body, "MODEL-ANSWER-MARKER"); n != 1 {
		t.Errorf("revealed without an answer, the model answer appears %d times; want once", n)
	}
}
