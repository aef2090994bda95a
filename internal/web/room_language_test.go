package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/problems"
)

// markPythonStarter marks async-refund's Python starter, so a page can be
// seen to hold it.
func markPythonStarter(cat *problems.Catalog) {
	p, _ := cat.Problem("async-refund")
	code := *p.Code
	code.PythonStarter = "# PY-ROOM-STARTER\n" + code.PythonStarter
	p.Code = &code
}

// noPythonStarters takes every problem's Python starter away.
func noPythonStarters(cat *problems.Catalog) {
	for _, p := range cat.Problems {
		if p.Code != nil && p.Code.PythonStarter != "" {
			code := *p.Code
			code.PythonStarter, code.PythonStarterPath = "", ""
			p.Code = &code
		}
	}
}

// roomWithLang makes a room through the form in lang and returns its
// id and keys.
func (ts *roomTestServer) roomWithLang(t *testing.T, source, lang string) (id, ikey, ckey string) {
	t.Helper()
	// ts.room posts only the source; the language rides on a form of
	// its own here, then the same links page is read.
	resp := ts.do(t, "POST", "/rooms", "", url.Values{"source": {source}, "lang": {lang}}.Encode())
	if resp.status != http.StatusSeeOther {
		t.Fatalf("POST /rooms in %s: %d %s", lang, resp.status, resp.body)
	}
	var cookie string
	for _, ck := range (&http.Response{Header: resp.header}).Cookies() {
		if ck.Name == roomCookie {
			cookie = ck.Value
		}
	}
	id = strings.TrimSuffix(strings.TrimPrefix(resp.header.Get("Location"), "/rooms/"), "/links")
	links := ts.do(t, "GET", resp.header.Get("Location"), cookie, "")
	i := strings.Index(links.body, "/rooms/"+id+"/enter?key=")
	if cookie == "" || i < 0 {
		t.Fatalf("no room made: cookie %q, links page %d", cookie, links.status)
	}
	// The candidate's key is the links page's other key.
	rest := links.body
	for {
		j := strings.Index(rest, "/enter?key=")
		if j < 0 {
			break
		}
		rest = rest[j+len("/enter?key="):]
		k := rest[:strings.IndexAny(rest, `"<& `)]
		if k != cookie {
			ckey = k
			break
		}
	}
	if ckey == "" {
		t.Fatal("the links page names no candidate key")
	}
	return id, cookie, ckey
}

// The new-room form offers the language only where some source has a
// Python starter, marks those sources, and disables Python with the
// reason where the server cannot grade it.
func TestRoomNewFormLanguage(t *testing.T) {
	const sel = `<select id="room-lang" name="lang"`
	ts := newRoomTestServer(t)
	page := ts.do(t, "GET", "/rooms/new", "", "")
	for _, want := range []string{sel, `<option value="go" selected>Go</option>`, `<option value="python">Python</option>`,
		`<label for="room-lang">Code in</label>`, "(code in Go or Python)"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("/rooms/new lacks %q", want)
		}
	}

	ts.app.pythonWhy = "python3 is missing (WHY-MARKER)"
	page = ts.do(t, "GET", "/rooms/new", "", "")
	for _, want := range []string{`<option value="python" disabled>Python</option>`, "Python cannot be graded on this server: python3 is missing (WHY-MARKER)",
		`aria-describedby="room-lang-help room-lang-why"`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("/rooms/new without Python lacks %q", want)
		}
	}
	resp := ts.do(t, "POST", "/rooms", "", url.Values{"source": {"problem:async-refund"}, "lang": {"python"}}.Encode())
	if resp.status != http.StatusServiceUnavailable || !strings.Contains(resp.body, "WHY-MARKER") {
		t.Errorf("a Python room where Python cannot be graded: %d %s; want 503 with the reason", resp.status, resp.body)
	}

	none := newRoomTestServer(t, noPythonStarters)
	if page := none.do(t, "GET", "/rooms/new", "", ""); strings.Contains(page.body, sel) || strings.Contains(page.body, "Go or Python") {
		t.Error("/rooms/new offers a language though no problem has a Python starter")
	}
}

// A language the form does not offer is a 400 naming it; Python for a
// problem with no Python starter is a 400 too. Neither makes a room.
func TestRoomCreateLanguageRefused(t *testing.T) {
	ts := newRoomTestServer(t)
	for _, tc := range []struct{ source, lang, want string }{
		{"problem:async-refund", "rust", `There is no language \"rust\"`},
		{"problem:async-refund", "Python", `There is no language \"Python\"`},
		{"problem:idempotent-create-client-code", "python", "can be written in Python"},
	} {
		resp := ts.do(t, "POST", "/rooms", "", url.Values{"source": {tc.source}, "lang": {tc.lang}}.Encode())
		if resp.status != http.StatusBadRequest || !strings.Contains(resp.body, tc.want) || resp.header.Get("Location") != "" {
			t.Errorf("POST /rooms %s in %q: %d %s; want 400 naming %s", tc.source, tc.lang, resp.status, resp.body, tc.want)
		}
	}
}

// A Python room's pages, the interviewer's and the candidate's, hold the
// Python starter in an editor mounted in Python, and say the language; a
// Go room's say Go.
func TestPythonRoomPages(t *testing.T) {
	ts := newRoomTestServer(t, markPythonStarter)
	id, ikey, ckey := ts.roomWithLang(t, "problem:async-refund", "python")
	for _, key := range []string{ikey, ckey} {
		page := ts.do(t, "GET", "/rooms/"+id, key, "")
		for _, want := range []string{`data-lang="python"`, "# PY-ROOM-STARTER", `<label for="room-code-textarea">Shared code (Python)</label>`} {
			if !strings.Contains(page.body, want) {
				t.Errorf("Python room's page (%d) lacks %q", page.status, want)
			}
		}
	}
	// The replay draws it as Python from the Python starter.
	replay := ts.do(t, "GET", "/rooms/"+id+"/replay", ikey, "")
	if !strings.Contains(replay.body, `data-code-item="0" data-lang="python"`) || !strings.Contains(replay.body, "# PY-ROOM-STARTER") {
		t.Errorf("the Python room's replay (%d) does not show Python's starter as Python", replay.status)
	}
	id, ikey, _ = ts.roomWithLang(t, "problem:async-refund", "go")
	page := ts.do(t, "GET", "/rooms/"+id, ikey, "")
	if !strings.Contains(page.body, `data-lang="go"`) || strings.Contains(page.body, "PY-ROOM-STARTER") || !strings.Contains(page.body, "Shared code (Go)") {
		t.Errorf("Go room's page: %d, want Go's starter and language", page.status)
	}
}

// In a Python room a problem without a Python starter stays Go, and its
// page says why.
func TestPythonRoomGoOnlyStep(t *testing.T) {
	ts := newRoomTestServer(t, func(cat *problems.Catalog) {
		sc, _ := cat.Screen("applied-ai-tech-screen")
		sc.Items = append([]problems.ScreenItem{{Problem: "idempotent-create-client-code"}}, sc.Items...)
	})
	id, _, ckey := ts.roomWithLang(t, "screen:applied-ai-tech-screen", "python")
	page := ts.do(t, "GET", "/rooms/"+id, ckey, "")
	if !strings.Contains(page.body, `data-lang="go"`) || !strings.Contains(page.body, "Shared code (Go)") ||
		!strings.Contains(page.body, "This room is in Python, but this problem has no Python starter, so its code stays Go.") {
		t.Errorf("a Go-only step of a Python room (%d) does not say it stays Go", page.status)
	}
}
