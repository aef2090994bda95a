package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/bytesize"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// codeWorkspaceState is what the problem page shows of the user's code:
// their draft (or the starter), and their latest grade run.
type codeWorkspaceState struct {
	Code      string // the textarea's text: the draft, or the starter
	FromDraft bool
	GradingOn bool
	Total     int           // scenarios that grade the problem; 0 when unknown
	Latest    *gradeRunView // nil before the first Grade
	// MarkDiagnostics: the latest report's diagnostics belong to the code
	// shown (it was graded as it is), so the script marks them in it.
	MarkDiagnostics bool
	SaveURL         string
	GradeURL        string
	CheckURL        string
	MergeSrc        string // the comparison bundle, loaded on first use
	LastGraded      string // the code of the latest finished Grade; "" before one
	StarterRef      string // the starter's file name, for the label
	Starter         string // the starter of Lang
	Lang            string // the language of Code: storage.LangGo or LangPython
	// Langs is the language switch's options, when the problem can be
	// answered in more than one; nil otherwise (no switch).
	Langs []langChoice
}

// The editor's text sizes, in CSS pixels; the default matches the
// statement's code.
var fontSizes = []int{12, 13, 14, 16, 18, 20}

const defaultFontSize = 14

// gradeRunView is a grade run as pages show it.
type gradeRunView struct {
	ID          int64
	Seed        int64
	Status      storage.GradeStatus
	URL         string
	EventsURL   string
	Report      *gradewire.Report // done only
	SourceHash  string            // sourceHash of the code graded
	Message     string
	RetryAfterS int
	Finished    int // running only: scenarios finished so far
	Total       int
	Already     bool   // the run page was reached by a second Grade while this ran
	Language    string // storage.LangGo or LangPython: what the run graded
}

func problemURL(slug string) string { return "/problems/" + slug }

func gradeRunURL(slug string, id int64) string {
	return problemURL(slug) + "/runs/" + strconv.FormatInt(id, 10)
}

// codeWorkspaceOf loads the workspace of p for the user's attempt at it
// (0: none yet, so the starter and no run).
//
// The workspace is in the language want ("": the one of the user's most
// recently saved draft), which the caller has checked (codeLangOf): its
// draft or starter, and its latest run.
func (s *Server) codeWorkspaceOf(ctx context.Context, attemptID int64, p *problems.Problem, want string) (codeWorkspaceState, error) {
	if p.Code == nil {
		return codeWorkspaceState{}, nil
	}
	lang, err := s.workspaceLang(ctx, attemptID, p, want)
	if err != nil {
		return codeWorkspaceState{}, err
	}
	w := codeWorkspaceState{Code: lang.Starter, Starter: lang.Starter, Lang: lang.Name, GradingOn: s.grading != nil, Total: s.grading.scenarioTotal(p.Slug),
		SaveURL: problemURL(p.Slug) + "/code", GradeURL: problemURL(p.Slug) + "/grade", CheckURL: problemURL(p.Slug) + "/check",
		StarterRef: path.Base(lang.StarterPath), MergeSrc: s.assets.url("editor-merge.js")}
	if langs := codeLangsOf(p); len(langs) > 1 {
		for _, l := range langs {
			c := langChoice{Name: l.Name, Label: l.Label, Selected: l.Name == lang.Name, URL: langURL(p.Slug, l.Name)}
			if s.grading != nil {
				c.Why = s.gradeUnavailable(l)
			}
			w.Langs = append(w.Langs, c)
		}
	}
	if attemptID == 0 {
		return w, nil
	}
	d, err := s.store.CodeDraftIn(ctx, attemptID, lang.Name)
	switch {
	case err == nil:
		w.Code, w.FromDraft = d.Code, true
	case !errors.Is(err, storage.ErrNotFound):
		return w, err
	}
	run, err := s.store.LatestGradeRunIn(ctx, attemptID, lang.Name)
	if errors.Is(err, storage.ErrNotFound) {
		return w, nil
	}
	if err != nil {
		return w, err
	}
	v, err := s.gradeRunViewOf(ctx, p.Slug, run)
	if err != nil {
		return w, err
	}
	w.Latest = &v
	if run.Status == storage.GradeDone {
		w.LastGraded = run.Source
	}
	w.MarkDiagnostics = v.Report != nil && len(v.Report.Diagnostics) > 0 && run.Source == w.Code
	return w, nil
}

// gradeRunViewOf prepares a stored run for a page. A run stored as
// running whose owner stopped (its lease passed) is recorded as such.
func (s *Server) gradeRunViewOf(ctx context.Context, slug string, run storage.GradeRun) (gradeRunView, error) {
	v := gradeRunView{ID: run.ID, Seed: run.Seed, Language: run.Language, Status: run.Status, URL: gradeRunURL(slug, run.ID),
		EventsURL: gradeRunURL(slug, run.ID) + "/events", Message: run.Message, Total: s.grading.scenarioTotal(run.Problem),
		SourceHash: sourceHash(run.Source)}
	if run.Status == storage.GradeRunning {
		var live *liveRun
		if s.grading != nil {
			live = s.grading.lookup(run.ID)
		}
		if live != nil {
			p, _ := live.latest()
			v.Finished, v.Total = p.Finished, p.Total
			return v, nil
		}
		var err error
		if run, err = s.abandonRun(ctx, run); err != nil {
			return v, err
		}
		v.Status, v.Message = run.Status, run.Message
		if run.Status == storage.GradeRunning {
			return v, nil // graded by another instance, or this one has not registered it yet
		}
	}
	switch run.Status {
	case storage.GradeDone:
		if run.ReportJSON == nil {
			v.Message = trimmedMessage(run.Trimmed)
			break
		}
		r, err := decodeReport(run.ReportJSON)
		if err != nil {
			return v, err
		}
		v.Report = r
	case storage.GradeBusy:
		v.RetryAfterS = retrySeconds(run.RetryAfter)
	}
	return v, nil
}

// abandonRun records a run whose owner stopped (its lease has passed: no
// instance renews it) as a system error, and returns the run as it now
// stands. A run whose lease holds is left alone: another instance grades
// it, or this one is about to register it or has just recorded its end.
func (s *Server) abandonRun(ctx context.Context, run storage.GradeRun) (storage.GradeRun, error) {
	if _, err := s.store.ExpireGradeLease(ctx, run.ID, messageAbandoned); err != nil {
		return run, err
	}
	return s.store.GradeRun(ctx, run.ID)
}

// withCodeWorkspace adds the workspace's stylesheet and scripts to a
// problem page that has code. The editor bundle loads first (deferred
// scripts run in order) so the workspace script finds FaultlineEditor.
func (s *Server) withCodeWorkspace(m pageMeta, p *problems.Problem) pageMeta {
	if p.Code == nil {
		return m
	}
	m = s.withGradeReport(m)
	m.CSS = append(m.CSS, s.assets.url("code-workspace.css"))
	m.Scripts = append(m.Scripts, s.assets.url("editor.js"), s.assets.url("editor-tools.js"), s.assets.url("code-workspace.js"), s.assets.url("workspace.js"), s.assets.url("results-pane.js"))
	return m
}

// codeBodyLimit caps the body of the code routes: a source file of
// gradewire.MaxSourceBytes can triple in size when URL-encoded.
const codeBodyLimit = 3*gradewire.MaxSourceBytes + 4<<10

// routeBodyLimit is the body cap of a route whose bodies are larger than
// a form's; limitBody applies it.
func routeBodyLimit(route string) (int64, bool) {
	switch route {
	case "/problems/:slug/code", "/problems/:slug/grade", "/problems/:slug/check":
		return codeBodyLimit, true
	}
	return 0, false
}

// codeTooLarge is the message of a 413 for code.
func codeTooLarge(size int) string {
	what := "The code"
	if size > 0 {
		what = "The code is " + bytesize.Format(int64(size)) + "; it"
	}
	return fmt.Sprintf("%s is larger than the grader accepts (%s). It was not saved; your last saved draft is kept. Shorten the code and try again.",
		what, bytesize.Format(gradewire.MaxSourceBytes))
}

// codeValue reads the code field of a POSTed form. Line endings become
// \n: a browser sends a textarea with \r\n.
func codeValue(c echo.Context) (string, error) {
	form, err := readForm(c)
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge {
			return "", codeError(c, http.StatusRequestEntityTooLarge, codeTooLarge(0))
		}
		if errors.As(err, &he) {
			msg, _ := he.Message.(string)
			return "", codeError(c, he.Code, msg)
		}
		return "", err
	}
	if _, ok := form["code"]; !ok {
		return "", codeError(c, http.StatusBadRequest, "The form has no code field.")
	}
	code := strings.ReplaceAll(form.Get("code"), "\r\n", "\n")
	switch {
	case len(code) > gradewire.MaxSourceBytes:
		return "", codeError(c, http.StatusRequestEntityTooLarge, codeTooLarge(len(code)))
	case !utf8.ValidString(code):
		return "", codeError(c, http.StatusBadRequest, "The code is not valid UTF-8 text.")
	}
	return code, nil
}

// fromScript reports whether the request comes from the workspace script,
// which asks for JSON; a plain form gets pages and redirects.
func fromScript(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get("Accept"), "application/json")
}

// jsonError is the body of an error answered to the script.
type jsonError struct {
	Error string `json:"error"`
}

// codeError answers an error as JSON to the script, or as an error page.
func codeError(c echo.Context, status int, message string) error {
	if fromScript(c) {
		if err := c.JSON(status, jsonError{Error: message}); err != nil {
			return err
		}
		return errAnswered
	}
	return echo.NewHTTPError(status, message)
}

// errAnswered tells a handler that the response has already been written.
var errAnswered = errors.New("web: answered")

// answered turns errAnswered back into success for a handler's return.
func answered(err error) error {
	if errors.Is(err, errAnswered) {
		return nil
	}
	return err
}

// findCodeProblem is the problem in the URL, when it has code.
func (s *Server) findCodeProblem(c echo.Context) (*problems.Problem, error) {
	p, err := s.findProblem(c)
	if err != nil {
		return nil, err
	}
	if p.Code == nil {
		return nil, notFound("The problem " + p.Slug + " has no code to save or grade.")
	}
	return p, nil
}

// ownedRun is the grade run named in the URL when it belongs to the
// request's user and problem; anyone else's run is a 404, as if it did
// not exist.
func (s *Server) ownedRun(c echo.Context) (*problems.Problem, storage.GradeRun, error) {
	p, err := s.findCodeProblem(c)
	if err != nil {
		return nil, storage.GradeRun{}, err
	}
	missing := notFound("There is no grade run " + c.Param("id") + " of yours for this problem.")
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, storage.GradeRun{}, missing
	}
	userID, err := requireUser(c)
	if err != nil {
		return nil, storage.GradeRun{}, err
	}
	ctx := c.Request().Context()
	a, err := s.store.Attempt(ctx, userID, storage.KindProblem, p.Slug)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, storage.GradeRun{}, missing
	}
	if err != nil {
		return nil, storage.GradeRun{}, err
	}
	run, err := s.store.GradeRun(ctx, id)
	if errors.Is(err, storage.ErrNotFound) || err == nil && run.AttemptID != a.ID {
		return nil, storage.GradeRun{}, missing
	}
	return p, run, err
}

// codeRoutes are the code workspace's and grading's routes.
func (s *Server) codeRoutes() {
	e := s.echo
	e.POST("/problems/:slug/code", s.codeSave)
	e.POST("/problems/:slug/grade", s.gradeStart)
	e.POST("/problems/:slug/check", s.codeCheck)
	e.GET("/problems/:slug/runs/:id", s.gradeRunShow)
	e.GET("/problems/:slug/runs/:id/events", s.gradeRunEvents)
	e.GET("/problems/:slug/runs/:id/scenarios/:name", s.gradeRunScenario)
	e.GET("/problems/:slug/runs/:id/scenarios/:name/what-if", s.gradeRunWhatIf)
}

// seedValue is the seed the Grade form offers: the latest run's, so a
// replay stays chosen across reloads, else the default.
func seedValue(w codeWorkspaceState) string {
	if w.Latest != nil && w.Latest.Seed != 0 {
		return strconv.FormatInt(w.Latest.Seed, 10)
	}
	return strconv.Itoa(defaultSeed)
}

// The results' share of the code's column on a wide screen, in percent,
// as results-pane.js lets the divider move it. Whatever the share, the
// editor keeps its minimum height (code-workspace.css): the results give
// way first.
const (
	resultsMin     = 15
	resultsMax     = 85
	resultsDefault = 40
)
