package web

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/clientaddr"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/storage/storagetest"
)

// md is Markdown whose HTML is the text in a paragraph: enough for pages.
func md(text string) problems.Markdown {
	return problems.Markdown{Source: text, HTML: "<p>" + text + "</p>\n"}
}

func items(texts ...string) []problems.Item {
	var out []problems.Item
	for i, t := range texts {
		out = append(out, problems.Item{Text: md(t), Line: i + 1})
	}
	return out
}

// testCatalog is a small catalogue built by hand, sorted by slug as Load
// returns it. Every piece of answer
// material carries a distinct marker so tests can tell whether it is shown.
func testCatalog() *problems.Catalog {
	return &problems.Catalog{
		Problems: []*problems.Problem{{
			Slug: "design-client", Title: "Design a safe client", Difficulty: "easy", Minutes: 2,
			Tags:        problems.Tags{Topics: []string{"api-design"}},
			Prompt:      md("DESIGN-PROMPT"),
			ModelAnswer: md("DESIGN-MODEL-MARKER"),
		}, {
			Slug: "refund-bug", Title: "Find the refund bug", Summary: "A debugging exercise.",
			Difficulty: "medium", Minutes: 40,
			Tags:        problems.Tags{Topics: []string{"idempotency", "payments"}, Companies: []string{"Acme"}},
			Prompt:      md("PROMPT-MARKER the function refunds twice."),
			TimedAnswer: 2 * time.Minute,
			Sections:    []problems.Section{{Title: "Provider facts", Body: md("FACTS-MARKER")}},
			Clarifying:  items("CLARIFY-MARKER is the call async?"),
			Parts: []problems.Part{
				{Number: 1, Title: "Find the defects", Prompt: md("PART1-PROMPT"),
					Hints:  items("HINT-1-1-MARKER", "HINT-1-2-MARKER", "HINT-1-3-MARKER"),
					Rubric: items("RUBRIC-1-MARKER")},
				{Number: 2, Title: "Rewrite it", Prompt: md("PART2-PROMPT"),
					Hints: items("HINT-2-1-MARKER"), Rubric: items("RUBRIC-2-MARKER")},
			},
			StrongAnswer: items("STRONG-MARKER"),
			FollowUps:    items("FOLLOWUP-MARKER"),
			Pitfalls:     items("PITFALL-MARKER"),
			Glossary:     []problems.GlossaryEntry{{Term: "Idempotency key", Definition: md("GLOSSARY-MARKER")}},
			Guidance:     md("GUIDANCE-MARKER"),
			ModelAnswer:  md("MODEL-ANSWER-MARKER"),
			Code: &problems.Code{Language: "go", StarterPath: "starter/refund.go",
				Starter: "package refund\n\nfunc RefundMoney() { /* STARTER-MARKER */ }\n"},
		}},
		Sets: []*problems.QuestionSet{{
			Slug: "rapid", Title: "Rapid-fire questions", Minutes: 12,
			Tags:  problems.Tags{Topics: []string{"llm"}, Companies: []string{"Acme"}},
			Intro: md("SET-INTRO"),
			Questions: []problems.Question{
				{ID: "what-is-rag", Text: "What is RAG?", ModelAnswer: md("Q1-MODEL-MARKER"),
					KeyPoints: items("Q1-KEY-MARKER"), TimeLimit: problems.DefaultTimeLimit},
				{ID: "a-project-you-led", Text: "Tell me about a project you led.", Guidance: md("Q2-GUIDANCE-MARKER"),
					KeyPoints: items("Q2-KEY-MARKER"), TimeLimit: problems.DefaultTimeLimit},
			},
		}},
		Screens: []*problems.Screen{{
			Slug: "tech-screen", Title: "Tech screen", Minutes: 45,
			Tags:  problems.Tags{Companies: []string{"Acme"}},
			Intro: md("SCREEN-INTRO"),
			Items: []problems.ScreenItem{
				{Problem: "refund-bug", Minutes: 30, Note: "NOTE-MARKER watch for the key"},
				{Questions: "rapid"},
			},
		}},
	}
}

// testServer is the application behind httptest with a real SQLite store.
type testServer struct {
	*httptest.Server
	app   *Server
	store *storage.Store
}

// newTestApp builds the application from cfg over a fresh store (SQLite
// in a temporary folder, or Postgres: see storagetest) and a silent
// logger; cfg names the catalogue and whatever else a test varies
// (proxies, a grader).
func newTestApp(t *testing.T, cfg Config) (*Server, *storage.Store) {
	t.Helper()
	store := storagetest.Open(t)
	cfg.Store = store
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	app, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return app, store
}

func newTestServer(t *testing.T, cat *problems.Catalog) *testServer {
	t.Helper()
	app, store := newTestApp(t, Config{Catalog: cat})
	ts := httptest.NewServer(app)
	t.Cleanup(ts.Close)
	return &testServer{Server: ts, app: app, store: store}
}

// browser is one user: a client with its own cookie jar.
type browser struct {
	t      *testing.T
	ts     *testServer
	client *http.Client
}

func (ts *testServer) newBrowser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, ts: ts, client: &http.Client{Jar: jar}}
}

type page struct {
	status int
	body   string
	header http.Header
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return page{status: resp.StatusCode, body: string(body), header: resp.Header}
}

func (b *browser) get(path string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.ts.URL+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

// post sends a form, following the redirect as a browser does.
func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.ts.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

func (p page) mustContain(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(p.body, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

func (p page) mustNotContain(t *testing.T, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(p.body, w) {
			t.Errorf("page shows %q, which should be hidden", w)
		}
	}
}

var h1 = regexp.MustCompile(`<h1[ >]`)

func TestPages(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	tests := []struct {
		path       string
		wantStatus int
		want       []string
	}{
		{"/", 200, []string{"Find the refund bug", "Design a safe client", "Rapid-fire questions", "Tech screen",
			"medium", "about 40 minutes", "2 parts", "2 questions", `href="/?topic=idempotency"`}},
		{"/problems/refund-bug", 200, []string{"PROMPT-MARKER", "FACTS-MARKER", "CLARIFY-MARKER", "PART1-PROMPT",
			"PART2-PROMPT", "Part 1: Find the defects", "FOLLOWUP-MARKER", "GLOSSARY-MARKER", "STARTER-MARKER", `id="code-editor-textarea"`,
			"Reveal hint 1 of 3", "Reveal hint 1 of 1", `<label for="answer-text"`,
			"A debugging exercise.", "timed answer: 2:00"}},
		{"/problems/design-client", 200, []string{"DESIGN-PROMPT"}},
		{"/sets/rapid", 200, []string{"SET-INTRO", "What is RAG?", "Tell me about a project you led.", "2:00",
			`<label for="answer-what-is-rag"`}},
		{"/screens/tech-screen", 200, []string{`href="/problems/refund-bug"`, `href="/sets/rapid"`,
			"about 30 minutes", "about 12 minutes", `action="/screens/tech-screen/practice/start"`}},
		{"/problems/nope", 404, []string{"Page not found", "There is no problem called nope."}},
		{"/sets/nope", 404, []string{"Page not found"}},
		{"/screens/nope", 404, []string{"Page not found"}},
		{"/no/such/page", 404, []string{"Page not found", "Back to the catalogue"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p := b.get(tt.path)
			if p.status != tt.wantStatus {
				t.Fatalf("status = %d; want %d", p.status, tt.wantStatus)
			}
			if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("Content-Type = %q; want text/html", ct)
			}
			p.mustContain(t, tt.want...)
			p.mustContain(t, `<main id="main"`, `href="#main"`, "<nav")
			if n := len(h1.FindAllString(p.body, -1)); n != 1 {
				t.Errorf("page has %d h1 elements; want 1", n)
			}
		})
	}
	t.Run("answer material hidden on first view", func(t *testing.T) {
		b.get("/problems/refund-bug").mustNotContain(t, "RUBRIC-1-MARKER", "RUBRIC-2-MARKER", "STRONG-MARKER",
			"PITFALL-MARKER", "GUIDANCE-MARKER", "MODEL-ANSWER-MARKER", "HINT-1-1-MARKER")
		b.get("/sets/rapid").mustNotContain(t, "Q1-MODEL-MARKER", "Q1-KEY-MARKER", "Q2-GUIDANCE-MARKER", "Q2-KEY-MARKER")
	})
}

func TestHomeFilter(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	tests := []struct {
		query       string
		shown, gone []string
	}{
		{"?topic=idempotency", []string{"Find the refund bug", "Showing 1 of 4", `aria-current="true"`},
			[]string{"Design a safe client", "Rapid-fire questions", "Tech screen"}},
		{"?company=Acme", []string{"Find the refund bug", "Rapid-fire questions", "Tech screen"},
			[]string{"Design a safe client"}},
		{"?company=Acme&topic=llm", []string{"Rapid-fire questions"},
			[]string{"Find the refund bug", "Tech screen", "Design a safe client"}},
		{"?topic=nothing-has-this", []string{"Nothing matches these tags."},
			[]string{"Find the refund bug", "Rapid-fire questions"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := b.get("/" + tt.query)
			if p.status != 200 {
				t.Fatalf("status %d", p.status)
			}
			p.mustContain(t, tt.shown...)
			// Titles also appear in filter links for nothing; check the catalogue links.
			for _, g := range tt.gone {
				if strings.Contains(p.body, ">"+g+"</a>") {
					t.Errorf("filtered catalogue still lists %q", g)
				}
			}
		})
	}
}

func TestProblemAnswerRevealedBySubmitting(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	alice, bob := ts.newBrowser(t), ts.newBrowser(t)
	hidden := []string{"RUBRIC-1-MARKER", "RUBRIC-2-MARKER", "STRONG-MARKER", "PITFALL-MARKER",
		"GUIDANCE-MARKER", "MODEL-ANSWER-MARKER"}

	p := alice.post("/problems/refund-bug/answer", url.Values{"answer": {"   "}})
	if p.status != http.StatusUnprocessableEntity {
		t.Fatalf("empty answer: status %d; want 422", p.status)
	}
	p.mustContain(t, "Write an answer before submitting", `aria-invalid="true"`)
	p.mustNotContain(t, hidden...)

	p = alice.post("/problems/refund-bug/answer", url.Values{"answer": {"It retries <b>without</b> a key."}})
	if p.status != 200 {
		t.Fatalf("after submit: status %d", p.status)
	}
	p.mustContain(t, hidden...)
	p.mustContain(t, "Shown because you submitted an answer.", "It retries &lt;b&gt;without&lt;/b&gt; a key.")
	p.mustNotContain(t, "Reveal the rubric and model answer without answering", "<b>without</b>")

	// Persisted: a fresh request shows it again; another user still sees nothing.
	alice.get("/problems/refund-bug").mustContain(t, hidden...)
	bob.get("/problems/refund-bug").mustNotContain(t, hidden...)
	// Answering one problem reveals nothing of another.
	alice.get("/problems/design-client").mustNotContain(t, "DESIGN-MODEL-MARKER")
}

func TestProblemAnswerRevealedByChoice(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	b.get("/problems/design-client").mustNotContain(t, "DESIGN-MODEL-MARKER")
	p := b.post("/problems/design-client/reveal", nil)
	if p.status != 200 {
		t.Fatalf("after reveal: status %d", p.status)
	}
	p.mustContain(t, "DESIGN-MODEL-MARKER", "Shown because you chose to reveal it.")

	// Answering afterwards keeps the recorded reason: the user looked first.
	b.post("/problems/design-client/answer", url.Values{"answer": {"my answer"}}).
		mustContain(t, "Shown because you chose to reveal it.", "my answer")
}

func TestHintReveal(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	reveal := func(part, hint string) page {
		return b.post("/problems/refund-bug/hints", url.Values{"part": {part}, "hint": {hint}})
	}
	steps := []struct {
		name       string
		part, hint string
		wantStatus int
		shown      []string
		hidden     []string
	}{
		{"out of order", "1", "2", http.StatusConflict, []string{"reveal hint 1 of part 1 first"}, []string{"HINT-1-2-MARKER"}},
		{"first", "1", "1", 200, []string{"HINT-1-1-MARKER", "Reveal hint 2 of 3"}, []string{"HINT-1-2-MARKER", "HINT-2-1-MARKER"}},
		{"first again", "1", "1", 200, []string{"HINT-1-1-MARKER", "Reveal hint 2 of 3"}, []string{"HINT-1-2-MARKER"}},
		{"second", "1", "2", 200, []string{"HINT-1-1-MARKER", "HINT-1-2-MARKER", "Reveal hint 3 of 3"}, []string{"HINT-1-3-MARKER"}},
		{"third", "1", "3", 200, []string{"HINT-1-3-MARKER", "All 3 hints shown."}, []string{"Reveal hint 4"}},
		{"no such hint", "1", "4", http.StatusBadRequest, []string{"Part 1 has no hint 4."}, nil},
		{"no such part", "9", "1", http.StatusBadRequest, []string{"This problem has no part 9."}, nil},
		{"not a number", "one", "1", http.StatusBadRequest, []string{"needs a part number"}, nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			p := reveal(st.part, st.hint)
			if p.status != st.wantStatus {
				t.Fatalf("status %d; want %d", p.status, st.wantStatus)
			}
			p.mustContain(t, st.shown...)
			p.mustNotContain(t, st.hidden...)
		})
	}
	// Persisted across requests; hints never reveal the answer material.
	p := b.get("/problems/refund-bug")
	p.mustContain(t, "HINT-1-1-MARKER", "HINT-1-2-MARKER", "HINT-1-3-MARKER", "Reveal hint 1 of 1")
	p.mustNotContain(t, "RUBRIC-1-MARKER", "MODEL-ANSWER-MARKER", "HINT-2-1-MARKER")
	ts.newBrowser(t).get("/problems/refund-bug").mustNotContain(t, "HINT-1-1-MARKER")
}

func TestSetAnswers(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	p := b.post("/sets/rapid/questions/what-is-rag/answer", url.Values{"answer": {"Retrieval, then generation."}})
	if p.status != 200 {
		t.Fatalf("status %d", p.status)
	}
	p.mustContain(t, "Q1-MODEL-MARKER", "Q1-KEY-MARKER", "Retrieval, then generation.", "Shown because you submitted an answer.")
	p.mustNotContain(t, "Q2-GUIDANCE-MARKER", "Q2-KEY-MARKER")

	p = b.post("/sets/rapid/questions/a-project-you-led/reveal", nil)
	p.mustContain(t, "Q1-MODEL-MARKER", "Q2-GUIDANCE-MARKER", "Q2-KEY-MARKER", "Shown because you chose to reveal it.")

	p = b.post("/sets/rapid/questions/what-is-rag/answer", url.Values{"answer": {""}})
	if p.status != http.StatusUnprocessableEntity {
		t.Errorf("empty answer: status %d; want 422", p.status)
	}
	p.mustContain(t, `id="answer-what-is-rag-error"`)

	if p := b.post("/sets/rapid/questions/no-such-question/answer", url.Values{"answer": {"x"}}); p.status != 404 {
		t.Errorf("unknown question: status %d; want 404", p.status)
	}
	if p := b.post("/sets/nope/questions/what-is-rag/reveal", nil); p.status != 404 {
		t.Errorf("unknown set: status %d; want 404", p.status)
	}
}

func TestCrossOriginPostRefused(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	tests := []struct {
		name       string
		header     map[string]string
		wantStatus int
	}{
		{"cross-site fetch metadata", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"same origin fetch metadata", map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusOK},
		{"same origin", map[string]string{"Origin": ""}, http.StatusOK}, // Origin filled in below
		{"no browser headers (curl)", nil, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/problems/design-client/reveal", nil)
			for k, v := range tt.header {
				if k == "Origin" && v == "" {
					v = ts.URL
				}
				req.Header.Set(k, v)
			}
			p := b.do(req)
			if p.status != tt.wantStatus {
				t.Fatalf("status %d; want %d", p.status, tt.wantStatus)
			}
			if tt.wantStatus == http.StatusForbidden {
				p.mustContain(t, "sent from another site")
			}
		})
	}
}

func TestIdentityCookie(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	tests := []struct {
		name       string
		tls        bool
		cookie     string
		wantNew    bool
		wantSecure bool
	}{
		{"first visit", false, "", true, false},
		{"first visit over TLS", true, "", true, true},
		{"known id kept", false, "0123456789abcdef0123456789abcdef", false, false},
		{"malformed id replaced", false, "../../etc/passwd", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := "http://faultline.test/"
			if tt.tls {
				target = "https://faultline.test/" // httptest fills in req.TLS
			}
			req := httptest.NewRequest(http.MethodGet, target, nil)
			if tt.cookie != "" {
				req.AddCookie(&http.Cookie{Name: userCookie, Value: tt.cookie})
			}
			rec := httptest.NewRecorder()
			ts.app.ServeHTTP(rec, req)
			cookies := rec.Result().Cookies()
			if !tt.wantNew {
				if len(cookies) != 0 {
					t.Fatalf("a valid id was replaced: %v", cookies)
				}
				return
			}
			if len(cookies) != 1 || cookies[0].Name != userCookie {
				t.Fatalf("cookies = %v; want one %s", cookies, userCookie)
			}
			c := cookies[0]
			if !validUserID(c.Value) || c.Value == tt.cookie {
				t.Errorf("cookie value %q is not a fresh 128-bit hex id", c.Value)
			}
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != tt.wantSecure || c.MaxAge < 86400*365 {
				t.Errorf("cookie attributes = %+v; want HttpOnly, Lax, Secure=%v, long-lived", c, tt.wantSecure)
			}
		})
	}
	if newUserID() == newUserID() {
		t.Error("two new user ids are equal")
	}
}

// TestIdentityCookieBehindProxy: the cookie is Secure when a trusted
// proxy says the client's connection was TLS, and not when anyone else
// says so. httptest requests come from 192.0.2.1.
func TestIdentityCookieBehindProxy(t *testing.T) {
	tests := []struct {
		name       string
		trusted    string
		proto      string
		wantSecure bool
	}{
		{"trusted proxy says https", "192.0.2.1", "https", true},
		{"trusted proxy says http", "192.0.2.0/24", "http", false},
		{"untrusted peer says https", "10.0.0.1", "https", false},
		{"no proxies configured", "", "https", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proxies, err := clientaddr.Parse(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			app, _ := newTestApp(t, Config{Catalog: testCatalog(), Proxies: proxies})
			req := httptest.NewRequest(http.MethodGet, "http://faultline.test/", nil)
			req.Header.Set("X-Forwarded-Proto", tt.proto)
			req.Header.Set("X-Forwarded-For", "198.51.100.7")
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			cookies := rec.Result().Cookies()
			if len(cookies) != 1 {
				t.Fatalf("cookies = %v; want one", cookies)
			}
			if cookies[0].Secure != tt.wantSecure {
				t.Errorf("Secure = %v; want %v", cookies[0].Secure, tt.wantSecure)
			}
		})
	}
}

func TestErrorsNeverLeakInternals(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	ts.app.Echo().GET("/test/render-fails", func(c echoContext) error {
		return render(c, http.StatusOK, failingComponent{})
	})
	ts.app.Echo().GET("/test/panics", func(c echoContext) error {
		panic("SECRET-PANIC-DETAIL")
	})
	ts.app.Echo().GET("/test/store-fails", func(c echoContext) error {
		return errors.New("storage: SECRET-SQL-DETAIL")
	})
	b := ts.newBrowser(t)
	for _, path := range []string{"/test/render-fails", "/test/panics", "/test/store-fails"} {
		t.Run(path, func(t *testing.T) {
			p := b.get(path)
			if p.status != http.StatusInternalServerError {
				t.Fatalf("status %d; want 500", p.status)
			}
			p.mustContain(t, "Something went wrong", "Back to the catalogue")
			p.mustNotContain(t, "SECRET", "goroutine", ".go:")
		})
	}
}

func TestStaticAssets(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	home := b.get("/")
	css := regexp.MustCompile(`href="(/static/site\.css\?v=[0-9a-f]+)"`).FindStringSubmatch(home.body)
	if css == nil {
		t.Fatal("home page does not link a versioned site.css")
	}
	tests := []struct {
		path, wantType, wantCache string
		wantStatus                int
	}{
		{css[1], "text/css", "immutable", 200},
		{"/static/site.css", "text/css", "max-age=300", 200},
		{"/static/highlight.css", "text/css", "max-age", 200},
		{"/static/nothing.css", "text/html", "", 404},
		{"/static/../server.go", "text/html", "", 404},
		{"/healthz", "text/plain", "no-store", 200},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p := b.get(tt.path)
			if p.status != tt.wantStatus {
				t.Fatalf("status %d; want %d", p.status, tt.wantStatus)
			}
			if !strings.HasPrefix(p.header.Get("Content-Type"), tt.wantType) {
				t.Errorf("Content-Type = %q; want %s", p.header.Get("Content-Type"), tt.wantType)
			}
			if !strings.Contains(p.header.Get("Cache-Control"), tt.wantCache) {
				t.Errorf("Cache-Control = %q; want it to contain %q", p.header.Get("Cache-Control"), tt.wantCache)
			}
		})
	}
	if p := b.get("/healthz"); p.body != "ok" {
		t.Errorf("/healthz body = %q; want ok", p.body)
	}
	if p := b.get("/static/highlight.css"); !strings.Contains(p.body, ".chroma") {
		t.Error("highlight.css has no .chroma rules")
	}
}

func TestHeadAndProbesCarryNoCookie(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	tests := []struct {
		method, path string
		wantStatus   int
		wantCookie   bool
	}{
		{http.MethodHead, "/", 200, true},
		{http.MethodHead, "/problems/refund-bug", 200, true},
		{http.MethodHead, "/problems/nope", 404, true},
		{http.MethodGet, "/healthz", 200, false},
		{http.MethodHead, "/healthz", 200, false},
		{http.MethodGet, "/static/site.css", 200, false},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, ts.URL+tt.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d; want %d", resp.StatusCode, tt.wantStatus)
			}
			if tt.method == http.MethodHead && len(body) != 0 {
				t.Errorf("HEAD response has a %d-byte body", len(body))
			}
			if got := len(resp.Cookies()) > 0; got != tt.wantCookie {
				t.Errorf("sets a cookie: %v; want %v", got, tt.wantCookie)
			}
		})
	}
}
