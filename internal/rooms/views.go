package rooms

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"sort"
	"time"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// ClockAt is an item's clock read at one moment, for a page or an event.
// The rules are timer.Clock's, the same as a screen practised alone: the
// log's timer events drive it.
type ClockAt struct {
	Phase       timer.ClockPhase `json:"phase"`
	LimitMS     int64            `json:"limit_ms"`
	RemainingMS int64            `json:"remaining_ms"`
}

func clockAt(c *timer.Clock, now time.Time) ClockAt {
	st := c.State(now)
	return ClockAt{Phase: st.Phase, LimitMS: c.Limit.Milliseconds(), RemainingMS: st.Remaining.Milliseconds()}
}

// shared is what both sides may know: the fold of the events visible to
// everyone. Folding the interviewer's full log gives the same shared part,
// since the interviewer-only kinds do not touch it.
type shared struct {
	items    []Item
	current  int
	released map[int][]HintRef // by item, in release order
	clocks   map[int]*timer.Clock
	answers  map[int]string // the answer: the last text that came in time
	late     map[int]string // text that came after the clock and its grace ran out
	// submitted: the step's answer is in; the box is closed.
	submitted map[int]bool
	// leftAt is when the room last moved away from a step: the candidate's
	// last keystrokes there are still on their way (see SaveAnswer).
	leftAt   map[int]time.Time
	sharedRs []SharedRun
	ended    bool
	lastSeq  int64
	// lastPublic is the last public seq folded: where the candidate's
	// stream starts.
	lastPublic int64
}

// SharedRun is a grader report shown to the candidate.
type SharedRun struct {
	Item    int
	Run     int64
	Verdict string
	Summary string
	Report  json.RawMessage
	At      time.Time
}

func newShared(items []Item) *shared {
	st := &shared{items: items, released: map[int][]HintRef{}, clocks: map[int]*timer.Clock{}, answers: map[int]string{},
		late: map[int]string{}, submitted: map[int]bool{}, leftAt: map[int]time.Time{}}
	for _, it := range items {
		st.clocks[it.Index] = &timer.Clock{Limit: it.Limit}
	}
	return st
}

func (st *shared) item(i int) (Item, bool) {
	if i < 0 || i >= len(st.items) {
		return Item{}, false
	}
	return st.items[i], true
}

// apply folds one event into the shared state. It reports whether the
// event was one of the shared kinds. Events that no longer apply are
// ignored (see the package comment).
func (st *shared) apply(ev storage.RoomEvent) (bool, error) {
	st.lastSeq = ev.Seq
	if ev.PublicSeq > 0 {
		st.lastPublic = ev.PublicSeq
	}
	switch ev.Kind {
	case KindCreated, KindCodeUpdate:
	case KindItemChanged:
		var p ItemChanged
		if err := decode(ev, &p); err != nil {
			return true, err
		}
		if _, ok := st.item(p.Item); ok && p.Item != st.current {
			st.stopClock(st.current, ev.At)
			st.leftAt[st.current] = ev.At
			st.current = p.Item
		}
	case KindHintReleased:
		var p HintReleased
		if err := decode(ev, &p); err != nil {
			return true, err
		}
		ref := HintRef{Part: p.Part, Index: p.Index}
		if it, ok := st.item(p.Item); ok && st.nextHint(it) == ref {
			st.released[p.Item] = append(st.released[p.Item], ref)
		}
	case KindTimerStarted, KindTimerPaused, KindTimerResumed, KindTimerExtended:
		return true, st.applyClock(ev)
	case KindAnswerText:
		var p AnswerText
		if err := decode(ev, &p); err != nil {
			return true, err
		}
		switch {
		case st.submitted[p.Item]:
			// Nothing is taken after the submit (SaveAnswer refuses it).
		case p.Late:
			st.late[p.Item] = p.Text
		default:
			st.answers[p.Item] = p.Text
		}
		st.submitted[p.Item] = st.submitted[p.Item] || p.Final
	case KindRunShared:
		var p RunShared
		if err := decode(ev, &p); err != nil {
			return true, err
		}
		for _, r := range st.sharedRs {
			if r.Run == p.Run {
				return true, nil
			}
		}
		st.sharedRs = append(st.sharedRs, SharedRun{Item: p.Item, Run: p.Run, Verdict: p.Verdict, Summary: p.Summary, Report: p.Report, At: ev.At})
	case KindEnded:
		st.stopClock(st.current, ev.At)
		st.ended = true
	default:
		return false, nil
	}
	return true, nil
}

// stopClock holds item's clock at at: the room has left the step (or
// ended), so its time stops there. Nobody can press pause on a step the
// room has left, and the scorecard's time used would otherwise run on to
// the room's end.
func (st *shared) stopClock(item int, at time.Time) {
	if c := st.clocks[item]; c != nil && c.Running() {
		*c, _ = c.Pause(at) // a running clock has started: Pause cannot fail
	}
}

// nextHint is the hint to release next for it; the zero HintRef with
// Part 0 when every hint is out.
func (st *shared) nextHint(it Item) HintRef {
	all := it.hints()
	n := len(st.released[it.Index])
	if n >= len(all) {
		return HintRef{}
	}
	return all[n]
}

func (st *shared) applyClock(ev storage.RoomEvent) error {
	var p struct {
		Item    int   `json:"item"`
		LimitMS int64 `json:"limit_ms"`
		ByMS    int64 `json:"by_ms"`
	}
	if err := decode(ev, &p); err != nil {
		return err
	}
	c := st.clocks[p.Item]
	if c == nil {
		return nil
	}
	// A change that does not apply (a pause before the start) leaves the
	// clock as it was: two tabs pressing at once do no harm.
	var next timer.Clock
	var err error
	switch ev.Kind {
	case KindTimerStarted:
		next = *c
		if !c.Started() && p.LimitMS > 0 {
			next.Limit = time.Duration(p.LimitMS) * time.Millisecond
		}
		next = next.Start(ev.At)
	case KindTimerPaused:
		next, err = c.Pause(ev.At)
	case KindTimerResumed:
		next, err = c.Resume(ev.At)
	case KindTimerExtended:
		if !c.Started() {
			return nil
		}
		next, err = c.Extend(ev.At, time.Duration(p.ByMS)*time.Millisecond)
	}
	if err == nil {
		*c = next
	}
	return nil
}

func decode(ev storage.RoomEvent, v any) error {
	if err := json.Unmarshal(ev.Payload, v); err != nil {
		return fmt.Errorf("rooms: room %s event %d (%s): %w", ev.RoomID, ev.Seq, ev.Kind, err)
	}
	return nil
}

// CandidateView is everything the candidate's page shows. It is built
// only from content meant for the candidate and from events visible to
// everyone; it has no field that could hold a rubric, a model answer, a
// key point, a follow-up, the script, a note, a score or a signal.
type CandidateView struct {
	RoomID  string
	LastSeq int64
	Ended   bool
	Current CandidateItem
	Items   int // how many steps the room has
	Clock   ClockAt
	Shared  []SharedRun // of the current item
	Answer  string      // the candidate's answer to the current question
	// AnswerLate is their text that came after the clock ran out; kept, not the answer.
	AnswerLate      string
	AnswerSubmitted bool
}

// CandidateItem is the current step as the candidate may see it.
type CandidateItem struct {
	Index     int
	Title     string
	Prompt    template.HTML // the problem's prompt, or the question's details
	Parts     []CandidatePart
	Hints     []ReleasedHint
	HintsLeft int
	HasCode   bool
	Starter   string
	// Language is what the code is written and graded in
	// (storage.LangGo or storage.LangPython; "" without code).
	Language    string
	IsQuestion  bool
	QuestionSet string
	// Reference is the problem's harness reference and Glossary its
	// terms: what the code is written against, shown as the solo page
	// shows them. What the grader checks stays out (it is Part 1's answer
	// until there are results).
	Reference []problems.Section
	Glossary  []problems.GlossaryEntry
}

// GraderChecksTitle is the title of the content section that lists what
// the grader checks: before anything is written it is Part 1's answer,
// so the candidate's page leaves it out (the solo page shows it beside
// results only).
const GraderChecksTitle = "What the grader checks"

// CandidatePart is a part's title and prompt: its rubric stays behind.
type CandidatePart struct {
	Number int
	Title  string
	Prompt template.HTML
}

// ReleasedHint is a hint the interviewer gave.
type ReleasedHint struct {
	Part  int
	Index int
	HTML  template.HTML
}

// PublicEvents are a room's events as the store's public reader returned
// them. Only CandidateViewOf's caller makes one, from
// storage.PublicRoomEvents.
type PublicEvents []storage.RoomEvent

// streamOnly are the kinds the views do not fold: the editor's steps and
// cursors, which are most of a room's log. The streams and replay read
// them; a view would only skip them after reading them.
var streamOnly = []string{KindCodeUpdate, KindCursor}

// ReadPublic reads a room's events visible to everyone, all but the
// editor's steps and cursors.
func (s *Service) ReadPublic(ctx context.Context, roomID string) (PublicEvents, error) {
	var out PublicEvents
	for after := int64(0); ; {
		page, err := s.store.PublicRoomEvents(ctx, roomID, after, storage.MaxRoomEventsRead, streamOnly...)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < storage.MaxRoomEventsRead {
			return out, nil
		}
		after = page[len(page)-1].PublicSeq
	}
}

// readAll reads every event of the room, for the interviewer (replay,
// the scorecard), never for the candidate.
func (s *Service) readAll(ctx context.Context, roomID string) ([]storage.RoomEvent, error) {
	return s.readLog(ctx, roomID)
}

// readState is readAll without the editor's steps and cursors: what the
// views and the use cases' own checks fold.
func (s *Service) readState(ctx context.Context, roomID string) ([]storage.RoomEvent, error) {
	return s.readLog(ctx, roomID, streamOnly...)
}

func (s *Service) readLog(ctx context.Context, roomID string, skip ...string) ([]storage.RoomEvent, error) {
	var out []storage.RoomEvent
	for after := int64(0); ; {
		page, err := s.store.RoomEvents(ctx, roomID, after, storage.MaxRoomEventsRead, skip...)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < storage.MaxRoomEventsRead {
			return out, nil
		}
		after = page[len(page)-1].Seq
	}
}

// CandidateView is the candidate's page of the room now.
func (s *Service) CandidateView(ctx context.Context, a Access) (CandidateView, error) {
	evs, err := s.ReadPublic(ctx, a.Room.ID)
	if err != nil {
		return CandidateView{}, err
	}
	return candidateViewOf(a, evs, s.now())
}

func candidateViewOf(a Access, evs PublicEvents, now time.Time) (CandidateView, error) {
	st := newShared(a.Items)
	for _, ev := range evs {
		if ev.Visibility != storage.VisibleToEveryone {
			// Cannot happen with the public reader; refusing is cheaper
			// than trusting it.
			return CandidateView{}, fmt.Errorf("rooms: room %s event %d is not public", ev.RoomID, ev.Seq)
		}
		if _, err := st.apply(ev); err != nil {
			return CandidateView{}, err
		}
	}
	it, _ := st.item(st.current)
	v := CandidateView{RoomID: a.Room.ID, LastSeq: st.lastPublic, Ended: st.ended, Items: len(st.items),
		Clock: clockAt(st.clocks[it.Index], now), Answer: st.answers[it.Index],
		AnswerLate: st.late[it.Index], AnswerSubmitted: st.submitted[it.Index]}
	v.Current = candidateItem(it, st.released[it.Index])
	for _, r := range st.sharedRs {
		if r.Item == it.Index {
			v.Shared = append(v.Shared, r)
		}
	}
	return v, nil
}

func candidateItem(it Item, released []HintRef) CandidateItem {
	ci := CandidateItem{Index: it.Index, Title: it.Title(), HasCode: it.HasCode()}
	if it.Problem == nil {
		ci.IsQuestion = true
		ci.QuestionSet = it.Set.Title
		ci.Prompt = template.HTML(it.Question.Details.HTML)
		return ci
	}
	p := it.Problem
	ci.Prompt = template.HTML(p.Prompt.HTML)
	ci.Starter, ci.Language = it.Starter(), it.Language
	for _, part := range p.Parts {
		ci.Parts = append(ci.Parts, CandidatePart{Number: part.Number, Title: part.Title, Prompt: template.HTML(part.Prompt.HTML)})
	}
	for _, sec := range p.Sections {
		if sec.Title != GraderChecksTitle {
			ci.Reference = append(ci.Reference, sec)
		}
	}
	ci.Glossary = p.Glossary
	ci.Hints = releasedHints(p, released)
	ci.HintsLeft = len(it.hints()) - len(released)
	return ci
}

func releasedHints(p *problems.Problem, released []HintRef) []ReleasedHint {
	var out []ReleasedHint
	for _, ref := range released {
		for _, part := range p.Parts {
			if part.Number == ref.Part && ref.Index < len(part.Hints) {
				out = append(out, ReleasedHint{Part: ref.Part, Index: ref.Index, HTML: template.HTML(part.Hints[ref.Index].Text.HTML)})
			}
		}
	}
	return out
}

// InterviewerView is everything the interviewer's page shows: the
// candidate's view and the interviewer's material beside it.
type InterviewerView struct {
	Candidate CandidateView // what the candidate sees now
	LastSeq   int64         // the seq of the last event folded: the interviewer's stream resumes after it
	Item      Item          // the current step, whole (rubric, model answer...)
	NextHint  *ReleasedHint // nil when every hint is out
	Runs      []Run         // of the current item, newest last
	Notes     string        // Markdown
	NotesHTML template.HTML
	Scores    map[ScoreKey]RubricScored
	Recommend string
	Signals   []Signal
	Timeline  []TimelineEntry
	Script    *problems.Screen // nil for a room from one problem
	Answers   map[int]string   // every item's answer: its last text in time
	Late      map[int]string   // text that came after an item's clock ran out
	Submitted map[int]bool     // items whose answer is submitted
}

// ScoreKey names a rubric point.
type ScoreKey struct{ Item, Part, Point int }

// Run is one grading of the room's code.
type Run struct {
	Item     int
	Run      int64
	Started  time.Time
	Finished bool
	Status   string
	Verdict  string
	Summary  string
	Report   json.RawMessage
	Shared   bool
	// Lost: unfinished past its lease, so the server grading it stopped
	// before recording its end (it will never come).
	Lost bool
}

// Signal is a fact about the candidate's session, not a verdict.
type Signal struct {
	At       time.Time
	Kind     string // KindSignalPaste, KindSignalHidden or KindSignalVisible
	Item     int
	Bytes    int
	Where    string
	HiddenMS int64
}

// TimelineEntry is one event, named for the interviewer's timeline.
type TimelineEntry struct {
	Seq   int64
	At    time.Time
	Actor string
	Kind  string
}

// private is the fold of the interviewer-only kinds.
type private struct {
	runs      []Run
	notes     string
	scores    map[ScoreKey]RubricScored
	recommend string
	signals   []Signal
	timeline  []TimelineEntry
}

func (pv *private) apply(ev storage.RoomEvent) error {
	if ev.Kind != KindCodeUpdate && ev.Kind != KindAnswerText && ev.Kind != KindCursor {
		pv.timeline = append(pv.timeline, TimelineEntry{Seq: ev.Seq, At: ev.At, Actor: ev.Actor, Kind: ev.Kind})
	}
	switch ev.Kind {
	case KindRunStarted:
		var p RunStarted
		if err := decode(ev, &p); err != nil {
			return err
		}
		pv.runs = append(pv.runs, Run{Item: p.Item, Run: ev.Seq, Started: ev.At})
	case KindRunFinished:
		var p RunFinished
		if err := decode(ev, &p); err != nil {
			return err
		}
		if r := pv.run(p.Run); r != nil && !r.Finished {
			r.Finished, r.Status, r.Verdict, r.Summary, r.Report = true, p.Status, p.Verdict, p.Summary, p.Report
		}
	case KindRunShared:
		var p RunShared
		if err := decode(ev, &p); err != nil {
			return err
		}
		if r := pv.run(p.Run); r != nil {
			r.Shared = true
		}
	case KindNoteSaved:
		var p NoteSaved
		if err := decode(ev, &p); err != nil {
			return err
		}
		pv.notes = p.Text
	case KindRubricScored:
		var p RubricScored
		if err := decode(ev, &p); err != nil {
			return err
		}
		pv.scores[ScoreKey{Item: p.Item, Part: p.Part, Point: p.Point}] = p
	case KindRecommendationSet:
		var p RecommendationSet
		if err := decode(ev, &p); err != nil {
			return err
		}
		pv.recommend = p.Value
	case KindSignalPaste:
		var p SignalPaste
		if err := decode(ev, &p); err != nil {
			return err
		}
		pv.signals = append(pv.signals, Signal{At: ev.At, Kind: ev.Kind, Item: p.Item, Bytes: p.Bytes, Where: p.Where})
	case KindSignalHidden:
		pv.signals = append(pv.signals, Signal{At: ev.At, Kind: ev.Kind})
	case KindSignalVisible:
		var p TabVisible
		if err := decode(ev, &p); err != nil {
			return err
		}
		pv.signals = append(pv.signals, Signal{At: ev.At, Kind: ev.Kind, HiddenMS: p.HiddenMS})
	}
	return nil
}

func (pv *private) run(id int64) *Run {
	for i := range pv.runs {
		if pv.runs[i].Run == id {
			return &pv.runs[i]
		}
	}
	return nil
}

// folded is the whole log folded: both parts.
type folded struct {
	sh *shared
	pv *private
}

func fold(items []Item, evs []storage.RoomEvent) (folded, error) {
	f := folded{sh: newShared(items), pv: &private{scores: map[ScoreKey]RubricScored{}}}
	for _, ev := range evs {
		if _, err := f.sh.apply(ev); err != nil {
			return folded{}, err
		}
		if err := f.pv.apply(ev); err != nil {
			return folded{}, err
		}
	}
	return f, nil
}

func (s *Service) foldAll(ctx context.Context, a Access) (folded, error) {
	evs, err := s.readState(ctx, a.Room.ID)
	if err != nil {
		return folded{}, err
	}
	return fold(a.Items, evs)
}

// InterviewerView is the interviewer's page of the room now.
func (s *Service) InterviewerView(ctx context.Context, a Access) (InterviewerView, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return InterviewerView{}, err
	}
	evs, err := s.readState(ctx, a.Room.ID)
	if err != nil {
		return InterviewerView{}, err
	}
	f, err := fold(a.Items, evs)
	if err != nil {
		return InterviewerView{}, err
	}
	var public PublicEvents
	for _, ev := range evs {
		if ev.Visibility == storage.VisibleToEveryone {
			public = append(public, ev)
		}
	}
	now := s.now()
	cv, err := candidateViewOf(a, public, now)
	if err != nil {
		return InterviewerView{}, err
	}
	it, _ := f.sh.item(f.sh.current)
	v := InterviewerView{Candidate: cv, LastSeq: f.sh.lastSeq, Item: it, Notes: f.pv.notes, Scores: f.pv.scores, Recommend: f.pv.recommend,
		Signals: f.pv.signals, Timeline: f.pv.timeline, Script: s.Screen(a), Answers: f.sh.answers, Late: f.sh.late, Submitted: f.sh.submitted}
	if ref := f.sh.nextHint(it); ref.Part != 0 {
		if hs := releasedHints(it.Problem, []HintRef{ref}); len(hs) == 1 {
			v.NextHint = &hs[0]
		}
	}
	var lease *storage.RoomRunLease
	for _, r := range f.pv.runs {
		if r.Item != it.Index {
			continue
		}
		if !r.Finished {
			if lease == nil {
				l, err := s.store.RoomRunLeaseOf(ctx, a.Room.ID)
				if err != nil {
					return InterviewerView{}, err
				}
				lease = &l
			}
			r.Lost = !s.runAlive(*lease, r, now)
		}
		v.Runs = append(v.Runs, r)
	}
	sort.SliceStable(v.Runs, func(i, j int) bool { return v.Runs[i].Run < v.Runs[j].Run })
	if f.pv.notes != "" {
		html, err := problems.RenderMarkdown(f.pv.notes)
		if err != nil {
			return InterviewerView{}, fmt.Errorf("rooms: render the notes of room %s: %w", a.Room.ID, err)
		}
		v.NotesHTML = template.HTML(html)
	}
	return v, nil
}
