package practice

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/faultline-dev/faultline/internal/review"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// AnswerStore is what the timed answer's use cases keep.
type AnswerStore interface {
	StartTimedSession(ctx context.Context, attemptID int64, scope, mode string, limit time.Duration, noOwnLimit bool, at time.Time) (storage.TimedSession, bool, error)
	TimedSession(ctx context.Context, id int64) (storage.TimedSession, error)
	OpenTimedSessions(ctx context.Context, attemptID int64) (map[string]storage.TimedSession, error)
	SaveDraft(ctx context.Context, sessionID, seq int64, text string, late bool, at time.Time) (storage.TimedSession, bool, error)
	SubmitTimedAnswer(ctx context.Context, attemptID int64, scope, body string, sessionID int64, timing storage.AnswerTiming, at time.Time) (storage.TimedAnswer, error)
	TimedAnswer(ctx context.Context, id int64) (storage.TimedAnswer, error)
	// The review queue's (issue 29): every stored answer to something
	// with key points enters it (Answers.enqueue).
	review.Enqueuer
	AttemptByID(ctx context.Context, id int64) (storage.Attempt, error)
}

// KeyPointsOf counts the key points of scope ("problem", "question:<id>")
// in the problem or set slug: the content's, which the web layer reads.
type KeyPointsOf func(ctx context.Context, kind storage.Kind, slug, scope string) int

// Errors a caller turns into a message for the user.
var (
	// ErrEmptyAnswer: a submit with nothing a reader could see, before the
	// box locked. (A box that locked empty still ends, with an empty answer.)
	ErrEmptyAnswer = errors.New("practice: the answer is empty")
	// ErrOuterClockUp: the clock that bounds this answer (the whole set's,
	// run as one timed sequence) has run out, so no new answer starts.
	ErrOuterClockUp = errors.New("practice: the overall clock has run out")
)

// Answers runs the timed answer's use cases on a store and a clock.
type Answers struct {
	store AnswerStore
	now   func() time.Time
	// KeyPoints, when set, puts every answer stored (submitted, or stored
	// by the server when its clock ran out, timed or plain) in the review
	// queue, if what it answers has key points: they are what the
	// candidate ticks to rate it. nil: nothing is queued.
	KeyPoints KeyPointsOf
	// Log receives a queue write that failed after its answer was stored
	// (nil: slog.Default()).
	Log *slog.Logger
}

// NewAnswers returns the use cases over store, reading the time from now
// (time.Now when nil): the server's clock, the only one the timer trusts.
func NewAnswers(store AnswerStore, now func() time.Time) *Answers {
	if now == nil {
		now = time.Now
	}
	return &Answers{store: store, now: now}
}

// TimerSession is a stored session as internal/timer sees it: its clock,
// with the box's mode.
func TimerSession(t storage.TimedSession) timer.Session {
	return timer.Session{Mode: timer.Mode(t.Mode), Limit: t.Limit, StartedAt: t.StartedAt}
}

// Phase names a stored session's phase at now: a timer.Phase while it is
// open, "submitted" once closed. Remaining is the time left.
func Phase(t storage.TimedSession, now time.Time) (phase string, remaining time.Duration) {
	if !t.Open() {
		return PhaseSubmitted, 0
	}
	st := TimerSession(t).State(now)
	return string(st.Phase), st.Remaining
}

// PhaseSubmitted is a box's phase once its answer is stored; the others
// are timer.Phase names.
const PhaseSubmitted = "submitted"

// CloseOverdue stores, as its answer, the last on-time draft of every open
// session of the attempt whose limit and grace have passed: the user left
// (closed the tab, lost the connection) without submitting. Every write
// runs it first, so a new keystroke starts a fresh answer instead of
// landing late in an old one. A session another request closed meanwhile
// is not an error.
func (a *Answers) CloseOverdue(ctx context.Context, attemptID int64) error {
	open, err := a.store.OpenTimedSessions(ctx, attemptID)
	if err != nil {
		return err
	}
	now := a.now()
	for _, t := range open {
		if !TimerSession(t).Overdue(now) {
			continue
		}
		if _, err := a.expire(ctx, t, now); err != nil && !errors.Is(err, storage.ErrSessionClosed) {
			return err
		}
	}
	return nil
}

// expire stores an overdue session's on-time draft as its answer, with
// any late text beside it.
func (a *Answers) expire(ctx context.Context, t storage.TimedSession, now time.Time) (storage.TimedAnswer, error) {
	end := TimerSession(t).Expire()
	body, late := AnswerBody(t.Draft), AnswerBody(t.LateText)
	ans, err := a.store.SubmitTimedAnswer(ctx, t.AttemptID, t.Scope, body, t.ID, timing(t, end, body, late), now)
	if err != nil {
		return ans, err
	}
	a.enqueue(ctx, t.AttemptID, ans, nil)
	return ans, nil
}

// enqueue puts a just-stored answer in the review queue if its problem or
// question has key points, with the candidate's guess of how many it covers
// (nil: none). The answer is stored already, so a queue write that fails is
// logged, never the caller's error: the candidate keeps their answer, and
// the item enters the queue when they tick its key points (rating an item
// creates it).
func (a *Answers) enqueue(ctx context.Context, attemptID int64, ans storage.TimedAnswer, guess *int) {
	if err := a.queue(ctx, attemptID, ans, guess); err != nil {
		log := a.Log
		if log == nil {
			log = slog.Default()
		}
		log.ErrorContext(ctx, "practice: an answer was stored but not put in the review queue",
			slog.Int64("attempt", attemptID), slog.String("scope", ans.Scope), slog.Int64("answer", ans.ID), slog.String("error", err.Error()))
	}
}

func (a *Answers) queue(ctx context.Context, attemptID int64, ans storage.TimedAnswer, guess *int) error {
	if a.KeyPoints == nil {
		return nil
	}
	at, err := a.store.AttemptByID(ctx, attemptID)
	if err != nil {
		return err
	}
	of := a.KeyPoints(ctx, at.Kind, at.Slug, ans.Scope)
	if of == 0 {
		return nil
	}
	predicted := -1
	if guess != nil {
		predicted = *guess
	}
	return review.Answered(ctx, a.store, attemptID, ans.Scope, ans.ID, predicted, of, a.now())
}

func timing(t storage.TimedSession, end timer.Ending, body, late string) storage.AnswerTiming {
	mode := t.Mode
	if t.NoOwnLimit {
		// Timed only to the run's end: the candidate chose no limit, and
		// the answer says so (its limit is the run's time that was left).
		mode = storage.ModeUntimed
	}
	return storage.AnswerTiming{Mode: mode, Limit: t.Limit, StartedAt: t.StartedAt, TimeUsed: end.TimeUsed,
		HowEnded: string(end.HowEnded), Late: late != "", LateBody: late, WordCount: timer.WordCount(body)}
}

// Start is the first keystroke in a box.
type Start struct {
	AttemptID int64
	Scope     string
	Mode      timer.Mode
	Limit     time.Duration // the box's own limit, from content
	// Until bounds the answer by an overall clock (the whole set's, run as
	// one timed sequence): the session's limit is cut to end there, and an
	// untimed answer's session is timed to end there (its answer is still
	// stored as untimed). Zero: no bound.
	Until time.Time
}

// Started is the session a start left open.
type Started struct {
	Session   storage.TimedSession
	Created   bool // false: it was already running (a retried start, a second tab)
	Phase     string
	Remaining time.Duration
}

// Start records the first keystroke by the server's clock, after closing
// the attempt's overdue sessions. A start for a box already running returns
// the running session, so a retried request or a second tab cannot restart
// its clock. A page load never starts anything.
func (a *Answers) Start(ctx context.Context, st Start) (Started, error) {
	if err := a.CloseOverdue(ctx, st.AttemptID); err != nil {
		return Started{}, err
	}
	now := a.now()
	limit := st.Limit
	mode := st.Mode
	noOwnLimit := false
	if !st.Until.IsZero() {
		// Rounded down to the millisecond the store keeps, so the session
		// never outlasts the overall clock.
		left := st.Until.Sub(now).Truncate(time.Millisecond)
		if left <= 0 {
			open, err := a.store.OpenTimedSessions(ctx, st.AttemptID)
			if err != nil {
				return Started{}, err
			}
			if t, ok := open[st.Scope]; ok {
				phase, remaining := Phase(t, now)
				return Started{Session: t, Phase: phase, Remaining: remaining}, nil
			}
			return Started{}, ErrOuterClockUp
		}
		limit = min(limit, left)
		if mode == timer.Untimed {
			// "No limit" in a run leaves off the question's own limit, not
			// the run's: the run's clock still runs, and a candidate who ran
			// the set as one timed sequence expects it to end every answer.
			// Its session is timed to the run's end, so the server judges
			// late text as it does for any box; the answer it closes with
			// is stored untimed, as the candidate chose.
			mode, limit, noOwnLimit = timer.Timed, left, true
		}
	}
	t, created, err := a.store.StartTimedSession(ctx, st.AttemptID, st.Scope, string(mode), limit, noOwnLimit, now)
	if err != nil {
		return Started{}, err
	}
	phase, remaining := Phase(t, now)
	return Started{Session: t, Created: created, Phase: phase, Remaining: remaining}, nil
}

// DraftSaved is the outcome of an autosave.
type DraftSaved struct {
	Session   storage.TimedSession // as stored after the save
	Saved     bool                 // false: a newer save had already arrived; nothing changed
	Late      bool                 // the text arrived after the limit plus grace: kept apart, marked late
	Phase     string
	Remaining time.Duration
}

// SaveDraft autosaves a box's text. Text that arrives after the limit plus
// grace is kept apart and marked late, never dropped; a save numbered
// below the newest one changes nothing. A closed session is
// storage.ErrSessionClosed.
func (a *Answers) SaveDraft(ctx context.Context, t storage.TimedSession, seq int64, text string) (DraftSaved, error) {
	now := a.now()
	late := TimerSession(t).Classify(now) == timer.Late
	stored, saved, err := a.store.SaveDraft(ctx, t.ID, seq, text, late, now)
	if err != nil {
		return DraftSaved{}, err
	}
	phase, remaining := Phase(stored, now)
	return DraftSaved{Session: stored, Saved: saved, Late: late, Phase: phase, Remaining: remaining}, nil
}

// Submission is a submitted answer.
type Submission struct {
	AttemptID int64
	Scope     string
	// SessionID is the box's session (the caller has checked it is this
	// attempt's and scope's: Answers.Session). 0 for an answer sent
	// without the session (a plain form): it still ends the box's open
	// session if there is one, since the server knows it, and is stored
	// untimed otherwise.
	SessionID int64
	Text      string // as sent; made an answer's body by AnswerBody
	// Predicted is the candidate's guess, before seeing them, of how many
	// key points the answer covers (the caller has checked it is in
	// range); nil: no guess.
	Predicted *int
}

// Submit stores an answer. Before the limit it ends the session early;
// from the limit on the session counts as expired, and after the grace only
// the text saved in time is the timed answer, the rest kept beside it,
// marked late. A session that is closed already is storage.ErrSessionClosed
// (see KeepAfterClose); an empty answer before the box locked is
// ErrEmptyAnswer.
func (a *Answers) Submit(ctx context.Context, sub Submission) (storage.TimedAnswer, error) {
	now := a.now()
	text := AnswerBody(sub.Text)
	if sub.SessionID == 0 {
		open, err := a.store.OpenTimedSessions(ctx, sub.AttemptID)
		if err != nil {
			return storage.TimedAnswer{}, err
		}
		sub.SessionID = open[sub.Scope].ID
	}
	if sub.SessionID == 0 {
		if text == "" {
			return storage.TimedAnswer{}, ErrEmptyAnswer
		}
		ans, err := a.store.SubmitTimedAnswer(ctx, sub.AttemptID, sub.Scope, text, 0, storage.AnswerTiming{WordCount: timer.WordCount(text)}, now)
		if err != nil {
			return ans, err
		}
		a.enqueue(ctx, sub.AttemptID, ans, sub.Predicted)
		return ans, nil
	}
	// Read now, not taken from the caller: the on-time draft must be the
	// newest one stored.
	t, err := a.store.TimedSession(ctx, sub.SessionID)
	if err != nil {
		return storage.TimedAnswer{}, err
	}
	if !t.Open() {
		return storage.TimedAnswer{}, storage.ErrSessionClosed
	}
	end := TimerSession(t).Submit(now)
	// A box that locked with nothing in it still ends: the answer is empty.
	if text == "" && end.HowEnded != timer.Expired {
		return storage.TimedAnswer{}, ErrEmptyAnswer
	}
	body, late := text, ""
	if end.Late {
		body = AnswerBody(t.Draft)
		if text != body {
			late = text
		}
	}
	ans, err := a.store.SubmitTimedAnswer(ctx, sub.AttemptID, sub.Scope, body, t.ID, timing(t, end, body, late), now)
	if err != nil {
		return ans, err
	}
	a.enqueue(ctx, sub.AttemptID, ans, sub.Predicted)
	return ans, nil
}

// KeepAfterClose handles text submitted to a session that is closed
// already. Closed at expiry (the tab was away): the text is kept with the
// stored answer, marked late, if it says more than what is stored. Closed
// by an earlier submit (a retried request): nothing changes. The answer is
// returned as stored afterwards; seq is the tab's number for the text,
// raised above the newest save so it is kept whatever the tab numbered it.
func (a *Answers) KeepAfterClose(ctx context.Context, t storage.TimedSession, raw string, seq int64) (storage.TimedAnswer, error) {
	ans, err := a.store.TimedAnswer(ctx, t.AnswerID)
	if err != nil {
		return storage.TimedAnswer{}, err
	}
	text := AnswerBody(raw)
	if ans.Timing.HowEnded != storage.EndedExpired || text == "" || text == ans.Body || text == ans.Timing.LateBody {
		return ans, nil
	}
	seq = min(max(seq, t.DraftSeq+1), storage.MaxDraftSeq)
	if _, _, err := a.store.SaveDraft(ctx, t.ID, seq, text, true, a.now()); err != nil {
		return storage.TimedAnswer{}, err
	}
	return a.store.TimedAnswer(ctx, t.AnswerID)
}

// AnswerBody is raw as an answer is stored: line endings made \n and the
// white space around it gone. Text with nothing a reader could see (only
// white space, control characters such as NUL, or invisible format
// characters such as a zero-width space) is no answer at all: "". Every
// path that stores an answer or turns a draft into one goes through here,
// so "empty" means the same everywhere.
func AnswerBody(raw string) string {
	text := strings.TrimSpace(strings.ReplaceAll(raw, "\r\n", "\n"))
	if strings.IndexFunc(text, visible) < 0 {
		return ""
	}
	return text
}

// visible reports whether r shows as something on a page. Invalid UTF-8
// counts as visible, so the encoding check can name it.
func visible(r rune) bool {
	switch {
	case r == utf8.RuneError:
		return true
	case unicode.IsSpace(r), unicode.IsControl(r),
		unicode.In(r, unicode.Cf, unicode.Zs, unicode.Zl, unicode.Zp,
			unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
		return false
	}
	return true
}

// Open is the attempt's open sessions by scope, as their boxes draw them.
func (a *Answers) Open(ctx context.Context, attemptID int64) (map[string]storage.TimedSession, error) {
	return a.store.OpenTimedSessions(ctx, attemptID)
}

// Session is the session id of the attempt's box at scope, open or closed;
// any other (another user's, another box's) is storage.ErrNotFound.
func (a *Answers) Session(ctx context.Context, attemptID int64, scope string, id int64) (storage.TimedSession, error) {
	t, err := a.store.TimedSession(ctx, id)
	if err == nil && (t.AttemptID != attemptID || t.Scope != scope) {
		return storage.TimedSession{}, storage.ErrNotFound
	}
	return t, err
}

// Answer is the answer id of the attempt to scope; any other is
// storage.ErrNotFound.
func (a *Answers) Answer(ctx context.Context, attemptID int64, scope string, id int64) (storage.TimedAnswer, error) {
	ans, err := a.store.TimedAnswer(ctx, id)
	if err == nil && (ans.AttemptID != attemptID || ans.Scope != scope) {
		return storage.TimedAnswer{}, storage.ErrNotFound
	}
	return ans, err
}
