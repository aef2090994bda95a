package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/storage"
)

const pyStarter = "import refundkit\n\n# PY-STARTER\nasync def refund_money(request_id):\n    pass\n"

// withPython makes the graded problem one its kit grades in Python too.
func withPython(cfg *Config) {
	cat := gradingCatalog()
	code := *cat.Problems[0].Code
	code.PythonStarter, code.PythonStarterPath = pyStarter, "problems/async-refund/starter/refund.py"
	p := *cat.Problems[0]
	p.Code = &code
	cat.Problems[0] = &p
	cfg.Catalog = cat
}

// postLang posts code in lang ("" sends no lang field) to a workspace
// route, as the script does (JSON) or as a plain form, without following
// redirects.
func (b *browser) postLang(route, lang, code string, script bool) page {
	b.t.Helper()
	form := url.Values{"code": {code}}
	if lang != "" {
		form.Set("lang", lang)
	}
	req, err := http.NewRequest(http.MethodPost, b.ts.URL+"/problems/"+gradedSlug+"/"+route, strings.NewReader(form.Encode()))
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
		b.t.Fatalf("POST %s: %v", route, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, body: string(body), header: resp.Header}
}

// The switch is there only for a problem answered in Python too; each
// language shows its own starter, file name and editor mode.
func TestLanguageSwitch(t *testing.T) {
	t.Run("Go only: no switch", func(t *testing.T) {
		b := newGradingTestServer(t, &fakeGrader{report: failingReport()}).newBrowser(t)
		pg := b.get("/problems/" + gradedSlug)
		pg.mustContain(t, `data-lang="go"`, "Code: refund.go", "STARTER-CODE")
		pg.mustNotContain(t, `id="lang-switch-form"`, `name="lang" value="python"`)
	})
	b := newGradingTestServer(t, &fakeGrader{report: failingReport()}, withPython).newBrowser(t)
	for _, tt := range []struct {
		name, path string
		want, not  []string
	}{
		{"Go by default", "/problems/" + gradedSlug,
			[]string{`<legend>Language</legend>`, `data-lang="go"`, "Code: refund.go", "STARTER-CODE",
				`<input type="radio" form="lang-switch-form" name="lang" value="go" checked>`, `<input type="radio" form="lang-switch-form" name="lang" value="python">`,
				`<form method="get" action="/problems/` + gradedSlug + `#code-lang"`, `id="lang-switch-button"`,
				`<input type="hidden" name="lang" value="go">`},
			[]string{"PY-STARTER"}},
		{"?lang=python", "/problems/" + gradedSlug + "?lang=python",
			[]string{`data-lang="python"`, "Code: refund.py", "PY-STARTER", `<input type="radio" form="lang-switch-form" name="lang" value="python" checked>`,
				`<input type="hidden" name="lang" value="python">`, "its API is in the Reference, under “In Python”"},
			[]string{"STARTER-CODE"}},
		{"?lang=go", "/problems/" + gradedSlug + "?lang=go", []string{`data-lang="go"`, "STARTER-CODE"}, []string{"PY-STARTER"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pg := b.get(tt.path)
			if pg.status != http.StatusOK {
				t.Fatalf("status %d", pg.status)
			}
			pg.mustContain(t, tt.want...)
			pg.mustNotContain(t, tt.not...)
		})
	}
}

// Each language keeps its own draft: saving one never touches the
// other's, back and forth; the page opens in the language last saved.
func TestDraftsPerLanguageSurviveSwitching(t *testing.T) {
	b := newGradingTestServer(t, &fakeGrader{report: failingReport()}, withPython).newBrowser(t)
	steps := []struct {
		lang, code string
		script     bool
	}{
		{"go", "package refund // GO-ONE", true},
		{"python", "# PY-ONE", true},
		{"go", "package refund // GO-TWO", false}, // the plain form's Save
		{"python", "# PY-TWO", false},
		{"", "package refund // GO-THREE", true}, // no lang: Go, as before the switch
	}
	drafts := map[string]string{}
	for _, st := range steps {
		p := b.postLang("code", st.lang, st.code, st.script)
		lang := st.lang
		if lang == "" {
			lang = "go"
		}
		switch {
		case st.script && p.status != http.StatusOK:
			t.Fatalf("autosave in %q: %d %s", st.lang, p.status, p.body)
		case !st.script && (p.status != http.StatusSeeOther || p.header.Get("Location") != "/problems/"+gradedSlug+"?lang="+lang+"#code-lang"):
			t.Fatalf("plain save in %q: %d to %q", st.lang, p.status, p.header.Get("Location"))
		}
		drafts[lang] = st.code
		for l, code := range drafts {
			b.get("/problems/"+gradedSlug+"?lang="+l).mustContain(t, code)
		}
		b.get("/problems/"+gradedSlug).mustContain(t, `data-lang="`+lang+`"`, st.code)
	}
}

// An unknown language is refused with a message naming it, and nothing
// saved is lost.
func TestUnknownLanguage(t *testing.T) {
	ts := newGradingTestServer(t, &fakeGrader{report: failingReport()}, withPython)
	b := ts.newBrowser(t)
	b.postLang("code", "python", "# KEPT-PY", true)
	b.postLang("code", "go", "package refund // KEPT-GO", true)
	for _, route := range []string{"code", "grade", "check"} {
		for _, script := range []bool{true, false} {
			p := b.postLang(route, "rust", "fn main() {} // LOST", script)
			if p.status != http.StatusBadRequest || !strings.Contains(p.body, "There is no language") ||
				!strings.Contains(p.body, "rust") || !strings.Contains(p.body, "your saved drafts are kept") {
				t.Errorf("%s in rust (script %v): %d %s", route, script, p.status, p.body)
			}
		}
	}
	pg := b.get("/problems/" + gradedSlug + "?lang=cobol")
	if pg.status != http.StatusBadRequest || !strings.Contains(pg.body, "cobol") {
		t.Errorf("?lang=cobol: %d %s", pg.status, pg.body)
	}
	b.get("/problems/"+gradedSlug+"?lang=go").mustContain(t, "KEPT-GO")
	b.get("/problems/"+gradedSlug+"?lang=python").mustContain(t, "KEPT-PY")

	// Python on a problem only Go answers is as unknown.
	goOnly := newGradingTestServer(t, &fakeGrader{report: failingReport()}).newBrowser(t)
	if p := goOnly.postLang("grade", "python", "# x", true); p.status != http.StatusBadRequest || !strings.Contains(p.body, `There is no language \"python\"`) {
		t.Errorf("Python Grade of a Go-only problem: %d %s", p.status, p.body)
	}
	if pg := goOnly.get("/problems/" + gradedSlug + "?lang=python"); pg.status != http.StatusBadRequest {
		t.Errorf("?lang=python on a Go-only problem: %d", pg.status)
	}
}

// Check and Grade send the selected language's code with its file name,
// so the service routes Python to Python; a run records its language, and
// the workspace shows the latest run of the language shown.
func TestGradeRoutesByLanguage(t *testing.T) {
	fake := &fakeGrader{report: failingReport()}
	ts := newGradingTestServer(t, fake, withPython)
	b := ts.newBrowser(t)
	for _, tt := range []struct {
		lang, code, file string
	}{
		{"python", "# PY-GRADED", "refund.py"},
		{"go", "package refund // GO-GRADED", "refund.go"},
		{"python", "# PY-GRADED-AGAIN", "refund.py"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			before := len(fake.jobsSoFar())
			p := b.postLang("check", tt.lang, tt.code+" CHECK", true)
			if p.status != http.StatusOK {
				t.Fatalf("Check: %d %s", p.status, p.body)
			}
			p = b.postLang("grade", tt.lang, tt.code, true)
			if p.status != http.StatusAccepted {
				t.Fatalf("Grade: %d %s", p.status, p.body)
			}
			var started gradeStarted
			if err := json.Unmarshal([]byte(p.body), &started); err != nil {
				t.Fatal(err)
			}
			waitUntilTrue(t, func() bool {
				r, err := ts.store.GradeRun(context.Background(), started.RunID)
				return err == nil && r.Status != storage.GradeRunning
			})
			jobs := fake.jobsSoFar()[before:]
			if len(jobs) != 2 || jobs[0].File != tt.file || jobs[1].File != tt.file || jobs[1].Source != tt.code {
				t.Fatalf("graded %+v; want a Check and a Grade of %s", jobs, tt.file)
			}
			run, err := ts.store.GradeRun(context.Background(), started.RunID)
			if err != nil || run.Language != tt.lang || run.Source != tt.code {
				t.Errorf("stored run: %q %q %v; want %s", run.Language, run.Source, err, tt.lang)
			}
			// The language's page shows this run's report, beside its code.
			pg := b.get("/problems/" + gradedSlug + "?lang=" + tt.lang)
			pg.mustContain(t, "LOST-REPLY-TITLE", started.RunURL, tt.code)
		})
	}
	// Go's page shows Go's run, not the later Python one.
	runs, err := ts.store.GradeRuns(context.Background(), 1)
	if err != nil || len(runs) != 3 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	b.get("/problems/"+gradedSlug+"?lang=go").mustContain(t, gradeRunURL(gradedSlug, runs[1].ID))
	b.get("/problems/"+gradedSlug+"?lang=go").mustNotContain(t, gradeRunURL(gradedSlug, runs[2].ID)+`"`)

	// The history lists every run, each with its language; a run's page
	// says what it graded.
	hist := b.get("/practice")
	hist.mustContain(t, `<th scope="col">Language</th>`)
	if got := strings.Count(hist.body, `<td data-label="Language">Python</td>`); got != 2 {
		t.Errorf("history lists %d Python runs; want 2", got)
	}
	if got := strings.Count(hist.body, `<td data-label="Language">Go</td>`); got != 1 {
		t.Errorf("history lists %d Go runs; want 1", got)
	}
	b.get(gradeRunURL(gradedSlug, runs[0].ID)).mustContain(t, "The code graded, in Python", "# PY-GRADED")
	b.get(gradeRunURL(gradedSlug, runs[1].ID)).mustContain(t, "The code graded, in Go")
}

// A Go-only history has no language column.
func TestGoOnlyHistoryHasNoLanguage(t *testing.T) {
	b := newGradingTestServer(t, &fakeGrader{report: failingReport()}).newBrowser(t)
	b.startGrade("package refund")
	b.get("/practice").mustNotContain(t, `>Language</th>`)
}

// Where Python cannot be graded, the switch says so with the reason, and a
// Python Grade is refused with it, its code saved, nothing graded.
func TestPythonUnavailable(t *testing.T) {
	const why = "python3 is not installed (WHY-MARKER)"
	fake := &fakeGrader{report: failingReport()}
	ts := newGradingTestServer(t, fake, withPython, func(c *Config) { c.PythonUnavailable = why })
	b := ts.newBrowser(t)
	pg := b.get("/problems/" + gradedSlug)
	pg.mustContain(t, `<input type="radio" form="lang-switch-form" name="lang" value="python" disabled aria-describedby="lang-why-python">`,
		`id="lang-why-python"`, "Python cannot be graded on this server: "+why)
	for _, route := range []string{"grade", "check"} {
		for _, script := range []bool{true, false} {
			code := "# SAVED-" + route + "-" + strconv.FormatBool(script)
			p := b.postLang(route, "python", code, script)
			if p.status != http.StatusServiceUnavailable || !strings.Contains(p.body, "WHY-MARKER") || !strings.Contains(p.body, "Your code is saved") {
				t.Errorf("Python %s (script %v): %d %s", route, script, p.status, p.body)
			}
			b.get("/problems/"+gradedSlug+"?lang=python").mustContain(t, code)
		}
	}
	if jobs := fake.jobsSoFar(); len(jobs) != 0 {
		t.Errorf("graded %d jobs; want none", len(jobs))
	}
	// Go grades as ever.
	if p := b.postLang("grade", "go", "package refund", true); p.status != http.StatusAccepted {
		t.Errorf("Go Grade: %d %s", p.status, p.body)
	}
}

// A replay of a passed scenario grades the run's code in the run's
// language, whichever the workspace shows now.
func TestReplayKeepsTheRunsLanguage(t *testing.T) {
	for _, tt := range []struct{ lang, file string }{{"python", "refund.py"}, {"go", "refund.go"}} {
		t.Run(tt.lang, func(t *testing.T) {
			g := &fakeGrader{report: failingReport()}
			ts := newGradingTestServer(t, g, withPython)
			b := ts.newBrowser(t)
			status, started := b.postJSON("/problems/"+gradedSlug+"/grade", url.Values{"code": {"# REPLAY-ME"}, "lang": {tt.lang}})
			runURL, _ := started["run_url"].(string)
			if status != http.StatusAccepted || runURL == "" {
				t.Fatalf("Grade: status %d, %v", status, started)
			}
			waitUntilTrue(t, func() bool { return b.get(runURL).header.Get("Refresh") == "" })
			// The workspace moves to the other language before the replay.
			b.postLang("code", map[string]string{"python": "go", "go": "python"}[tt.lang], "OTHER", true)
			replayed := failingReport()
			replayed.Scenarios = replayed.Scenarios[:1]
			replayed.Scenarios[0].Trace = []gradewire.TraceEvent{{At: "+0s", Actor: "worker-1", Kind: "call", Text: "REPLAYED-EVENT"}}
			g.mu.Lock()
			g.report = replayed
			g.mu.Unlock()
			before := len(g.graded())
			b.get(runURL+"/scenarios/happy-path?part=1").mustContain(t, "REPLAYED-EVENT")
			jobs := g.graded()[before:]
			if len(jobs) != 1 || jobs[0].File != tt.file || jobs[0].Source != "# REPLAY-ME" {
				t.Errorf("replay jobs %+v; want one of %s", jobs, tt.file)
			}
		})
	}
}
