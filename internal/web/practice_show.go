package web

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// practiceStore is what the My practice page reads; *storage.Store has it.
type practiceStore interface {
	User(ctx context.Context, id string) (storage.User, error)
	UserAttempts(ctx context.Context, userID string) ([]storage.Attempt, error)
	TimedAnswerHistory(ctx context.Context, attemptID int64) ([]storage.TimedAnswer, error)
	SelfAssessments(ctx context.Context, attemptID int64) (map[int64]storage.SelfAssessment, error)
	GradeRuns(ctx context.Context, attemptID int64) ([]storage.GradeRun, error)
}

// practicePage is one user's history: every problem and question set they
// touched, with hints shown, answers given and grader runs, oldest first
// within each, so progress reads top to bottom.
type practicePage struct {
	DisplayName string
	NameDraft   string // a rejected name, given back to the form
	NameError   string
	NameSaved   bool
	Problems    []problemHistory
	Sets        []setHistory
	Review      reviewSummary   // the review queue (issue 29)
	Calibration calibrationView // predictions beside ticks (issue 29)
}

func (p practicePage) empty() bool { return len(p.Problems) == 0 && len(p.Sets) == 0 }

type problemHistory struct {
	Slug    string
	Title   string // the slug when the problem is no longer in the catalogue
	Missing bool
	Hints   []hintLine
	Reveal  *storage.AnswerReveal
	Answers []answerLine
	Runs    []storage.GradeRun
}

type hintLine struct {
	Part, Index int
	Heading     string
	At          time.Time
}

// answerLine is one answer with its timing and, when the user ticked the
// key points they covered, that self-assessment.
type answerLine struct {
	storage.TimedAnswer
	Assessment *storage.SelfAssessment
}

type setHistory struct {
	Slug      string
	Title     string
	Missing   bool
	Questions []questionHistory
}

type questionHistory struct {
	Number   int
	Text     string
	Reveal   *storage.AnswerReveal
	Answers  []answerLine
	Answered bool
}

func (s *Server) practiceShow(c echo.Context) error {
	page, err := s.practicePage(c.Request().Context())
	if err != nil {
		return err
	}
	page.NameSaved = c.QueryParam("saved") == "name"
	return render(c, http.StatusOK, practiceView(s.reviewMeta("My practice"), page))
}

// practicePage reads the user's history. A visitor who has done nothing has
// an empty page, not an error, and nothing is written.
func (s *Server) practicePage(ctx context.Context) (practicePage, error) {
	var page practicePage
	userID, ok := UserID(ctx)
	if !ok {
		return page, errNoIdentity
	}
	user, err := s.store.User(ctx, userID)
	if errors.Is(err, storage.ErrNotFound) {
		return page, nil
	}
	if err != nil {
		return page, err
	}
	page.DisplayName = user.DisplayName
	if page.Review, err = s.reviewSummaryOf(ctx); err != nil {
		return page, err
	}
	if page.Calibration, err = s.calibration(ctx, userID); err != nil {
		return page, err
	}
	attempts, err := s.store.UserAttempts(ctx, userID)
	if err != nil {
		return page, err
	}
	for _, a := range attempts {
		switch a.Kind {
		case storage.KindProblem:
			h, err := s.problemHistory(ctx, a)
			if err != nil {
				return page, err
			}
			page.Problems = append(page.Problems, h)
		case storage.KindSet:
			h, err := s.setHistory(ctx, a)
			if err != nil {
				return page, err
			}
			page.Sets = append(page.Sets, h)
		}
	}
	return page, nil
}

func (s *Server) problemHistory(ctx context.Context, a storage.Attempt) (problemHistory, error) {
	h := problemHistory{Slug: a.Slug, Title: a.Slug}
	p, ok := s.catalog(ctx).Problem(a.Slug)
	if ok {
		h.Title = p.Title
	} else {
		h.Missing = true
	}
	hints, err := s.store.HintReveals(ctx, a.ID)
	if err != nil {
		return h, err
	}
	for _, r := range hints {
		line := hintLine{Part: r.Part, Index: r.Index, At: r.RevealedAt}
		if ok && r.Part >= 1 && r.Part <= len(p.Parts) {
			line.Heading = partHeading(p.Parts[r.Part-1])
		} else {
			line.Heading = "Part " + strconv.Itoa(r.Part)
		}
		h.Hints = append(h.Hints, line)
	}
	sort.SliceStable(h.Hints, func(i, j int) bool { return h.Hints[i].At.Before(h.Hints[j].At) })
	reveals, err := s.store.AnswerReveals(ctx, a.ID)
	if err != nil {
		return h, err
	}
	for i := range reveals {
		if reveals[i].Scope == storage.ScopeProblem {
			h.Reveal = &reveals[i]
		}
	}
	answers, err := s.answerLines(ctx, a.ID)
	if err != nil {
		return h, err
	}
	h.Answers = answers[storage.ScopeProblem]
	if h.Runs, err = s.store.GradeRuns(ctx, a.ID); err != nil {
		return h, err
	}
	return h, nil
}

// answerLines is an attempt's answers by scope, oldest first, each with its
// self-assessment.
func (s *Server) answerLines(ctx context.Context, attemptID int64) (map[string][]answerLine, error) {
	answers, err := s.store.TimedAnswerHistory(ctx, attemptID)
	if err != nil {
		return nil, err
	}
	assessed, err := s.store.SelfAssessments(ctx, attemptID)
	if err != nil {
		return nil, err
	}
	out := map[string][]answerLine{}
	for _, ans := range answers {
		line := answerLine{TimedAnswer: ans}
		if sa, ok := assessed[ans.ID]; ok {
			line.Assessment = &sa
		}
		out[ans.Scope] = append(out[ans.Scope], line)
	}
	return out, nil
}

func (s *Server) setHistory(ctx context.Context, a storage.Attempt) (setHistory, error) {
	h := setHistory{Slug: a.Slug, Title: a.Slug}
	qs, ok := s.catalog(ctx).Set(a.Slug)
	if !ok {
		h.Missing = true
		return h, nil
	}
	h.Title = qs.Title
	reveals, err := s.store.AnswerReveals(ctx, a.ID)
	if err != nil {
		return h, err
	}
	answers, err := s.answerLines(ctx, a.ID)
	if err != nil {
		return h, err
	}
	for i := range qs.Questions {
		q := &qs.Questions[i]
		scope := storage.ScopeQuestion(q.ID)
		qh := questionHistory{Number: i + 1, Text: q.Text}
		for j := range reveals {
			if reveals[j].Scope == scope {
				qh.Reveal = &reveals[j]
			}
		}
		qh.Answers = answers[scope]
		qh.Answered = len(qh.Answers) > 0
		if qh.Answered || qh.Reveal != nil {
			h.Questions = append(h.Questions, qh)
		}
	}
	return h, nil
}

// timingText says how an answer was timed, as a person would put it.
func timingText(t storage.AnswerTiming) string {
	var s string
	switch {
	case t.Mode == "":
		s = "Sent without the timer"
	case t.Mode == storage.ModeUntimed && t.HowEnded == storage.EndedExpired:
		s = "No limit: the whole set's time ran out after " + clock(t.Limit) // only a run's clock ends an untimed answer
	case t.Mode == storage.ModeUntimed:
		s = "No limit: took " + clock(t.TimeUsed)
	case t.HowEnded == storage.EndedExpired:
		s = "Timed: the " + clock(t.Limit) + " limit ran out"
	default:
		s = "Timed: answered in " + clock(t.TimeUsed) + " of " + clock(t.Limit)
	}
	if t.WordCount > 0 {
		s += " · " + plural(t.WordCount, "word")
	}
	return s
}

func assessmentText(sa *storage.SelfAssessment) string {
	return "Self-assessment: " + strconv.Itoa(len(sa.Covered)) + " of " + plural(sa.Of, "key point") + " covered"
}

// runResult is a grader run's outcome in a few words.
func runResult(r storage.GradeRun) string {
	switch r.Status {
	case storage.GradeRunning:
		return "still running"
	case storage.GradeBusy:
		return "grader busy, not run"
	case storage.GradeSystemError:
		return "grading failed"
	}
	switch r.Summary.Verdict {
	case "pass":
		return "passed"
	case "fail":
		return "failed"
	}
	return "could not be graded"
}

func fraction(n, of int, done bool) string {
	if !done || of == 0 {
		return "–"
	}
	return strconv.Itoa(n) + " of " + strconv.Itoa(of)
}

// runProgress sums up a problem's runs from the first graded one to the
// latest, so progress is visible at a glance; empty with fewer than two.
func runProgress(runs []storage.GradeRun) string {
	var graded []storage.GradeRun
	for _, r := range runs {
		if r.Status == storage.GradeDone && r.Summary.ScenariosTotal > 0 {
			graded = append(graded, r)
		}
	}
	if len(graded) < 2 {
		return ""
	}
	first, last := graded[0].Summary, graded[len(graded)-1].Summary
	return "Invariants held: " + strconv.Itoa(first.InvariantsHeld) + " of " + strconv.Itoa(first.InvariantsTotal) +
		" on your first graded run, " + strconv.Itoa(last.InvariantsHeld) + " of " + strconv.Itoa(last.InvariantsTotal) +
		" on your latest (" + plural(len(graded), "graded run") + ")."
}
