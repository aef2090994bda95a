package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/storage"
)

// roomTestClock is a clock the test moves.
type roomTestClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *roomTestClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *roomTestClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// roomGrader reports a failing run naming SECRET-SCENARIO.
type roomGrader struct{}

func (roomGrader) Admit(string) (*sandbox.Ticket, error) { return nil, nil }
func (roomGrader) Plan(string) (grading.Plan, bool)      { return grading.Plan{}, true }
func (roomGrader) GradeAdmitted(context.Context, *sandbox.Ticket, grading.Request, func(gradewire.ScenarioReport)) (*gradewire.Report, error) {
	return &gradewire.Report{Status: gradewire.StatusFail, Message: "one scenario failed", Diagnostics: []gradewire.Diagnostic{},
		Summary: gradewire.Summary{ScenariosPassed: 0, ScenariosTotal: 1, Defects: []gradewire.DefectStatus{}},
		Scenarios: []gradewire.ScenarioReport{{Name: "SECRET-SCENARIO", Title: "SECRET-SCENARIO-TITLE", Status: gradewire.StatusFail,
			Invariants:  []gradewire.InvariantResult{{ID: "SECRET-INVARIANT", Title: "SECRET-INVARIANT-TITLE", Status: gradewire.InvariantViolated}},
			Invocations: []gradewire.InvocationResult{}, Trace: []gradewire.TraceEvent{}}}}, nil
}

type roomTestServer struct {
	*httptest.Server
	app   *Server
	svc   *rooms.Service
	clock *roomTestClock
	cat   *problems.Catalog
}

func newRoomTestServer(t *testing.T, changes ...func(*problems.Catalog)) *roomTestServer {
	t.Helper()
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, change := range changes {
		change(cat)
	}
	store, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	clock := &roomTestClock{t: time.Now()}
	broker := live.NewInProcess()
	t.Cleanup(broker.Close)
	svc, err := rooms.New(rooms.Config{Store: store, Catalog: cat, Publisher: broker, Grader: roomGrader{}, Now: clock.now, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	app, err := New(Config{Catalog: cat, Store: store, Log: log, Rooms: svc, Broker: broker})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(app)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { svc.Close(context.Background()) })
	return &roomTestServer{Server: ts, app: app, svc: svc, clock: clock, cat: cat}
}

// room makes a room through the page and returns its id and two keys.
func (ts *roomTestServer) room(t *testing.T, source string) (id, ikey, ckey string) {
	t.Helper()
	resp := ts.do(t, "POST", "/rooms", "", url.Values{"source": {source}}.Encode())
	if resp.status != http.StatusSeeOther {
		t.Fatalf("POST /rooms: %d %s", resp.status, resp.body)
	}
	// The maker is the interviewer: their browser holds the key, and goes
	// on to the room's links page, which it can open again.
	var cookie string
	for _, ck := range (&http.Response{Header: resp.header}).Cookies() {
		if ck.Name == roomCookie {
			cookie = ck.Value
		}
	}
	where := resp.header.Get("Location")
	if cookie == "" || !strings.HasSuffix(where, "/links") {
		t.Fatalf("POST /rooms set no room cookie (%q) or went to %q, not the links page", cookie, where)
	}
	resp = ts.do(t, "GET", where, cookie, "")
	if resp.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", where, resp.status, resp.body)
	}
	links := regexp.MustCompile(`/rooms/([A-Za-z0-9_-]+)/enter\?key=([A-Za-z0-9_-]+)`).FindAllStringSubmatch(resp.body, -1)
	if len(links) < 2 {
		t.Fatalf("the new room's page has %d links", len(links))
	}
	seen := map[string]bool{}
	var keys []string
	for _, l := range links {
		if !seen[l[2]] {
			seen[l[2]] = true
			keys = append(keys, l[2])
		}
	}
	if len(keys) != 2 {
		t.Fatalf("the new room's page names %d keys; want 2", len(keys))
	}
	return links[0][1], keys[0], keys[1]
}

type roomResponse struct {
	status int
	body   string
	header http.Header
}

// do sends a request with the room cookie key (none when ""), as the
// page's script does for POSTs.
func (ts *roomTestServer) do(t *testing.T, method, path, key, form string) roomResponse {
	t.Helper()
	// A stream never ends by itself: it is read for a moment. Anything
	// else gets long enough to judge a hang, not speed.
	wait := 30 * time.Second
	if strings.HasSuffix(path, "/events") {
		wait = time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, ts.URL+path, strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	if method == "POST" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Origin", ts.URL)
		if strings.HasSuffix(path, "/push") {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	if key != "" {
		req.AddCookie(&http.Cookie{Name: roomCookie, Value: key})
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	// A stream is read until the deadline: what it sent by then.
	data, _ := io.ReadAll(resp.Body)
	return roomResponse{status: resp.StatusCode, body: string(data), header: resp.Header}
}

// roomEndpoint is one of a room's endpoints. interviewer marks the
// interviewer's actions; candidate the candidate's.
type roomEndpoint struct {
	method, path, form string
	interviewer        bool
	candidate          bool
	record             bool // the room's record (replay, scorecard): the interviewer's, after the room too
}

func roomEndpoints(runSeq int64) []roomEndpoint {
	push := `{"version":0,"updates":[]}`
	return []roomEndpoint{
		{"GET", "", "", false, false, false},
		{"GET", "/panel", "", false, false, false},
		{"GET", "/links", "", true, false, false},
		{"GET", "/events", "", false, false, false},
		{"GET", "/code/0/pull?since=0", "", false, false, false},
		{"POST", "/code/0/push", push, false, false, false},
		{"POST", "/hints", "", true, false, false},
		{"POST", "/timer", "action=start", true, false, false},
		{"POST", "/run", "", true, false, false},
		{"POST", "/share", fmt.Sprintf("run=%d", runSeq), true, false, false},
		{"POST", "/notes", "notes=more", true, false, false},
		{"POST", "/score", "part=1&point=0&score=1", true, false, false},
		{"POST", "/recommendation", "recommendation=no", true, false, false},
		{"POST", "/next", "", true, false, false},
		{"POST", "/items/1/timer/draft", "session=room&seq=1&text=x", false, true, false},
		{"POST", "/items/1/answer", "session=room&seq=2&answer=x", false, true, false},
		{"POST", "/signal", "signal=hidden", false, true, false},
		{"POST", "/cursor", `cursor={"item":0,"clientID":"candidate-x","version":0,"anchor":0,"head":0}`, false, true, false},
		{"GET", "/replay", "", true, false, true},
		{"GET", "/replay/frame?at=1", "", true, false, true},
		{"GET", "/scorecard", "", true, false, true},
		{"GET", "/scorecard.json", "", true, false, true},
		{"GET", "/scorecard.md", "", true, false, true},
		{"POST", "/end", "", true, false, false},
	}
}

// TestRoomSecurityMatrix tries every room endpoint with every credential,
// and looks for every piece of interviewer-only data in what each gets.
func TestRoomSecurityMatrix(t *testing.T) {
	ts := newRoomTestServer(t)
	ctx := context.Background()
	expiredID, expiredI, expiredC := ts.room(t, "problem:async-refund")
	ts.clock.add(59 * time.Minute)
	id, ikey, ckey := ts.room(t, "screen:applied-ai-tech-screen")
	otherID, otherI, otherC := ts.room(t, "problem:async-refund")
	endedID, endedI, endedC := ts.room(t, "problem:async-refund")
	ts.clock.add(2 * time.Minute) // the first room has expired
	_ = otherID

	// Room id's interviewer-only data, each with a marker.
	ia, err := ts.svc.Authenticate(ctx, id, ikey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := ts.svc.Authenticate(ctx, id, ckey)
	if err != nil {
		t.Fatal(err)
	}
	must := func(_ storage.RoomEvent, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ts.svc.SaveNotes(ctx, ia, "SECRET-NOTE <img src=x onerror=alert(1)>"))
	must(ts.svc.Score(ctx, ia, 1, 0, 3, nil, "SECRET-SCORE-NOTE"))
	must(ts.svc.Recommend(ctx, ia, "strong_yes"))
	must(ts.svc.Signal(ctx, ca, rooms.SignalPasteCode, 987654))
	run, err := ts.svc.Run(ctx, ia, rooms.RunLimits{ClientKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		iv, err := ts.svc.InterviewerView(ctx, ia)
		return err == nil && len(iv.Runs) == 1 && iv.Runs[0].Finished
	})
	ended, err := ts.svc.Authenticate(ctx, endedID, endedI)
	if err != nil {
		t.Fatal(err)
	}
	must(ts.svc.End(ctx, ended))

	it := ia.Items[0]
	secrets := []string{"SECRET-NOTE", "SECRET-SCORE-NOTE", "SECRET-SCENARIO", "SECRET-INVARIANT", "987654",
		"strong_yes", "Strong yes", "signal.paste", "note.saved", "rubric.scored", "run.finished", "recommendation.set",
		it.Script[:50]}
	for _, part := range it.Problem.Parts {
		for _, r := range part.Rubric {
			secrets = append(secrets, roomTextOf(r.Text.HTML))
		}
	}
	for _, fu := range it.Problem.FollowUps {
		secrets = append(secrets, roomTextOf(fu.Text.HTML))
	}
	// The question the candidate's page shows once the interviewer's
	// link has moved the room on: its answer material stays out of the
	// timed answer box.
	q := ia.Items[1].Question
	for _, kp := range q.KeyPoints {
		secrets = append(secrets, roomTextOf(kp.Text.HTML))
	}
	for _, fu := range q.FollowUps {
		secrets = append(secrets, roomTextOf(fu.Answer.HTML))
	}
	secrets = append(secrets, roomTextOf(firstParagraph(q.ModelAnswer.HTML)))
	secrets = append(secrets, roomTextOf(firstParagraph(it.Problem.ModelAnswer.HTML)), roomTextOf(firstParagraph(ts.svc.Screen(ia).Intro.HTML)))

	// The interviewer does reach it all: so the matrix below can fail.
	page := ts.do(t, "GET", "/rooms/"+id, ikey, "")
	for _, s := range []string{"SECRET-NOTE", "SECRET-SCORE-NOTE", "SECRET-INVARIANT", "987654", secrets[len(secrets)-1]} {
		if !strings.Contains(page.body, s) {
			t.Errorf("the interviewer's page lacks %q", s)
		}
	}
	if strings.Contains(page.body, "<img src=x") {
		t.Error("the notes' raw HTML reached the interviewer's page unescaped")
	}
	type credential struct {
		name string
		room string
		key  string
		want func(ep roomEndpoint) []int // the statuses allowed
		// own: the interviewer's link of the room it is tried on, whose
		// record (even closed) is theirs to read.
		own bool
	}
	reached := func(ep roomEndpoint) []int { return []int{200, 400, 422} }
	// A closed room refuses everything but its record to its interviewer.
	closedRoom := func(ep roomEndpoint) []int {
		if ep.record {
			return []int{200}
		}
		return []int{410}
	}
	creds := []credential{
		{"interviewer link", id, ikey, func(ep roomEndpoint) []int {
			if ep.record {
				return []int{200}
			}
			if ep.candidate {
				return []int{400} // the candidate's actions are not the interviewer's
			}
			return reached(ep)
		}, true},
		{"candidate link", id, ckey, func(ep roomEndpoint) []int {
			if ep.interviewer {
				return []int{403}
			}
			return reached(ep)
		}, false},
		{"another room's interviewer link", id, otherI, func(roomEndpoint) []int { return []int{404} }, false},
		{"another room's candidate link", id, otherC, func(roomEndpoint) []int { return []int{404} }, false},
		{"no link", id, "", func(roomEndpoint) []int { return []int{404} }, false},
		{"a made-up key", id, strings.Repeat("A", 43), func(roomEndpoint) []int { return []int{404} }, false},
		{"expired room, its interviewer link", expiredID, expiredI, closedRoom, true},
		{"expired room, its candidate link", expiredID, expiredC, func(roomEndpoint) []int { return []int{410} }, false},
		{"ended room, its interviewer link", endedID, endedI, closedRoom, true},
		{"ended room, its candidate link", endedID, endedC, func(roomEndpoint) []int { return []int{410} }, false},
	}
	for _, cr := range creds {
		t.Run(cr.name, func(t *testing.T) {
			for _, ep := range roomEndpoints(run.Seq) {
				if ep.path == "/end" && cr.key == ikey {
					continue // tried last, below: it closes the room
				}
				resp := ts.do(t, ep.method, "/rooms/"+cr.room+ep.path, cr.key, ep.form)
				allowed := cr.want(ep)
				ok := false
				for _, s := range allowed {
					ok = ok || resp.status == s
				}
				if !ok {
					t.Errorf("%s %s: %d (%s); want one of %v", ep.method, ep.path, resp.status, firstN(resp.body, 200), allowed)
				}
				if cr.own {
					continue
				}
				for _, s := range secrets {
					if s != "" && strings.Contains(resp.body, s) {
						t.Errorf("%s %s gave %s interviewer-only data: %q", ep.method, ep.path, cr.name, s)
					}
				}
			}
		})
	}

	stream := ts.stream(t, id, ikey, "event: signal.paste")
	if !strings.Contains(stream, "event: note.saved") || !strings.Contains(stream, "event: signal.paste") {
		t.Errorf("the interviewer's stream lacks the interviewer-only events:\n%s", firstN(stream, 600))
	}
	// The candidate's stream, read to its last event.
	cv, err := ts.svc.CandidateView(ctx, ca)
	if err != nil {
		t.Fatal(err)
	}
	cstream := ts.stream(t, id, ckey, fmt.Sprintf("id: %d\n", cv.LastSeq))
	// Its ids count only its own events: no gap tells how many of the
	// interviewer's there were.
	ids := regexp.MustCompile(`(?m)^id: (\d+)$`).FindAllStringSubmatch(cstream, -1)
	for i, m := range ids {
		if m[1] != strconv.Itoa(i+1) {
			t.Errorf("the candidate's stream's event %d has id %s; want %d (no gaps)", i+1, m[1], i+1)
			break
		}
	}
	if len(ids) < 3 {
		t.Errorf("the candidate's stream sent %d events; want the room's public ones", len(ids))
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(cstream, s) {
			t.Errorf("the candidate's stream holds interviewer-only data: %q", s)
		}
	}
	if resp := ts.do(t, "POST", "/rooms/"+id+"/end", ckey, ""); resp.status != http.StatusForbidden {
		t.Errorf("the candidate ended the room: %d", resp.status)
	}
	if resp := ts.do(t, "POST", "/rooms/"+id+"/end", ikey, ""); resp.status != http.StatusOK {
		t.Errorf("the interviewer could not end the room: %d %s", resp.status, resp.body)
	}
	for _, key := range []string{ikey, ckey} {
		if resp := ts.do(t, "GET", "/rooms/"+id, key, ""); resp.status != http.StatusGone {
			t.Errorf("a link of the ended room still opens it: %d", resp.status)
		}
	}
}

func TestRoomEnterMovesTheKeyToACookie(t *testing.T) {
	ts := newRoomTestServer(t)
	id, ikey, _ := ts.room(t, "problem:async-refund")
	resp := ts.do(t, "GET", "/rooms/"+id+"/enter?key="+ikey, "", "")
	if resp.status != http.StatusOK {
		t.Fatalf("enter: %d %s", resp.status, resp.body)
	}
	var ck *http.Cookie
	for _, c := range (&http.Response{Header: resp.header}).Cookies() {
		if c.Name == roomCookie {
			ck = c
		}
	}
	switch {
	case ck == nil:
		t.Fatal("no room cookie")
	case ck.Value != ikey || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/rooms/"+id || ck.MaxAge <= 0:
		t.Fatalf("room cookie = %+v; want the key, HttpOnly, SameSite=Strict, the room's path, an expiry", ck)
	}
	if got := resp.header.Get("Refresh"); got != "0; url=/rooms/"+id {
		t.Errorf("Refresh = %q; want the room's address, without the key", got)
	}
	if got := resp.header.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("Referrer-Policy = %q; want no-referrer on a page whose address holds the key", got)
	}
	if strings.Contains(resp.body, ikey) {
		t.Error("the hop page shows the key")
	}
	for _, bad := range []string{"", "nope", ikey[:len(ikey)-1]} {
		r := ts.do(t, "GET", "/rooms/"+id+"/enter?key="+bad, "", "")
		if r.status != http.StatusNotFound || strings.Contains(r.header.Get("Set-Cookie"), roomCookie) {
			t.Errorf("enter with key %q: %d, cookie %q; want 404 and no room cookie", bad, r.status, r.header.Get("Set-Cookie"))
		}
	}
	// A form sent from another site is refused before it reaches a room.
	req, _ := http.NewRequest("POST", ts.URL+"/rooms/"+id+"/hints", nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.AddCookie(&http.Cookie{Name: roomCookie, Value: ikey})
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site POST: %d; want 403", r.StatusCode)
	}
}

func TestRoomCreateRefusals(t *testing.T) {
	ts := newRoomTestServer(t)
	for _, src := range []string{"", "screen:nope", "problem:nope", "set:applied-ai-rapid-fire", "nonsense"} {
		if r := ts.do(t, "POST", "/rooms", "", url.Values{"source": {src}}.Encode()); r.status != http.StatusBadRequest {
			t.Errorf("source %q: %d; want 400", src, r.status)
		}
	}
}

// TestRoomPushAndPull drives the shared editor's protocol over HTTP.
func TestRoomPushAndPull(t *testing.T) {
	ts := newRoomTestServer(t)
	id, ikey, ckey := ts.room(t, "problem:async-refund")
	p, _ := ts.cat.Problem("async-refund")
	n := len([]rune(strings.ReplaceAll(p.Code.Starter, "\r\n", "\n"))) // ASCII starter: runes are UTF-16 units
	push := func(key, client string, base int) roomResponse {
		body, _ := json.Marshal(roomPushBody{Version: base, Updates: []collab.Update{{ClientID: client, Changes: json.RawMessage(fmt.Sprintf(`[[0,"// hi",""],%d]`, n))}}})
		return ts.do(t, "POST", "/rooms/"+id+"/code/0/push", key, string(body))
	}
	if r := push(ckey, "candidate-abc", 0); r.status != 200 || !strings.Contains(r.body, `"ok":true`) {
		t.Fatalf("candidate's push: %d %s", r.status, r.body)
	}
	if r := push(ikey, "interviewer-abc", 0); r.status != 200 || !strings.Contains(r.body, `"conflict":true`) {
		t.Fatalf("interviewer's stale push: %d %s; want a conflict", r.status, r.body)
	}
	if r := push(ckey, "interviewer-abc", 1); r.status != 400 {
		t.Fatalf("candidate pushing as the interviewer: %d %s; want 400", r.status, r.body)
	}
	r := ts.do(t, "GET", "/rooms/"+id+"/code/0/pull?since=0", ikey, "")
	if r.status != 200 || !strings.Contains(r.body, "candidate-abc") || !strings.Contains(r.body, `"version":1`) {
		t.Fatalf("pull: %d %s", r.status, r.body)
	}
	page := ts.do(t, "GET", "/rooms/"+id, ikey, "")
	if !strings.Contains(page.body, "// hi") || !strings.Contains(page.body, `data-code-version="1"`) {
		t.Error("the page does not hold the shared code at its version")
	}
	stream := ts.stream(t, id, ckey, `"kind":"code.update"`)
	if !strings.Contains(stream, `"kind":"code.update","actor":"candidate","item":0,"version":1`) {
		t.Errorf("the stream's code update:\n%s", firstN(stream, 500))
	}
	// Resumed after the update, the stream does not repeat it.
	req, _ := http.NewRequest("GET", ts.URL+"/rooms/"+id+"/events", nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req = req.WithContext(ctx)
	req.Header.Set("Last-Event-ID", "2")
	req.AddCookie(&http.Cookie{Name: roomCookie, Value: ckey})
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(data), "id: 1\n") || strings.Contains(string(data), "id: 2\n") {
		t.Errorf("a stream resumed after 2 sent events up to 2 again:\n%s", data)
	}
}

// stream reads a room's stream until it has sent until (or 30 s pass:
// a hang, which the caller's check then reports).
func (ts *roomTestServer) stream(t *testing.T, id, key, until string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", ts.URL+"/rooms/"+id+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: roomCookie, Value: key})
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(got.String(), until) {
		n, err := resp.Body.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return got.String()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// textOf is HTML's text, its first 40 characters: enough to recognise it,
// short of the entities HTML escaping may vary.
func roomTextOf(html string) string {
	s := strings.TrimSpace(tagRE.ReplaceAllString(html, ""))
	if i := strings.IndexAny(s, "&'\"<>\n"); i >= 0 {
		s = s[:i]
	}
	return firstN(s, 40)
}

func firstParagraph(html string) string {
	if i := strings.Index(html, "<p>"); i >= 0 {
		html = html[i:]
		if j := strings.Index(html, "</p>"); j >= 0 {
			return html[:j]
		}
	}
	return html
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
