package web

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/practice"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// screenStep is one step of a screen, resolved to the page it links to.
// Start is where practising the step begins: the problem, or the set's
// rapid-fire run. Note is the interviewer's and is not drawn for a
// candidate; it stays in content for the interviewer's view.
type screenStep struct {
	Kind, URL, Start, StartLabel, Title, Summary string
	Minutes                                      int
	Note                                         string
}

type screenPage struct {
	Screen *problems.Screen
	Tags   tagLinks
	Steps  []screenStep
	Run    *practice.ScreenView // the user's run of the whole screen; nil when none
}

// screenPracticePage is one step of practising a screen: the step and
// where it stands among the others.
type screenPracticePage struct {
	Screen *problems.Screen
	Steps  []screenStep
	Number int          // 1-based
	Clock  *screenClock // the screen's clock; nil when it is practised without one
}

// Timed reports whether the screen is being practised against its clock:
// moving between steps then tells the server, which counts each step.
func (p screenPracticePage) Timed() bool { return p.Clock != nil && p.Clock.Running }

func (p screenPracticePage) Step() screenStep { return p.Steps[p.Number-1] }

func screenPracticeURL(sc *problems.Screen, n int) string {
	return "/screens/" + sc.Slug + "/practice/" + strconv.Itoa(n)
}

// screenShow is the candidate's page of a screen: what it holds, in order,
// and a way to practise it step by step.
func (s *Server) screenShow(c echo.Context) error {
	sc, err := s.findScreen(c)
	if err != nil {
		return err
	}
	steps, err := s.screenSteps(c.Request().Context(), sc)
	if err != nil {
		return err
	}
	page := screenPage{Screen: sc, Tags: tagFilter{}.links(sc.Tags), Steps: steps}
	if page.Run, err = s.screenRunOf(c.Request().Context(), sc); err != nil {
		return err
	}
	return render(c, http.StatusOK, screenView(s.meta(sc.Title), page))
}

// screenPractice is GET /screens/:slug/practice/:step: one step of the
// screen, with the steps around it and the link that starts it.
func (s *Server) screenPractice(c echo.Context) error {
	sc, err := s.findScreen(c)
	if err != nil {
		return err
	}
	steps, err := s.screenSteps(c.Request().Context(), sc)
	if err != nil {
		return err
	}
	raw := c.Param("step")
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > len(steps) {
		name := strconv.Itoa(n)
		if err != nil {
			name = quoteForUser(raw)
		}
		return notFound(fmt.Sprintf("The screen %s has no step %s; its steps are numbered 1 to %d.", sc.Title, name, len(steps)))
	}
	run, err := s.screenRunOf(c.Request().Context(), sc)
	if err != nil {
		return err
	}
	page := screenPracticePage{Screen: sc, Steps: steps, Number: n, Clock: screenClockOf(run)}
	title := fmt.Sprintf("Step %d of %d: %s", n, len(steps), sc.Title)
	return render(c, http.StatusOK, screenPracticeView(s.withRunClock(s.meta(title)), page))
}

// screenSteps resolves a screen's items to the pages they link to.
func (s *Server) screenSteps(ctx context.Context, sc *problems.Screen) ([]screenStep, error) {
	var steps []screenStep
	for _, it := range sc.Items {
		step := screenStep{Minutes: it.Minutes, Note: it.Note}
		switch {
		case it.Problem != "":
			p, ok := s.catalog(ctx).Problem(it.Problem)
			if !ok {
				// The loader rejects screens naming unknown content, so this
				// is a catalogue built by hand, wrongly.
				return nil, echo.NewHTTPError(http.StatusInternalServerError).SetInternal(
					errUnknownStep(sc.Slug, "problem", it.Problem))
			}
			step.Kind, step.URL, step.Title, step.Summary = "Problem", "/problems/"+p.Slug, p.Title, p.Summary
			step.Start, step.StartLabel = step.URL, "Open the problem"
			if step.Minutes == 0 {
				step.Minutes = p.Minutes
			}
		case it.Questions != "":
			qs, ok := s.catalog(ctx).Set(it.Questions)
			if !ok {
				return nil, echo.NewHTTPError(http.StatusInternalServerError).SetInternal(
					errUnknownStep(sc.Slug, "question set", it.Questions))
			}
			step.Kind, step.URL, step.Title, step.Summary = "Question set", "/sets/"+qs.Slug, qs.Title, qs.Summary
			step.Start, step.StartLabel = step.URL, "Open the questions"
			if len(qs.Questions) > 1 {
				step.Start, step.StartLabel = rapidURL(qs, 1), "Start the questions, one at a time"
			}
			if step.Minutes == 0 {
				step.Minutes = qs.Minutes
			}
		}
		steps = append(steps, step)
	}
	return steps, nil
}

// screenSummaryRow is one step of the screen as the summary shows it: its
// mark (attempted, answered, graded with the latest result) from storage.
type screenSummaryRow struct {
	Number int
	Step   screenStep
	Mark   progressMark
	Used   time.Duration // time on the step, by the server's clock; with a run only
}

// screenSummaryPage is the end of practising a screen.
type screenSummaryPage struct {
	Screen *problems.Screen
	Rows   []screenSummaryRow
	Run    *practice.ScreenView // nil: practised without the clock
	Clock  *screenClock
}

// screenSummary is GET /screens/:slug/practice/summary: the end of
// practising a screen, each step with what the user did in it.
func (s *Server) screenSummary(c echo.Context) error {
	sc, err := s.findScreen(c)
	if err != nil {
		return err
	}
	steps, err := s.screenSteps(c.Request().Context(), sc)
	if err != nil {
		return err
	}
	run, err := s.screenRunOf(c.Request().Context(), sc)
	if err != nil {
		return err
	}
	marks, err := s.userProgress(c.Request().Context())
	if err != nil {
		return err
	}
	rows := make([]screenSummaryRow, 0, len(steps))
	for i, it := range sc.Items {
		row := screenSummaryRow{Number: i + 1, Step: steps[i]}
		if p, ok := s.catalog(c.Request().Context()).Problem(it.Problem); ok && it.Problem != "" {
			pr, has := marks[progressKey{storage.KindProblem, p.Slug}]
			row.Mark = problemMark(p, pr, has)
		} else if qs, ok := s.catalog(c.Request().Context()).Set(it.Questions); ok && it.Questions != "" {
			pr, has := marks[progressKey{storage.KindSet, qs.Slug}]
			row.Mark = setMark(qs, pr, has)
		}
		if row.Mark.State == "" {
			row.Mark = progressMark{State: "not-started", Text: "Not started"}
		}
		if run != nil {
			row.Used = run.StepUsed[i]
		}
		rows = append(rows, row)
	}
	page := screenSummaryPage{Screen: sc, Rows: rows, Run: run, Clock: screenClockOf(run)}
	return render(c, http.StatusOK, screenSummaryView(s.withRunClock(s.meta(sc.Title+": summary")), page))
}
