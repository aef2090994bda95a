package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/timer"
)

// rapidPage is one step of a set's rapid-fire run: a single question, with
// where it sits in the set and where to go next.
type rapidPage struct {
	Set     setPage
	Current questionView
	Total   int
	Clock   *runClock     // the whole set's clock; nil when not run as one timed sequence
	Limit   time.Duration // the whole set's time, offered at the run's start
	Screen  *screenStrip  // the screen being practised with this set as its step; nil if none
}

// Done: the question was answered (by submit or when its time ran out) or
// its model answer revealed, so the next question is offered.
// Once the whole set's time is up, every question is done.
func (p rapidPage) Done() bool {
	return p.Current.Box.Last != nil || p.Current.Revealed || p.Clock != nil && p.Clock.Up
}

func (p rapidPage) Last() bool { return p.Current.Number == p.Total }

// rapidSummary is the end of a rapid-fire run: per question the time used,
// how it ended and the self-assessment.
type rapidSummary struct {
	Set       setPage
	Rows      []rapidRow
	Answered  int
	TimeUsed  time.Duration
	TimeLimit time.Duration
	Clock     *runClock
	Screen    *screenStrip // as on the questions
}

type rapidRow struct {
	Q        questionView
	Answer   string // how the answer ended and the time it took, or why there is none
	Assessed string // the self-assessment in words
}

func rapidURL(qs *problems.QuestionSet, n int) string {
	return "/sets/" + qs.Slug + "/rapid?q=" + strconv.Itoa(n)
}

func rapidSummaryURL(qs *problems.QuestionSet) string { return "/sets/" + qs.Slug + "/rapid/summary" }

// setRapidShow is GET /sets/:slug/rapid?q=N: question N of the set alone.
// Its answer box is the set page's, so the timed box script submits and
// refreshes it in place, and the refreshed section offers the next step.
func (s *Server) setRapidShow(c echo.Context) error {
	qs, err := s.findSet(c)
	if err != nil {
		return err
	}
	n := 1
	if raw := c.QueryParam("q"); raw != "" {
		n, err = strconv.Atoi(raw)
		if err != nil || n < 1 || n > len(qs.Questions) {
			return badRequest("The question number q=" + strconv.Quote(raw) + " is not one of this set's: use 1 to " + strconv.Itoa(len(qs.Questions)) + ".")
		}
	}
	page, err := s.setPage(c, qs)
	if err != nil {
		return err
	}
	clock, err := s.setRunClock(c.Request().Context(), page)
	if err != nil {
		return err
	}
	page.Rapid = true
	rp := rapidPage{Set: page, Current: page.Questions[n-1], Total: len(qs.Questions), Clock: clock, Limit: setLimit(qs)}
	// Once answered, the next step is what the reader wants: answering
	// again is folded away under the comparison.
	rp.Current.Box.FoldAnswerAgain = true
	if rp.Screen, err = s.screenStripFor(c.Request().Context(), problems.ScreenItem{Questions: qs.Slug}); err != nil {
		return err
	}
	if clock != nil && clock.Up && rp.Current.Box.SessionID == 0 && rp.Current.Box.Last == nil {
		// The whole set's time ran out before this question was begun:
		// its box is locked, and the start would be refused.
		rp.Current.Box.Phase = string(timer.Locked)
	}
	title := qs.Title + ": question " + strconv.Itoa(n) + " of " + strconv.Itoa(rp.Total)
	return render(c, http.StatusOK, setRapidView(s.withRapidAssets(s.meta(title)), rp))
}

// setRapidSummary is GET /sets/:slug/rapid/summary.
func (s *Server) setRapidSummary(c echo.Context) error {
	qs, err := s.findSet(c)
	if err != nil {
		return err
	}
	page, err := s.setPage(c, qs)
	if err != nil {
		return err
	}
	sum := newRapidSummary(page)
	if sum.Clock, err = s.setRunClock(c.Request().Context(), page); err != nil {
		return err
	}
	if sum.Screen, err = s.screenStripFor(c.Request().Context(), problems.ScreenItem{Questions: qs.Slug}); err != nil {
		return err
	}
	return render(c, http.StatusOK, setRapidSummaryView(s.withRapidAssets(s.meta(qs.Title+": summary")), sum))
}

func newRapidSummary(page setPage) rapidSummary {
	sum := rapidSummary{Set: page}
	for _, q := range page.Questions {
		sum.TimeLimit += q.Box.Limit
		row := rapidRow{Q: q, Answer: "Not answered", Assessed: "—"}
		switch last := q.Box.Last; {
		case last != nil:
			sum.Answered++
			sum.TimeUsed += last.Timing.TimeUsed
			row.Answer = answerSummary(last)
			row.Assessed = assessmentWords(q.Box)
		case q.Revealed:
			row.Answer = "Not answered: the model answer was revealed"
		}
		sum.Rows = append(sum.Rows, row)
	}
	return sum
}

// assessmentWords says how many key points the candidate ticked.
func assessmentWords(b answerBoxState) string {
	switch {
	case len(b.KeyPoints) == 0:
		return "No key points (guidance only)"
	case b.Assessment == nil:
		return "Not assessed yet"
	}
	return strconv.Itoa(len(b.Assessment.Covered)) + " of " + strconv.Itoa(b.Assessment.Of) + " key points covered"
}

// withRapidAssets adds the timed box's assets and the run's stylesheet.
func (s *Server) withRapidAssets(m pageMeta) pageMeta {
	return s.withRunClock(s.withTimedAnswerAssets(m)).withScripts(s.assets.url("in-place.js"))
}
