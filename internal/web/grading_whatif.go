package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// What-if replays (issue 30). A failing scenario's part of a stored run
// offers to make its shown run again with one thing changed: a fault
// switched off, the crash removed, or one worker held until another's call
// has ended. The replay is the run's code, seed, scenario and crash point
// with that Variation (gradewire.Variation), graded through the same
// places and queue as a Grade (gradeReplay); the page then says which
// invariants changed verdict. Nothing is stored: the grade stays as it
// was. Without a script the choices are a form on a page of their own
// (GET, like the scenario's part: a replay changes nothing), and the
// answer is that page again with the result.

// The what-if form's one field, and its values: fault-N switches off the
// scenario's Nth scripted fault, no-crash removes the crash point, and
// wait-N-after-M holds the Nth worker until the Mth's call has ended
// (workers numbered in the order they are called).
const (
	whatIfField   = "change"
	whatIfNoCrash = "no-crash"
)

// whatIfChoice is one change the form offers.
type whatIfChoice struct {
	Value string // the form's value
	Label string // what the change does, as a sentence's start: "Deliver the lost reply on request 1"
	Note  string // where in the run it is, "" when nothing to say
	// Without is what the result's heading follows "with"/"without" by.
	Heading   string
	variation gradewire.Variation
}

// whatIfMenu is what can be changed in a scenario's shown run.
type whatIfMenu struct {
	Choices []whatIfChoice
	// Unfired are the scripted faults that did not fire in the run:
	// switching one off would change nothing, so none is offered.
	Unfired []string
	faults  []gradewire.FaultChoice
	workers []string
	crash   *gradewire.CrashChoice
}

// whatIfWorkers are the workers of a scenario's run, in the order they
// are first called.
func whatIfWorkers(s gradewire.ScenarioReport) []string {
	var out []string
	for _, iv := range s.Invocations {
		if iv.Worker != "" && !contains(out, iv.Worker) {
			out = append(out, iv.Worker)
		}
	}
	return out
}

// newWhatIfMenu is the menu of s, a failing scenario whose report records
// its shown run's choices; false when it records none (a report from
// before what-if replays, or a scenario that did not fail).
func newWhatIfMenu(s gradewire.ScenarioReport) (whatIfMenu, bool) {
	rc := runChoicesOf(s)
	if rc == nil || s.Status != gradewire.StatusFail {
		return whatIfMenu{}, false
	}
	m := whatIfMenu{faults: rc.Faults, workers: whatIfWorkers(s), crash: rc.Crash}
	base := gradewire.Variation{Scenario: s.Name, Run: rc.Run}
	for i, f := range rc.Faults {
		if !f.Fired {
			m.Unfired = append(m.Unfired, f.Text)
			continue
		}
		v := base
		v.Drop = []string{f.ID}
		c := whatIfChoice{Value: "fault-" + strconv.Itoa(i+1), Label: faultOffLabel(f), Heading: "Without " + f.Text, variation: v}
		if f.At != "" {
			c.Note = "it fired at " + f.At
		}
		m.Choices = append(m.Choices, c)
	}
	if c := rc.Crash; c != nil && c.Fired {
		v := base
		v.NoCrash = true
		note := c.Worker + "'s process died " + c.Point
		if c.At != "" {
			note += ", at " + c.At
		}
		m.Choices = append(m.Choices, whatIfChoice{Value: whatIfNoCrash, Label: "No crash here: " + c.Worker + "'s process lives on",
			Note: note, Heading: "Without the crash of " + c.Worker, variation: v})
	}
	for j, first := range m.workers {
		for i, then := range m.workers {
			if i == j {
				continue
			}
			v := base
			v.Holds = []gradewire.Hold{{Actor: then, Until: first}}
			m.Choices = append(m.Choices, whatIfChoice{Value: fmt.Sprintf("wait-%d-after-%d", i+1, j+1),
				Label: "Let " + then + " start after " + first + " ends", Heading: "With " + then + " starting after " + first + " ends", variation: v})
		}
	}
	return m, len(m.Choices) > 0
}

// faultOffLabel says what switching f off does: a message that was lost
// is delivered, any other fault does not happen.
func faultOffLabel(f gradewire.FaultChoice) string {
	switch f.Class {
	case gradewire.FaultLostReply, gradewire.FaultLostRequest:
		return "Deliver " + f.Text
	}
	return "Switch off " + f.Text
}

// choose finds the change the form's value names. Its error is for the
// user: what was wrong with the value, and what the run has instead.
func (m whatIfMenu) choose(value string) (whatIfChoice, error) {
	value = strings.TrimSpace(value)
	for _, c := range m.Choices {
		if c.Value == value {
			return c, nil
		}
	}
	switch rest, ok := strings.CutPrefix(value, "fault-"); {
	case value == "":
		return whatIfChoice{}, errors.New("Choose one thing to change in the run, then replay it.")
	case ok:
		n, err := strconv.Atoi(rest)
		switch {
		case err != nil:
			return whatIfChoice{}, fmt.Errorf("%q names no fault: a fault is named by its number, as in fault-1.", value)
		case n < 1 || n > len(m.faults):
			return whatIfChoice{}, fmt.Errorf("There is no fault %d in this run: %s.", n, m.faultsWords())
		default:
			return whatIfChoice{}, fmt.Errorf("Fault %d, %s, did not fire in this run, so switching it off would change nothing.", n, m.faults[n-1].Text)
		}
	case value == whatIfNoCrash:
		return whatIfChoice{}, errors.New("This run has no crash to remove: every process lived to the end.")
	case strings.HasPrefix(value, "wait-"):
		var i, j int
		if _, err := fmt.Sscanf(value, "wait-%d-after-%d", &i, &j); err != nil || value != fmt.Sprintf("wait-%d-after-%d", i, j) {
			return whatIfChoice{}, fmt.Errorf("%q names no wait: write it as wait-2-after-1 (worker 2 starts after worker 1 ends).", value)
		}
		for _, n := range []int{i, j} {
			if n < 1 || n > len(m.workers) {
				return whatIfChoice{}, fmt.Errorf("There is no worker %d in this run: %s.", n, m.workersWords())
			}
		}
		return whatIfChoice{}, fmt.Errorf("A worker cannot wait for itself (%s): choose two different workers.", value)
	}
	return whatIfChoice{}, fmt.Errorf("%q is not a change this page knows: choose one of the list (fault-N, no-crash or wait-N-after-M).", value)
}

// faultsWords says how the run's faults are numbered.
func (m whatIfMenu) faultsWords() string {
	switch len(m.faults) {
	case 0:
		return "its scenario scripts no fault"
	case 1:
		return "it has one fault, fault 1"
	}
	return fmt.Sprintf("its faults are numbered 1 to %d", len(m.faults))
}

// workersWords says how the run's workers are numbered.
func (m whatIfMenu) workersWords() string {
	switch len(m.workers) {
	case 0:
		return "it calls no worker"
	case 1:
		return "it has one worker, 1 (" + m.workers[0] + ")"
	}
	return fmt.Sprintf("its workers are numbered 1 to %d (%s)", len(m.workers), strings.Join(m.workers, ", "))
}

// invariantChange is one invariant's verdict before and after a change.
type invariantChange struct {
	Title         string
	Before, After string // held, violated, not_checked
	Message       string // the replay's evidence, for a violation
}

// whatIfResult is a replay's answer: the scenario's verdict with the
// change, and its invariants' verdicts beside the grade's.
type whatIfResult struct {
	Choice  whatIfChoice
	Status  string
	Changed []invariantChange
	Same    []invariantChange
	Replay  failedScenario
}

// newWhatIfResult compares the stored scenario with its replay, by
// invariant, in the stored order (an invariant only one of them judged
// counts as not checked in the other).
func newWhatIfResult(c whatIfChoice, before, after gradewire.ScenarioReport, story *gradewire.Story) whatIfResult {
	r := whatIfResult{Choice: c, Status: after.Status, Replay: newFailedScenario(after, story, "what-if-")}
	afterByID := map[string]gradewire.InvariantResult{}
	for _, inv := range after.Invariants {
		afterByID[inv.ID] = inv
	}
	seen := map[string]bool{}
	add := func(title, b string, a gradewire.InvariantResult) {
		if a.Status == "" {
			a.Status = gradewire.InvariantNotChecked
		}
		ch := invariantChange{Title: title, Before: b, After: a.Status}
		if a.Status == gradewire.InvariantViolated {
			ch.Message = a.Message
		}
		if b == a.Status {
			r.Same = append(r.Same, ch)
		} else {
			r.Changed = append(r.Changed, ch)
		}
	}
	for _, inv := range before.Invariants {
		seen[inv.ID] = true
		add(inv.Title, inv.Status, afterByID[inv.ID])
	}
	for _, inv := range after.Invariants {
		if !seen[inv.ID] {
			add(inv.Title, gradewire.InvariantNotChecked, inv)
		}
	}
	return r
}

// verdictWord is an invariant's verdict in the what-if's words.
func verdictWord(status string) string {
	switch status {
	case gradewire.InvariantHeld:
		return "held"
	case gradewire.InvariantViolated:
		return "broken"
	}
	return "not checked"
}

// whatIfPage is a failing scenario's what-if: its menu, and the answer to
// a change asked for (Result), or what was wrong with it (Problem).
type whatIfPage struct {
	Problem  *problems.Problem
	RunID    int64
	RunURL   string
	URL      string // this page's, the form's action
	Scenario gradewire.ScenarioReport
	Menu     whatIfMenu
	Asked    string // the form's value, to keep it chosen
	Invalid  string
	Result   *whatIfResult
	// Alone marks the part on a page of its own, where its headings are
	// the page's second and third levels (in a report, fourth and fifth).
	Alone bool
	// Script and CSS are what-if.js and what-if.css, which a report's
	// page loads when it brings the part in.
	Script, CSS string
}

// whatIfURL is the what-if page of a stored run's scenario.
func whatIfURL(runURL, name string) string {
	return runURL + "/scenarios/" + url.PathEscape(name) + "/what-if"
}

// gradeRunWhatIf serves a failing scenario's what-if: the menu alone, or,
// with a change asked for, the replay's answer beside it (?part=1: the
// part alone, for the script, which shows it in place).
func (s *Server) gradeRunWhatIf(c echo.Context) error {
	p, run, err := s.ownedRun(c)
	if err != nil {
		return err
	}
	name := c.Param("name")
	missing := notFound("Grade run " + strconv.FormatInt(run.ID, 10) + " has no scenario " + strconv.Quote(name) + " in its report.")
	if run.Status != storage.GradeDone || run.ReportJSON == nil {
		return missing
	}
	report, err := decodeReport(run.ReportJSON)
	if err != nil {
		return err
	}
	var sc *gradewire.ScenarioReport
	for i := range report.Scenarios {
		if report.Scenarios[i].Name == name {
			sc = &report.Scenarios[i]
		}
	}
	if sc == nil {
		return missing
	}
	runURL := gradeRunURL(p.Slug, run.ID)
	page := whatIfPage{Problem: p, RunID: run.ID, RunURL: runURL, URL: whatIfURL(runURL, name), Scenario: *sc,
		Script: s.assets.url("what-if.js"), CSS: s.assets.url("what-if.css")}
	menu, ok := newWhatIfMenu(*sc)
	if !ok {
		why := "This scenario passed: what-if replays change a failing run."
		if sc.Status == gradewire.StatusFail {
			why = "This report does not record the choices of its runs (it was graded before what-if replays), so there is nothing to change: grade again to try them."
		}
		return s.renderWhatIf(c, http.StatusNotFound, page, &replayRefused{status: http.StatusNotFound, message: why})
	}
	page.Menu = menu
	values := c.QueryParams()
	if _, asked := values[whatIfField]; !asked {
		return s.renderWhatIf(c, http.StatusOK, page, nil)
	}
	page.Asked = c.QueryParam(whatIfField)
	choice, err := menu.choose(page.Asked)
	if err != nil {
		page.Invalid = err.Error()
		return s.renderWhatIf(c, http.StatusBadRequest, page, nil)
	}
	if s.grading == nil {
		return s.renderWhatIf(c, http.StatusServiceUnavailable, page, &replayRefused{status: http.StatusServiceUnavailable,
			message: "Grading is off on this server, so this run cannot be replayed."})
	}
	v := choice.variation
	req := grading.Request{Problem: p.Slug, Source: run.Source, Seed: replaySeed(report, run), Only: []string{name},
		KeepPassed: true, Variation: &v, File: runFile(p, run)}
	rep, err := s.gradeReplay(c.Request().Context(), req, "this what-if")
	var refused *replayRefused
	if errors.As(err, &refused) {
		return s.renderWhatIf(c, refused.status, page, refused)
	}
	if err != nil {
		return err
	}
	var after *gradewire.ScenarioReport
	for i := range rep.Scenarios {
		if rep.Scenarios[i].Name == name {
			after = &rep.Scenarios[i]
		}
	}
	if after == nil || after.Status == gradewire.StatusError || rep.Status == gradewire.StatusError {
		// The code graded before; a replay that cannot run it is the
		// grader's fault (the scenarios file changed, a limit), not a
		// verdict on the change.
		s.log.Error("web: a what-if replay gave no verdict", "problem", p.Slug, "run", run.ID, "scenario", name,
			"change", choice.Value, "status", rep.Status, "message", rep.Message)
		return s.renderWhatIf(c, http.StatusInternalServerError, page, &replayRefused{status: http.StatusInternalServerError,
			message: "The replay with this change gave no verdict, so there is nothing to compare. That is a fault of the grader (it is logged), not of your code: the grade stands as it was."})
	}
	story := rep.Story
	if story == nil {
		story = report.Story
	}
	res := newWhatIfResult(choice, *sc, *after, story)
	page.Result = &res
	return s.renderWhatIf(c, http.StatusOK, page, nil)
}

// renderWhatIf answers with the what-if part (?part=1) or its page; a
// refused replay is said in place, with a way to try again when that may
// help.
func (s *Server) renderWhatIf(c echo.Context, status int, page whatIfPage, refused *replayRefused) error {
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store")
	retry := ""
	if refused != nil && refused.retry > 0 {
		h.Set("Retry-After", strconv.Itoa(retrySeconds(refused.retry)))
		// The page's address without part=1: the script asks for the
		// part itself, and without one the link is a page.
		q := c.Request().URL.Query()
		q.Del("part")
		retry = page.URL + "?" + q.Encode()
	}
	message := ""
	if refused != nil {
		message = refused.message
	}
	if c.QueryParam("part") != "" {
		return render(c, status, whatIfPart(page, message, retry))
	}
	m := s.withGradeReport(s.meta("What if: " + page.Scenario.Title + ": grade run " + strconv.FormatInt(page.RunID, 10) + ": " + page.Problem.Title))
	m.CSS = append(m.CSS, page.CSS)
	m.Scripts = append(m.Scripts, page.Script)
	return render(c, status, whatIfView(m, page, message, retry))
}

// whatIfID is an id within a scenario's what-if part, unique on a report's
// page.
func whatIfID(page whatIfPage, suffix string) string {
	return "what-if-" + page.Scenario.Name + "-" + suffix
}

// whatIfVerdict says how the scenario ended with the change.
func whatIfVerdict(status string) string {
	switch status {
	case gradewire.StatusPass:
		return "the scenario passes"
	case gradewire.StatusFail:
		return "the scenario still fails"
	}
	return "the scenario could not run"
}

// whatIfHref is where a failing scenario of a stored run offers its
// what-if replays; "" when it offers none (a report not of a stored run,
// or one that records no choices of its runs).
func (v reportView) whatIfHref(s gradewire.ScenarioReport) string {
	if v.RunURL == "" || v.Check {
		return ""
	}
	if _, ok := newWhatIfMenu(s); !ok {
		return ""
	}
	return whatIfURL(v.RunURL, s.Name)
}

// alone is page shown on a page of its own.
func alone(page whatIfPage) whatIfPage {
	page.Alone = true
	return page
}

func urlPathEscape(s string) string { return url.PathEscape(s) }
