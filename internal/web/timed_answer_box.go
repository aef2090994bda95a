package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/practice"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// timedAnswerStore is what the timed answer box's page reads itself;
// *storage.Store has it. Everything else goes through practice.Answers.
type timedAnswerStore interface {
	LatestTimedAnswers(ctx context.Context, attemptID int64) (map[string]storage.TimedAnswer, error)
	SelfAssessments(ctx context.Context, attemptID int64) (map[int64]storage.SelfAssessment, error)
}

// now is the server's clock, which the timer trusts over the browser's.
// Tests replace it through Server.clock.
func (s *Server) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}

// timedTarget is one timed answer box: a problem with timed_answer, or one
// question of a set.
type timedTarget struct {
	kind      storage.Kind
	slug      string
	scope     string
	base      string // URL the box's routes hang under
	field     string // the textarea's id
	limit     time.Duration
	keyPoints []problems.Item   // what the self-assessment ticks
	model     problems.Markdown // shown beside the user's answer once it is in
	anchor    string            // where a plain form lands after posting
	what      string            // "this problem", "question 3", for messages
}

func problemTarget(p *problems.Problem) timedTarget {
	return timedTarget{kind: storage.KindProblem, slug: p.Slug, scope: storage.ScopeProblem,
		base: "/problems/" + p.Slug, field: "answer-text", limit: p.TimedAnswer, keyPoints: p.StrongAnswer, model: p.ModelAnswer,
		anchor: "/problems/" + p.Slug + "#answer", what: "this problem"}
}

func questionTarget(qs *problems.QuestionSet, q *problems.Question) timedTarget {
	limit := q.TimeLimit
	if limit <= 0 {
		limit = problems.DefaultTimeLimit
	}
	return timedTarget{kind: storage.KindSet, slug: qs.Slug, scope: storage.ScopeQuestion(q.ID),
		base: "/sets/" + qs.Slug + "/questions/" + q.ID, field: "answer-" + q.ID, limit: limit, keyPoints: q.KeyPoints, model: q.ModelAnswer,
		anchor: questionAnchor(qs, q), what: "this question"}
}

// findTimedTarget is the box named by the URL: a question when the route has
// an :id, else a problem, which must have a timed answer.
func (s *Server) findTimedTarget(c echo.Context) (timedTarget, error) {
	return s.findAnswerTarget(c, true)
}

// findAnswerTarget is the answer named by the URL; timed says the problem
// must have a timed box (its clock's routes). A self-assessment needs no
// clock: a plain-form answer is ticked and rated the same way.
func (s *Server) findAnswerTarget(c echo.Context, timed bool) (timedTarget, error) {
	if c.Param("id") != "" {
		qs, q, err := s.findQuestion(c)
		if err != nil {
			return timedTarget{}, err
		}
		return questionTarget(qs, q), nil
	}
	p, err := s.findProblem(c)
	if err != nil {
		return timedTarget{}, err
	}
	if timed && p.TimedAnswer <= 0 {
		return timedTarget{}, notFound("The problem " + p.Title + " has no timed answer box.")
	}
	return problemTarget(p), nil
}

// timedAnswerRoutes adds the box's routes for problems and questions.
func (s *Server) timedAnswerRoutes() {
	for _, base := range []string{"/problems/:slug", "/sets/:slug/questions/:id"} {
		s.echo.POST(base+"/timer/start", jsonErrors(s.timedAnswerStart))
		s.echo.POST(base+"/timer/draft", jsonErrors(s.timedAnswerDraft))
		s.echo.POST(base+"/assessment", s.timedAnswerAssess)
	}
}

// answerBoxState is one timed answer box as the page shows it.
type answerBoxState struct {
	Timed      bool // false: the problem has no timed box, the plain form shows
	Base       string
	Field      string
	Limit      time.Duration
	Phase      string // idle, running, locked or submitted: the box's data-state
	SessionID  int64  // the open session; 0 when none
	Mode       timer.Mode
	Remaining  time.Duration
	Draft      string // the open session's on-time draft
	DraftSeq   int64
	Last       *storage.TimedAnswer // the latest answer, if any
	KeyPoints  []problems.Item
	Model      problems.Markdown       // the model answer, set beside Last
	Assessment *storage.SelfAssessment // of Last, if saved
	InRun      bool                    // a whole-set run is going on: its clock ends this answer whatever the mode
	// RoomClock is the phase of a live room's clock (idle, running,
	// paused, up), which stands in for the box's own in a room: the
	// interviewer starts and pauses it, and there is no mode to choose.
	// "" outside a room.
	RoomClock string
	// FoldAnswerAgain folds the form to answer again under the comparison
	// once an answer is stored (a rapid-fire run moves on instead).
	FoldAnswerAgain bool
	// Again is the box opened from the review queue (?again=): ready to
	// answer again, the last answer and the model answer folded away so
	// the answer is recalled, not reread.
	Again bool
}

// foldsForm reports whether the box shows its form folded: answered, in
// a place that moves on.
func (b answerBoxState) foldsForm() bool { return b.FoldAnswerAgain && b.Last != nil }

// showsKeyPoints reports whether the box lists the key points (to tick,
// beside the last answer), so the page's answer material need not.
func (b answerBoxState) showsKeyPoints() bool { return b.Last != nil && len(b.KeyPoints) > 0 }

// helpText is the line beside the countdown when the page is drawn.
func (b answerBoxState) helpText() string {
	switch {
	case b.RoomClock == "":
		return "The clock starts with your first keystroke."
	case b.Phase == phaseSubmitted:
		return "Submitted."
	case b.RoomClock == roomEnded:
		return "The room has ended."
	case b.Phase == string(timer.Locked):
		return "Time is up: the box is locked."
	case b.RoomClock == string(timer.ClockPaused):
		return "The interviewer has paused the clock."
	case b.RoomClock == string(timer.ClockIdle):
		return "The interviewer starts the clock; you can write before it does."
	}
	return "The interviewer's clock: the box locks at 0:00 and submits what you wrote."
}

// showsModel reports whether the box sets the model answer beside the last
// answer; the page's answer material then leaves it out, so it is read once.
func (b answerBoxState) showsModel() bool {
	return b.Last != nil && b.Model.HTML != ""
}

// phaseSubmitted is the box's data-state once an answer is stored; the
// other states are timer.Phase names.
const phaseSubmitted = practice.PhaseSubmitted

// timed is the timed answer's use cases on the server's store and clock.
func (s *Server) timed() *practice.Answers { return s.practice.Answers }

// answerBoxes loads the boxes of targets for the attempt in st (none yet:
// every box is idle). The latest answers come with st.
func (s *Server) answerBoxes(ctx context.Context, st attemptState, targets []timedTarget) (map[string]answerBoxState, error) {
	out := map[string]answerBoxState{}
	var (
		open        map[string]storage.TimedSession
		latest      = st.answers
		assessments map[int64]storage.SelfAssessment
		err         error
	)
	if st.attemptID != 0 {
		if open, err = s.timed().Open(ctx, st.attemptID); err != nil {
			return nil, err
		}
		if assessments, err = s.store.SelfAssessments(ctx, st.attemptID); err != nil {
			return nil, err
		}
	}
	now := s.now()
	for _, tg := range targets {
		box := answerBoxState{Timed: tg.limit > 0, Base: tg.base, Field: tg.field, Limit: tg.limit,
			Phase: string(timer.Idle), Mode: timer.Timed, Remaining: tg.limit, KeyPoints: tg.keyPoints}
		if a, ok := latest[tg.scope]; ok {
			box.Last, box.Model = &a, tg.model
			box.Phase = phaseSubmitted
			if sa, ok := assessments[a.ID]; ok {
				box.Assessment = &sa
			}
		}
		if t, ok := open[tg.scope]; ok {
			st := practice.TimerSession(t).State(now)
			box.SessionID, box.Mode, box.Draft, box.DraftSeq = t.ID, timer.Mode(t.Mode), t.Draft, t.DraftSeq
			box.Limit, box.Phase, box.Remaining = t.Limit, string(st.Phase), st.Remaining
		}
		out[tg.scope] = box
	}
	return out, nil
}

// problemBox is the box of a problem page. A problem without a timed box
// has the plain form, which still needs the last answer and its ticks (it
// draws the tick form under the answer); its model answer stays in the
// page's answer material, so the box does not carry it.
func (s *Server) problemBox(ctx context.Context, st attemptState, p *problems.Problem) (answerBoxState, error) {
	tg := problemTarget(p)
	boxes, err := s.answerBoxes(ctx, st, []timedTarget{tg})
	box := boxes[tg.scope]
	if tg.limit <= 0 {
		box.Model = problems.Markdown{}
	}
	return box, err
}

// questionBoxes are the boxes of a set page, by scope.
func (s *Server) questionBoxes(ctx context.Context, st attemptState, qs *problems.QuestionSet) (map[string]answerBoxState, error) {
	targets := make([]timedTarget, len(qs.Questions))
	for i := range qs.Questions {
		targets[i] = questionTarget(qs, &qs.Questions[i])
	}
	return s.answerBoxes(ctx, st, targets)
}

// withTimedAnswerAssets adds the box's script and stylesheet to a page.
func (s *Server) withTimedAnswerAssets(m pageMeta) pageMeta {
	m.CSS = append(m.CSS, s.assets.url("timed-answer.css"), s.assets.url("review.css"))
	return m.withScripts(s.assets.url("clock-text.js"), s.assets.url("timed-answer.js"))
}

// ownAttempt is the user's attempt at the target's problem or set, without
// creating one: a session or answer id can only be the user's own if the
// attempt exists.
func (s *Server) ownAttempt(c echo.Context, tg timedTarget) (storage.Attempt, error) {
	userID, err := requireUser(c)
	if err != nil {
		return storage.Attempt{}, err
	}
	return s.store.Attempt(c.Request().Context(), userID, tg.kind, tg.slug)
}

// ownSession is the session named by the form's "session" field, if it is
// the user's and this box's; anything else is a 404 that names the id.
func (s *Server) ownSession(c echo.Context, tg timedTarget, raw string) (storage.TimedSession, error) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		return storage.TimedSession{}, badRequest(fmt.Sprintf("The timer session %s is not a session number.", quoteForUser(raw)))
	}
	missing := notFound(fmt.Sprintf("There is no timer session %d of yours for %s. Reload the page to start again; copy your text first.", id, tg.what))
	a, err := s.ownAttempt(c, tg)
	if errors.Is(err, storage.ErrNotFound) {
		return storage.TimedSession{}, missing
	}
	if err != nil {
		return storage.TimedSession{}, err
	}
	t, err := s.timed().Session(c.Request().Context(), a.ID, tg.scope, id)
	if errors.Is(err, storage.ErrNotFound) {
		return storage.TimedSession{}, missing
	}
	return t, err
}

// wantsJSON reports whether the box's script sent the request.
func wantsJSON(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get(echo.HeaderAccept), echo.MIMEApplicationJSON)
}

// jsonErrors answers a client error of a JSON route with {"error": message},
// which the script shows beside the box while it keeps the text. Server
// errors still go to the one error handler.
func jsonErrors(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := h(c)
		var he *echo.HTTPError
		if errors.As(err, &he) && he.Code < 500 && !c.Response().Committed {
			msg, _ := he.Message.(string)
			if msg == "" {
				msg = http.StatusText(he.Code)
			}
			return c.JSON(he.Code, map[string]string{"error": msg})
		}
		return err
	}
}

// draftText reads text the box sent: line endings made \n, whitespace kept
// (a draft is what the user sees), and checked for size and encoding.
func draftText(c echo.Context, name string) (string, error) {
	raw, err := formValue(c, name)
	if err != nil {
		return "", err
	}
	text := strings.ReplaceAll(raw, "\r\n", "\n")
	if len(text) > maxAnswerBytes {
		return "", echo.NewHTTPError(http.StatusRequestEntityTooLarge,
			fmt.Sprintf("The answer is longer than %d KiB, so it was not saved. Shorten it; your text is still in the box.", maxAnswerBytes>>10))
	}
	if !utf8.ValidString(text) {
		return "", badRequest("The answer is not valid UTF-8 text, so it was not saved.")
	}
	return text, nil
}

// clockFunc is the server's clock for the timer; nil means time.Now.
type clockFunc func() time.Time

// timedAnswerMeta adds the box's assets to a problem page that has a box,
// and the tick form's styles to a plain form's page once it has an answer
// to tick (answered: in-place.js brings them along when an answer is
// submitted without a reload).
func (s *Server) timedAnswerMeta(m pageMeta, p *problems.Problem, answered bool) pageMeta {
	if p.TimedAnswer <= 0 {
		if len(p.StrongAnswer) > 0 && answered {
			// The plain form's tick form is drawn as the box's.
			m.CSS = append(m.CSS, s.assets.url("timed-answer.css"), s.assets.url("review.css"))
		}
		return m
	}
	return s.withTimedAnswerAssets(m)
}

// rejectedProblemAnswer re-shows a problem page with the answer given back
// and the reason beside the form.
func (s *Server) rejectedProblemAnswer(c echo.Context, p *problems.Problem) func(raw, problem string) error {
	return func(raw, problem string) error {
		page, err := s.problemPage(c, p)
		if err != nil {
			return err
		}
		page.Draft, page.FormError = raw, problem
		return render(c, http.StatusUnprocessableEntity, problemView(s.problemMeta(p, page), page))
	}
}

// answerSummary is one line about how an answer was written: "Timed: 1:32 of
// 2:00 used · 143 words", for the box and the history.
func answerSummary(a *storage.TimedAnswer) string {
	t := a.Timing
	words := plural(t.WordCount, "word")
	switch {
	case t.Mode == storage.ModeUntimed && t.HowEnded == storage.EndedExpired:
		// Only a run's clock ends an untimed answer.
		return "No limit: the whole set's time ran out at " + clock(t.Limit) + " · " + words
	case t.Mode == storage.ModeUntimed:
		return "No limit: " + clock(t.TimeUsed) + " used · " + words
	case t.Mode == storage.ModeTimed && t.HowEnded == storage.EndedExpired:
		return "Timed: time ran out at " + clock(t.Limit) + " · " + words
	case t.Mode == storage.ModeTimed:
		return "Timed: " + clock(t.TimeUsed) + " of " + clock(t.Limit) + " used · " + words
	}
	return "Not timed (sent without the timer) · " + words
}

func (b answerBoxState) limitMS() string { return strconv.FormatInt(b.Limit.Milliseconds(), 10) }

func (b answerBoxState) remainingMS() string {
	return strconv.FormatInt(b.Remaining.Milliseconds(), 10)
}

// clockText is what the countdown shows when the page is drawn.
func (b answerBoxState) clockText() string {
	if b.RoomClock != "" {
		return clock((b.Remaining + time.Second - 1).Truncate(time.Second))
	}
	if b.SessionID != 0 && b.Mode == timer.Untimed {
		return "no limit"
	}
	if b.SessionID == 0 {
		return clock(b.Limit)
	}
	// Up to the next second, as a countdown shows it: 0:00 only at the end.
	return clock((b.Remaining + time.Second - 1).Truncate(time.Second))
}

// covered reports whether key point i is ticked in the saved assessment.
func (b answerBoxState) covered(i int) bool {
	return b.Assessment != nil && slices.Contains(b.Assessment.Covered, i)
}

// assessedText is the saved assessment's line, "" when none is saved.
func (b answerBoxState) assessedText() string {
	if b.Assessment == nil {
		return ""
	}
	return assessmentSaved(len(b.Assessment.Covered), b.Assessment.Of)
}
