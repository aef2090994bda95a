package web

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/timer"
)

// TestRoomCandidateWorkspace: on a code step the candidate's page is the
// solo page's workspace (the problem's panels as tabs beside the shared
// editor, a divider, the staged reference), and the hints the
// interviewer releases reach the part they belong to.
func TestRoomCandidateWorkspace(t *testing.T) {
	ts := newRoomTestServer(t)
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	p, _ := ts.cat.Problem("async-refund")
	page := ts.do(t, "GET", "/rooms/"+id, ckey, "")
	if page.status != 200 {
		t.Fatalf("the candidate's page: %d", page.status)
	}
	for _, want := range []string{`data-workspace`, `id="ws-statement"`, `id="part-1"`, `id="part-2"`, `id="ws-divider"`,
		`id="ws-code"`, `id="room-code-textarea"`, `role="tablist"`, `id="ws-reference-tab"`, `data-staged`, `data-code-tab`,
		`id="part-1-room-hints"`, `id="room-reports"`, `id="room-status"`, "/static/workspace.", "/static/code-workspace.", "/static/editor."} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the candidate's workspace lacks %s", want)
		}
	}
	// What the grader checks is Part 1's answer until there are results;
	// the solo page's answer form is not the room's.
	for _, bad := range []string{checksSectionTitle, `id="ws-answer"`, `id="grade-button"`, `id="check-button"`} {
		if strings.Contains(page.body, bad) {
			t.Errorf("the candidate's workspace shows %s", bad)
		}
	}
	hint := roomTextOf(p.Parts[0].Hints[0].Text.HTML)
	if strings.Contains(page.body, hint) {
		t.Fatal("a hint is on the page before it was released")
	}
	if r := ts.do(t, "POST", "/rooms/"+id+"/hints", ikey, ""); r.status != 200 {
		t.Fatalf("release a hint: %d %s", r.status, r.body)
	}
	panel := ts.do(t, "GET", "/rooms/"+id+"/panel", ckey, "")
	frag := regexp.MustCompile(`(?s)<div id="part-1-room-hints".*?</div>`).FindString(panel.body)
	if !strings.Contains(frag, hint) || !strings.Contains(frag, `id="part-1-hint-1"`) {
		t.Errorf("the panel's Part 1 hints do not hold the released hint:\n%s", firstN(frag, 400))
	}
	for _, id := range []string{"room-status", "room-reports", "part-2-room-hints"} {
		if !strings.Contains(panel.body, `id="`+id+`"`) {
			t.Errorf("the candidate's panel lacks the live part %s", id)
		}
	}
}

// TestRoomAnswerBoxFollowsTheClock drives a question step's answer box
// over HTTP as its script does: the interviewer's clock decides what the
// box shows and how the server judges each save.
func TestRoomAnswerBoxFollowsTheClock(t *testing.T) {
	ts := newRoomTestServer(t)
	// The log keeps milliseconds: a clock on a whole second reads back
	// exactly.
	ts.clock.mu.Lock()
	ts.clock.t = ts.clock.t.Truncate(time.Second)
	ts.clock.mu.Unlock()
	id, ikey, ckey := ts.room(t, "screen:applied-ai-tech-screen")
	ia, err := ts.svc.Authenticate(t.Context(), id, ikey)
	if err != nil {
		t.Fatal(err)
	}
	q := ia.Items[1].Question
	if r := ts.do(t, "POST", "/rooms/"+id+"/next", ikey, ""); r.status != 200 {
		t.Fatalf("next: %d %s", r.status, r.body)
	}
	box := func() (state, clock string, remaining int64) {
		t.Helper()
		page := ts.do(t, "GET", "/rooms/"+id, ckey, "")
		m := regexp.MustCompile(`<div class="timed-box" id="room-answer-text-box" data-timed-box data-state="([a-z]+)" data-limit-ms="\d+" data-remaining-ms="(\d+)"[^>]*data-room-clock="([a-z]+)"`).FindStringSubmatch(page.body)
		if m == nil {
			t.Fatalf("the candidate's page has no room answer box:\n%s", firstN(page.body[strings.Index(page.body, "<main"):], 1500))
		}
		for _, kp := range q.KeyPoints {
			if s := roomTextOf(kp.Text.HTML); strings.Contains(page.body, s) {
				t.Errorf("the candidate's page shows a key point: %q", s)
			}
		}
		if strings.Contains(page.body, "data-timer-modes") || !strings.Contains(page.body, "/static/room.") {
			t.Error("the room's box offers a mode, or the page lacks the room's script")
		}
		if strings.Contains(page.body, "/static/editor.") {
			t.Error("a question's page loads the editor bundle, which it has no use for")
		}
		var n int64
		json.Unmarshal([]byte(m[2]), &n)
		return m[1], m[3], n
	}
	type reply struct {
		State       string `json:"state"`
		ClockPhase  string `json:"clock_phase"`
		RemainingMS int64  `json:"remaining_ms"`
		Late        bool   `json:"late"`
		Error       string `json:"error"`
	}
	seq := 0
	save := func(path, field, text string) (int, reply) {
		t.Helper()
		seq++
		r := ts.do(t, "POST", "/rooms/"+id+"/items/1/"+path, ckey, url.Values{"session": {"room"}, "seq": {strconv.Itoa(seq)}, field: {text}}.Encode())
		var out reply
		if err := json.Unmarshal([]byte(r.body), &out); err != nil {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
		return r.status, out
	}
	draft := func(text string) reply {
		t.Helper()
		status, r := save("timer/draft", "text", text)
		if status != 200 {
			t.Fatalf("draft %q: %d %s", text, status, r.Error)
		}
		return r
	}
	timerDo := func(form string) {
		t.Helper()
		if r := ts.do(t, "POST", "/rooms/"+id+"/timer", ikey, form); r.status != 200 {
			t.Fatalf("timer %s: %d %s", form, r.status, r.body)
		}
	}
	limit := ia.Items[1].Limit.Milliseconds()

	if st, ck, left := box(); st != "idle" || ck != "idle" || left != limit {
		t.Errorf("before the clock starts: state %s, clock %s, %d ms left; want idle, idle, %d", st, ck, left, limit)
	}
	if r := draft("before the start"); r.State != "idle" || r.Late {
		t.Errorf("a save before the start: %+v", r)
	}
	timerDo("action=start")
	ts.clock.add(10 * time.Second)
	if st, ck, left := box(); st != "running" || ck != "running" || left != limit-10_000 {
		t.Errorf("running: state %s, clock %s, %d ms left", st, ck, left)
	}
	timerDo("action=pause")
	ts.clock.add(3 * time.Minute)
	if st, ck, left := box(); st != "paused" || ck != "paused" || left != limit-10_000 {
		t.Errorf("paused for 3 min: state %s, clock %s, %d ms left; want the 10 s used only", st, ck, left)
	}
	if r := draft("while paused"); r.State != "paused" || r.RemainingMS != limit-10_000 || r.Late {
		t.Errorf("a save while paused: %+v", r)
	}
	timerDo("action=resume")
	ts.clock.add(5 * time.Second)
	if r := draft("resumed"); r.State != "running" || r.RemainingMS != limit-15_000 {
		t.Errorf("a save after the resume: %+v; want %d ms left", r, limit-15_000)
	}
	timerDo("action=extend&minutes=2")
	if r := draft("extended"); r.RemainingMS != limit-15_000+120_000 {
		t.Errorf("a save after the extension: %+v; want %d ms left", r, limit-15_000+120_000)
	}
	// Past the limit and its grace: kept, marked late; the answer is the
	// last text in time.
	ts.clock.add(time.Duration(limit+120_000)*time.Millisecond + timer.Grace)
	if r := draft("too late"); r.State != "locked" || !r.Late {
		t.Errorf("a save past the grace: %+v; want locked and late", r)
	}
	if st, _, _ := box(); st != "locked" {
		t.Errorf("the box after the time ran out: %s; want locked", st)
	}
	status, r := save("answer", "answer", "too late, submitted")
	if status != 200 || r.State != "submitted" || !r.Late {
		t.Errorf("the submit past the grace: %d %+v", status, r)
	}
	iv := ts.do(t, "GET", "/rooms/"+id, ikey, "")
	for _, want := range []string{"extended", "Submitted.", "too late, submitted"} {
		if !strings.Contains(iv.body, want) {
			t.Errorf("the interviewer's page lacks %q", want)
		}
	}
	if st, _, _ := box(); st != "submitted" {
		t.Errorf("the box after the submit: %s", st)
	}
	if status, r := save("timer/draft", "text", "after the submit"); status != 409 || r.Error == "" {
		t.Errorf("a save after the submit: %d %+v; want 409 with a message", status, r)
	}
}
