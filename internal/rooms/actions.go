package rooms

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/faultline-dev/faultline/internal/ratelimit"

	"github.com/faultline-dev/faultline/internal/storage"
)

// MaxExtend bounds one extension of the clock: a slip of the keyboard
// should not give an item a day.
const MaxExtend = 60 * time.Minute

// ReleaseNextHint gives the candidate the current item's next hint.
func (s *Service) ReleaseNextHint(ctx context.Context, a Access) (storage.RoomEvent, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return storage.RoomEvent{}, err
	}
	f, err := s.foldAll(ctx, a)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	it, _ := f.sh.item(f.sh.current)
	ref := f.sh.nextHint(it)
	if ref.Part == 0 {
		return storage.RoomEvent{}, inputErrorf("every hint of %q is already released", it.Title())
	}
	return s.appendOne(ctx, a, KindHintReleased, HintReleased{Item: it.Index, Part: ref.Part, Index: ref.Index})
}

// NextItem moves the room to the next step.
func (s *Service) NextItem(ctx context.Context, a Access) (storage.RoomEvent, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return storage.RoomEvent{}, err
	}
	f, err := s.foldAll(ctx, a)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	next := f.sh.current + 1
	if next >= len(a.Items) {
		return storage.RoomEvent{}, inputErrorf("this is the last step of the room")
	}
	return s.appendOne(ctx, a, KindItemChanged, ItemChanged{Item: next})
}

// Timer actions.
const (
	TimerStart  = "start"
	TimerPause  = "pause"
	TimerResume = "resume"
	TimerExtend = "extend"
)

// Timer drives the current item's clock: start (with the item's limit),
// pause, resume, or extend by by.
func (s *Service) Timer(ctx context.Context, a Access, action string, by time.Duration) (storage.RoomEvent, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return storage.RoomEvent{}, err
	}
	f, err := s.foldAll(ctx, a)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	it, _ := f.sh.item(f.sh.current)
	c := f.sh.clocks[it.Index]
	switch action {
	case TimerStart:
		if c.Started() {
			return storage.RoomEvent{}, inputErrorf("the clock of this step is already started")
		}
		return s.appendOne(ctx, a, KindTimerStarted, TimerStarted{Item: it.Index, LimitMS: it.Limit.Milliseconds()})
	case TimerPause:
		if !c.Running() {
			return storage.RoomEvent{}, inputErrorf("the clock is not running")
		}
		return s.appendOne(ctx, a, KindTimerPaused, TimerPaused{Item: it.Index})
	case TimerResume:
		if !c.Started() || c.Running() {
			return storage.RoomEvent{}, inputErrorf("the clock is not paused")
		}
		return s.appendOne(ctx, a, KindTimerResumed, TimerResumed{Item: it.Index})
	case TimerExtend:
		if !c.Started() {
			return storage.RoomEvent{}, inputErrorf("start the clock before extending it")
		}
		if by <= 0 || by > MaxExtend {
			return storage.RoomEvent{}, inputErrorf("extend the clock by 1 to %d minutes", int(MaxExtend.Minutes()))
		}
		return s.appendOne(ctx, a, KindTimerExtended, TimerExtended{Item: it.Index, ByMS: by.Milliseconds()})
	}
	return storage.RoomEvent{}, inputErrorf("the clock can start, pause, resume or extend, not %q", action)
}

// SaveNotes keeps the interviewer's notes, whole.
func (s *Service) SaveNotes(ctx context.Context, a Access, text string) (storage.RoomEvent, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return storage.RoomEvent{}, err
	}
	text, err := cleanText("The notes", text, MaxNotesBytes)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	return s.appendOne(ctx, a, KindNoteSaved, NoteSaved{Text: text})
}

// Score scores a rubric point of the current item (for a question, one of
// its key points, with part 0); cite, if set, names an invariant of a run
// of this room as its evidence.
func (s *Service) Score(ctx context.Context, a Access, part, point, score int, cite *Cite, note string) (storage.RoomEvent, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return storage.RoomEvent{}, err
	}
	if score < 0 || score > MaxScore {
		return storage.RoomEvent{}, inputErrorf("a score is 0 to %d, not %d", MaxScore, score)
	}
	note, err := cleanText("The score's note", note, MaxScoreNote)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	f, err := s.foldAll(ctx, a)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	it, _ := f.sh.item(f.sh.current)
	if n := rubricLen(it, part); point < 0 || point >= n {
		return storage.RoomEvent{}, inputErrorf("part %d of %q has no rubric point %d", part, it.Title(), point+1)
	}
	if cite != nil {
		r := f.pv.run(cite.Run)
		if r == nil || !r.Finished || r.Item != it.Index {
			return storage.RoomEvent{}, inputErrorf("run %d is not a finished run of this step", cite.Run)
		}
		status, ok := invariantStatus(r.Report, cite.Scenario, cite.Invariant)
		if !ok {
			return storage.RoomEvent{}, inputErrorf("run %d has no invariant %q in scenario %q", cite.Run, cite.Invariant, cite.Scenario)
		}
		cite.Status = status // the run's word, not the form's
	}
	return s.appendOne(ctx, a, KindRubricScored, RubricScored{Item: it.Index, Part: part, Point: point, Score: score, Cite: cite, Note: note})
}

// rubricLen is how many points part of it has: a problem's part rubric,
// or with part 0 a question's key points.
func rubricLen(it Item, part int) int {
	if it.Problem == nil {
		if part != 0 {
			return 0
		}
		return len(it.Question.KeyPoints)
	}
	for _, p := range it.Problem.Parts {
		if p.Number == part {
			return len(p.Rubric)
		}
	}
	return 0
}

// Recommend records the overall recommendation.
func (s *Service) Recommend(ctx context.Context, a Access, value string) (storage.RoomEvent, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return storage.RoomEvent{}, err
	}
	if !slices.Contains(Recommendations, value) {
		return storage.RoomEvent{}, inputErrorf("the recommendation is strong_no, no, yes or strong_yes, not %q", value)
	}
	return s.appendOne(ctx, a, KindRecommendationSet, RecommendationSet{Value: value})
}

// End ends the room: its log closes and both links stop working.
func (s *Service) End(ctx context.Context, a Access) (storage.RoomEvent, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return storage.RoomEvent{}, err
	}
	ev, err := newEvent(a.actor(), KindEnded, Ended{})
	if err != nil {
		return storage.RoomEvent{}, err
	}
	out, err := s.store.EndRoom(ctx, a.Room.ID, s.now(), ev)
	if err != nil {
		return storage.RoomEvent{}, s.closedErr(ctx, a.Room.ID, err)
	}
	s.publish(ctx, a.Room.ID, out.Seq)
	// The authority's cached texts of the room are no use now; the store
	// keeps the history for replay.
	for _, it := range a.Items {
		if it.HasCode() {
			s.docs.Forget(DocName(a.Room.ID, it.Index))
		}
	}
	return out, nil
}

// Signal kinds the candidate's page reports.
const (
	SignalPasteCode   = "paste-code"
	SignalPasteAnswer = "paste-answer"
	SignalHidden      = "hidden"
	SignalVisible     = "visible"
)

// maxPasteBytes caps a reported paste: past it the number is noise.
const maxPasteBytes = 16 << 20

// Signal records a fact from the candidate's page: a paste of n bytes, or
// the tab hidden or shown again. How long it was hidden is measured by
// the server's clock between the two reports, not taken from the page.
func (s *Service) Signal(ctx context.Context, a Access, kind string, n int) (storage.RoomEvent, error) {
	if a.Role != Candidate {
		return storage.RoomEvent{}, inputErrorf("signals come from the candidate's page")
	}
	switch kind {
	case SignalPasteCode, SignalPasteAnswer:
		if n <= 0 {
			return storage.RoomEvent{}, inputErrorf("a paste has a positive size, not %d", n)
		}
		f, err := s.foldAll(ctx, a)
		if err != nil {
			return storage.RoomEvent{}, err
		}
		where := "code"
		if kind == SignalPasteAnswer {
			where = "answer"
		}
		return s.appendOne(ctx, a, KindSignalPaste, SignalPaste{Item: f.sh.current, Bytes: min(n, maxPasteBytes), Where: where})
	case SignalHidden:
		return s.appendOne(ctx, a, KindSignalHidden, TabHidden{})
	case SignalVisible:
		f, err := s.foldAll(ctx, a)
		if err != nil {
			return storage.RoomEvent{}, err
		}
		var hiddenMS int64
		if n := len(f.pv.signals); n > 0 && f.pv.signals[n-1].Kind == KindSignalHidden {
			hiddenMS = max(s.now().Sub(f.pv.signals[n-1].At), 0).Milliseconds()
		}
		return s.appendOne(ctx, a, KindSignalVisible, TabVisible{HiddenMS: hiddenMS})
	}
	return storage.RoomEvent{}, inputErrorf("a signal is paste-code, paste-answer, hidden or visible, not %q", kind)
}

func (s *Service) appendOne(ctx context.Context, a Access, kind string, p any) (storage.RoomEvent, error) {
	ev, err := newEvent(a.actor(), kind, p)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	out, err := s.append(ctx, a, ev)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	return out[0], nil
}

// DefaultCursorReports bounds each participant's cursor reports (moves
// without an edit; an edit's cursor rides with its push): four a second,
// as many at once. The editor sends at most one per 250 ms, the last one
// always, so an honest page never meets it; a script that reports each
// pixel of a drag cannot fill the log or the writer's queue with them.
var DefaultCursorReports = ratelimit.Rate{Burst: 4, PerSecond: 4}

// TooSoonError refuses a cursor report that came too soon after the
// participant's last ones; RetryAfter is when the next is taken.
type TooSoonError struct{ RetryAfter time.Duration }

func (e *TooSoonError) Error() string {
	return fmt.Sprintf("rooms: cursor reports come too fast; the next is taken in %s", e.RetryAfter.Round(time.Millisecond))
}

// MoveCursor records where a's editor cursor is in item's code.
func (s *Service) MoveCursor(ctx context.Context, a Access, c Cursor) (storage.RoomEvent, error) {
	if _, err := codeItem(a, c.Item); err != nil {
		return storage.RoomEvent{}, err
	}
	if actorOfClient(c.ClientID) != a.actor() || len(c.ClientID) > 64 {
		return storage.RoomEvent{}, inputErrorf("the cursor comes from another participant's editor")
	}
	if c.Version < 0 || c.Anchor < 0 || c.Head < 0 || c.Colour < 0 || c.Colour > 3 {
		return storage.RoomEvent{}, inputErrorf("a cursor has no negative positions and a colour of 0 to 3")
	}
	c.Name = roleName(a.Role) // the role's, whatever the page says
	// Counted per participant in this instance's memory: a bound on the
	// rate, not room state; with several instances it is per instance.
	if ok, retry := s.cursors.Take(a.Room.ID+"/"+string(a.Role), 1); !ok {
		return storage.RoomEvent{}, &TooSoonError{RetryAfter: retry}
	}
	return s.appendOne(ctx, a, KindCursor, c)
}

// roleName labels a participant's cursor.
func roleName(r Role) string {
	if r == Candidate {
		return "Candidate"
	}
	return "Interviewer"
}

// EventsAfter reads the room's log after seq as a's holder may see it:
// the candidate's reads go through the store's public reader, so an
// interviewer-only event never reaches the candidate's stream, and after
// is a public seq there (StreamSeq says which number a stream uses).
func (s *Service) EventsAfter(ctx context.Context, a Access, after int64, limit int) ([]storage.RoomEvent, error) {
	if a.Role == Interviewer {
		return s.store.RoomEvents(ctx, a.Room.ID, after, limit)
	}
	return s.store.PublicRoomEvents(ctx, a.Room.ID, after, limit)
}

// StreamSeq is the number ev goes by in a's stream: its seq for the
// interviewer, its public seq for the candidate, whose ids then have no
// gaps that would count the interviewer's own events.
func StreamSeq(a Access, ev storage.RoomEvent) int64 {
	if a.Role == Interviewer {
		return ev.Seq
	}
	return ev.PublicSeq
}
