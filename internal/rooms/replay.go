package rooms

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/storage"
)

// Replay is a room's history for scrubbing, read from its log: every event
// is a moment on its participant's track, and Frame answers what the room
// looked like just after any of them. It is the interviewer's: the log it
// reads holds the interviewer-only kinds.
//
// A moment is named by its event's seq; the frame at seq t folds the
// events up to t and walks each shared document's updates once
// (collab.Replay), so the code shown is exactly the document the editors
// held at t. Building a Replay is one pass over the log; a frame is one
// pass over the events before it, never one per update.
type Replay struct {
	RoomID     string       `json:"room_id"`
	StartedAt  time.Time    `json:"started_at"`
	EndedAt    *time.Time   `json:"ended_at,omitempty"`
	DurationMS int64        `json:"duration_ms"` // from the first event to the last
	Items      []ReplayItem `json:"items"`
	Tracks     []string     `json:"tracks"` // the actors with a track, in the order shown
	Moments    []Moment     `json:"moments"`

	items  []Item
	events []storage.RoomEvent
	docs   map[string]*replayDoc // by document name ("code/<item>")
}

// checkpointEvery is how many updates apart a replay keeps a document's
// text: a frame applies at most this many past the one before it, so
// answering a moment costs the same early or late in a long room. At
// 10,000 keystrokes on the async-refund starter that is 79 texts, about
// 1 MB.
const checkpointEvery = 128

// replayDoc is one shared document's history in a replay.
type replayDoc struct {
	seqs    []int64 // the event of each update: version i+1's is seqs[i]
	ups     []collab.Update
	moments []int          // each update's index in Replay.Moments
	kept    []string       // kept[k] is the text at version k*checkpointEvery
	cursors []replayCursor // every selection the log holds for it, in seq order
}

// replayCursor is a participant's selection as the log has it: from an
// update that carried it, or a cursor.moved report; positions in the
// text at Version.
type replayCursor struct {
	Seq          int64
	Actor        string
	Version      int
	Anchor, Head int
}

// maxCursorMapping bounds the updates a frame maps an old cursor report
// through: a participant who has not moved for that many of the other's
// keystrokes is not drawn, rather than the frame parsing them all.
const maxCursorMapping = 2000

// ReplayItem is a step of the room, as the replay names it.
type ReplayItem struct {
	Index   int    `json:"index"`
	Title   string `json:"title"`
	HasCode bool   `json:"has_code"`
}

// Moment is one event on a track.
type Moment struct {
	Seq   int64  `json:"seq"`
	AtMS  int64  `json:"at_ms"` // since the room was made
	Track string `json:"track"` // the actor: interviewer, candidate, system
	Class string `json:"class"` // one of MomentClasses
	Kind  string `json:"kind"`  // the event's kind
	Item  int    `json:"item"`  // the step it belongs to; -1 for none
	Label string `json:"label"`
}

// Moment classes: what "jump to the next ..." jumps by.
const (
	ClassEdit   = "edit"   // a code update or a saved answer
	ClassPaste  = "paste"  // a paste signal
	ClassHint   = "hint"   // a hint released
	ClassTimer  = "timer"  // the clock started, paused, resumed, extended
	ClassRun    = "run"    // the grader started, finished, shared
	ClassNote   = "note"   // the notes saved
	ClassScore  = "score"  // a rubric score or the recommendation
	ClassSignal = "signal" // the tab hidden or back
	ClassStep   = "step"   // the room moved to another step
	ClassRoom   = "room"   // the room made or ended
)

// MomentClasses lists the classes in the order the page offers them.
var MomentClasses = []string{ClassEdit, ClassPaste, ClassHint, ClassTimer, ClassRun, ClassNote, ClassScore, ClassSignal, ClassStep, ClassRoom}

// replayTracks is the order of the tracks; the grader's runs end on the
// system's.
var replayTracks = []string{storage.ActorCandidate, storage.ActorInterviewer, storage.ActorSystem}

// Replay reads the room's log for scrubbing. Only the interviewer's
// access reaches it; the room may have ended or expired.
func (s *Service) Replay(ctx context.Context, a Access) (*Replay, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return nil, err
	}
	// The room read again, not a.Room: an access kept from before the
	// last events must not be answered from a replay without them.
	room, err := s.store.Room(ctx, a.Room.ID)
	if err != nil {
		return nil, s.closedErr(ctx, a.Room.ID, err)
	}
	if r := s.replays.get(a.Room.ID, room.LastSeq); r != nil {
		return r, nil
	}
	evs, err := s.readAll(ctx, a.Room.ID)
	if err != nil {
		return nil, err
	}
	r, err := buildReplay(a, evs)
	if err != nil {
		return nil, err
	}
	s.replays.put(r)
	return r, nil
}

// replayCache keeps the replays built last, so scrubbing a room reads
// and walks its log once rather than once a moment. An entry is good
// while the room's log has not grown past it (the store's last seq says
// so; a closed room's never moves).
// It only saves work: a miss rebuilds from the store, so several server
// instances each keep their own without disagreeing.
type replayCache struct {
	mu    sync.Mutex
	max   int
	byID  map[string]*Replay
	order []string // least recently used first
}

// replayCacheRooms bounds the cache: a handful of interviewers writing up
// at once, each room's replay a few MB at 10,000 keystrokes.
const replayCacheRooms = 8

func newReplayCache(n int) *replayCache { return &replayCache{max: n, byID: map[string]*Replay{}} }

func (c *replayCache) get(roomID string, lastSeq int64) *Replay {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.byID[roomID]
	if r == nil || r.LastSeq() < lastSeq {
		return nil
	}
	c.touch(roomID)
	return r
}

func (c *replayCache) put(r *Replay) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.byID[r.RoomID]; old != nil && old.LastSeq() > r.LastSeq() {
		return // a slower build of an older log
	}
	c.byID[r.RoomID] = r
	c.touch(r.RoomID)
	for len(c.order) > c.max {
		delete(c.byID, c.order[0])
		c.order = c.order[1:]
	}
}

func (c *replayCache) touch(roomID string) {
	c.order = slices.DeleteFunc(c.order, func(id string) bool { return id == roomID })
	c.order = append(c.order, roomID)
}

func buildReplay(a Access, evs []storage.RoomEvent) (*Replay, error) {
	r := &Replay{RoomID: a.Room.ID, StartedAt: a.Room.CreatedAt, Tracks: replayTracks, items: a.Items, events: evs,
		Moments: make([]Moment, 0, len(evs)), docs: map[string]*replayDoc{}}
	if end := endedAt(a.Room, evs); !end.IsZero() {
		r.EndedAt = &end
	}
	for _, it := range a.Items {
		r.Items = append(r.Items, ReplayItem{Index: it.Index, Title: it.Title(), HasCode: it.HasCode()})
	}
	doc := func(name string) *replayDoc {
		d := r.docs[name]
		if d == nil {
			d = &replayDoc{}
			r.docs[name] = d
		}
		return d
	}
	for _, ev := range evs {
		if ev.Kind == KindCursor {
			var c Cursor
			if err := decode(ev, &c); err != nil {
				return nil, err
			}
			d := doc(codeDoc(c.Item))
			d.cursors = append(d.cursors, replayCursor{Seq: ev.Seq, Actor: ev.Actor, Version: c.Version, Anchor: c.Anchor, Head: c.Head})
			continue
		}
		m, ok, err := r.moment(ev)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if ev.Kind == KindCodeUpdate {
			var u collab.Update
			if err := decode(ev, &u); err != nil {
				return nil, err
			}
			d := doc(ev.Doc)
			d.seqs, d.ups, d.moments = append(d.seqs, ev.Seq), append(d.ups, u), append(d.moments, len(r.Moments))
			if u.Selection != nil {
				d.cursors = append(d.cursors, replayCursor{Seq: ev.Seq, Actor: ev.Actor, Version: len(d.ups),
					Anchor: u.Selection.Anchor, Head: u.Selection.Head})
			}
		}
		r.Moments = append(r.Moments, m)
	}
	if err := r.walkDocs(); err != nil {
		return nil, err
	}
	if n := len(evs); n > 0 {
		r.DurationMS = max(evs[n-1].At.Sub(r.StartedAt), 0).Milliseconds()
	}
	return r, nil
}

// walkDocs walks each document's history once (collab.Replay): it keeps
// a text every checkpointEvery versions and labels each edit with how
// much it changed the length.
func (r *Replay) walkDocs() error {
	for _, it := range r.items {
		d := r.docs[codeDoc(it.Index)]
		if !it.HasCode() || d == nil {
			continue
		}
		prev := 0
		err := collab.Replay(it.Starter(), d.ups, func(v int, text string) bool {
			n := collab.Length(text)
			if v > 0 {
				r.Moments[d.moments[v-1]].Label = "Code edited (" + signed(n-prev) + " characters)"
			}
			if v%checkpointEvery == 0 {
				d.kept = append(d.kept, text)
			}
			prev = n
			return true
		})
		if err != nil {
			return fmt.Errorf("rooms: room %s, step %d: %w", r.RoomID, it.Index+1, err)
		}
	}
	return nil
}

// moment names one event. Kinds the replay does not show (a cursor move,
// or one added after it was written) are no moment, so stepping never
// lands on a frame that looks like the one before.
func (r *Replay) moment(ev storage.RoomEvent) (Moment, bool, error) {
	m := Moment{Seq: ev.Seq, AtMS: max(ev.At.Sub(r.StartedAt), 0).Milliseconds(), Track: ev.Actor, Kind: ev.Kind, Item: -1}
	var p struct {
		Item    *int   `json:"item"`
		Part    int    `json:"part"`
		Index   int    `json:"index"`
		Point   int    `json:"point"`
		Score   int    `json:"score"`
		LimitMS int64  `json:"limit_ms"`
		ByMS    int64  `json:"by_ms"`
		Bytes   int    `json:"bytes"`
		Where   string `json:"where"`
		Summary string `json:"summary"`
		Value   string `json:"value"`
		Text    string `json:"text"`
		Hidden  int64  `json:"hidden_ms"`
	}
	if ev.Kind != KindCodeUpdate {
		if err := decode(ev, &p); err != nil {
			return Moment{}, false, err
		}
		if p.Item != nil {
			m.Item = *p.Item
		}
	}
	switch ev.Kind {
	case KindCreated:
		m.Class, m.Label = ClassRoom, "Room opened"
	case KindEnded:
		m.Class, m.Label = ClassRoom, "Room ended"
	case KindItemChanged:
		m.Class, m.Label = ClassStep, "Step "+strconv.Itoa(m.Item+1)+": "+r.title(m.Item)
	case KindHintReleased:
		m.Class, m.Label = ClassHint, fmt.Sprintf("Hint %d of part %d released", p.Index+1, p.Part)
	case KindTimerStarted:
		m.Class, m.Label = ClassTimer, "Clock started ("+minutes(p.LimitMS)+")"
	case KindTimerPaused:
		m.Class, m.Label = ClassTimer, "Clock paused"
	case KindTimerResumed:
		m.Class, m.Label = ClassTimer, "Clock resumed"
	case KindTimerExtended:
		m.Class, m.Label = ClassTimer, "Clock extended by "+minutes(p.ByMS)
	case KindCodeUpdate:
		// A document that is no step's code (a kind of document added
		// later) is still a moment, of no step.
		if item, err := docItem(ev.Doc); err == nil {
			m.Item = item
		}
		m.Class, m.Label = ClassEdit, "Code edited" // walkDocs adds the size
	case KindAnswerText:
		m.Class, m.Label = ClassEdit, fmt.Sprintf("Answer saved (%d characters)", len([]rune(p.Text)))
	case KindRunStarted:
		m.Class, m.Label = ClassRun, "Grader started"
	case KindRunFinished:
		m.Class, m.Label = ClassRun, "Grader finished: "+p.Summary
	case KindRunShared:
		m.Class, m.Label = ClassRun, "Report shared with the candidate"
	case KindNoteSaved:
		m.Class, m.Label = ClassNote, "Notes saved"
	case KindRubricScored:
		where := fmt.Sprintf("part %d, point %d", p.Part, p.Point+1)
		if p.Part == 0 {
			where = fmt.Sprintf("key point %d", p.Point+1)
		}
		m.Class, m.Label = ClassScore, fmt.Sprintf("Scored %s: %d of %d", where, p.Score, MaxScore)
	case KindRecommendationSet:
		m.Class, m.Label = ClassScore, "Recommendation: "+RecommendationLabel(p.Value)
	case KindSignalPaste:
		m.Class, m.Label = ClassPaste, fmt.Sprintf("Pasted %d bytes into the %s", p.Bytes, p.Where)
	case KindSignalHidden:
		m.Class, m.Label = ClassSignal, "Tab hidden"
	case KindSignalVisible:
		m.Class, m.Label = ClassSignal, "Tab back after "+seconds(p.Hidden)
	default:
		return Moment{}, false, nil
	}
	return m, true, nil
}

// endedAt is when the room ended: the log's room.ended says so even when
// the access was checked before it.
func endedAt(room storage.Room, evs []storage.RoomEvent) time.Time {
	if n := len(evs); n > 0 && evs[n-1].Kind == KindEnded {
		return evs[n-1].At.UTC()
	}
	return room.EndedAt
}

func (r *Replay) title(item int) string {
	if item < 0 || item >= len(r.items) {
		return "?"
	}
	return r.items[item].Title()
}

// docItem is the item of a code document's name ("code/<item>").
func docItem(doc string) (int, error) {
	n, err := strconv.Atoi(doc[min(len("code/"), len(doc)):])
	if err != nil || codeDoc(n) != doc {
		return 0, fmt.Errorf("%q is not a code document", doc)
	}
	return n, nil
}

func signed(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	if n < 0 {
		return "−" + strconv.Itoa(-n)
	}
	return "±0"
}

func minutes(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d%time.Minute == 0 {
		return strconv.FormatInt(int64(d/time.Minute), 10) + " min"
	}
	return d.Round(time.Second).String()
}

func seconds(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).Round(time.Second).String()
}

// RecommendationLabel is a recommendation in words.
func RecommendationLabel(v string) string {
	switch v {
	case "strong_no":
		return "strong no"
	case "no":
		return "no"
	case "yes":
		return "yes"
	case "strong_yes":
		return "strong yes"
	case "":
		return "none"
	}
	return v
}

// Frame is the room just after the event Seq: what the replay shows at
// that moment.
type Frame struct {
	Seq     int64         `json:"seq"`
	AtMS    int64         `json:"at_ms"`
	Moment  *Moment       `json:"moment,omitempty"` // the event at Seq, when it is a moment
	Current int           `json:"current"`          // the step the room was on
	Code    []FrameCode   `json:"code"`             // every code step's text
	Answers []FrameAnswer `json:"answers"`          // every question step's answer so far
	Clock   ClockAt       `json:"clock"`            // the current step's clock
	Hints   int           `json:"hints_released"`   // of the current step
	Notes   string        `json:"notes"`            // the interviewer's notes then, in Markdown
	Nav     FrameNav      `json:"nav"`
}

// FrameCode is a code step's shared document at a moment.
type FrameCode struct {
	Item     int           `json:"item"`
	Language string        `json:"language"` // the step's code language: "go" or "python"
	Version  int           `json:"version"`
	Text     string        `json:"text"`
	Cursors  []FrameCursor `json:"cursors"` // each participant's, candidate first, as the editors drew them then
}

// FrameCursor is a participant's cursor and selection in a frame's text:
// Anchor and Head in UTF-16 code units, and where Head is as a line and
// a column (from 1, in characters) for people.
type FrameCursor struct {
	Actor  string `json:"actor"`
	Anchor int    `json:"anchor"`
	Head   int    `json:"head"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// FrameAnswer is a question step's answer at a moment.
type FrameAnswer struct {
	Item int    `json:"item"`
	Text string `json:"text"`
}

// FrameNav is where stepping goes from a frame: the moment before and
// after, and the next and previous moment of each class (0: none).
type FrameNav struct {
	First   int64            `json:"first"`
	Last    int64            `json:"last"`
	Prev    int64            `json:"prev"`
	Next    int64            `json:"next"`
	NextOf  map[string]int64 `json:"next_of"`
	PrevOf  map[string]int64 `json:"prev_of"`
	Index   int              `json:"index"` // of the frame's moment (or the one before it) in Moments
	Moments int              `json:"moments"`
}

// LastSeq is the seq of the log's last event.
func (r *Replay) LastSeq() int64 {
	if len(r.events) == 0 {
		return 0
	}
	return r.events[len(r.events)-1].Seq
}

// Frame is the room just after the event seq; a seq past the log is its
// end, and one before it its start.
func (r *Replay) Frame(seq int64) (Frame, error) {
	if len(r.events) == 0 {
		return Frame{}, fmt.Errorf("rooms: room %s has no events", r.RoomID)
	}
	seq = min(max(seq, r.events[0].Seq), r.LastSeq())
	n := sort.Search(len(r.events), func(i int) bool { return r.events[i].Seq > seq })
	prefix := r.events[:n]
	f, err := fold(r.items, prefix)
	if err != nil {
		return Frame{}, err
	}
	last := prefix[len(prefix)-1]
	fr := Frame{Seq: last.Seq, AtMS: max(last.At.Sub(r.StartedAt), 0).Milliseconds(), Current: f.sh.current,
		Notes: f.pv.notes, Code: []FrameCode{}, Answers: []FrameAnswer{}}
	if it, ok := f.sh.item(f.sh.current); ok {
		fr.Clock = clockAt(f.sh.clocks[it.Index], last.At)
		fr.Hints = len(f.sh.released[it.Index])
	}
	if fr.Code, err = r.codeAt(seq); err != nil {
		return Frame{}, fmt.Errorf("rooms: room %s at %d: %w", r.RoomID, seq, err)
	}
	for _, it := range r.items {
		if it.Question != nil {
			fr.Answers = append(fr.Answers, FrameAnswer{Item: it.Index, Text: f.sh.answers[it.Index]})
		}
	}
	fr.Nav = r.nav(last.Seq)
	if i := fr.Nav.Index; i >= 0 && i < len(r.Moments) && r.Moments[i].Seq == last.Seq {
		m := r.Moments[i]
		fr.Moment = &m
	}
	return fr, nil
}

// codeAt is every code step's document just after event seq: from the
// last text kept before it, at most checkpointEvery updates walked.
func (r *Replay) codeAt(seq int64) ([]FrameCode, error) {
	out := []FrameCode{}
	for _, it := range r.items {
		if !it.HasCode() {
			continue
		}
		fc := FrameCode{Item: it.Index, Language: it.Language, Text: collab.NormalizeNewlines(it.Starter()), Cursors: []FrameCursor{}}
		d := r.docs[codeDoc(it.Index)]
		if d == nil {
			out = append(out, fc)
			continue
		}
		v := sort.Search(len(d.seqs), func(i int) bool { return d.seqs[i] > seq })
		from := v / checkpointEvery * checkpointEvery
		ups := d.ups[from:v]
		err := collab.Replay(d.kept[from/checkpointEvery], ups, func(i int, text string) bool {
			if i == len(ups) {
				fc.Version, fc.Text = v, text
				return false
			}
			return true
		})
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", it.Index+1, err)
		}
		if fc.Cursors, err = d.cursorsAt(seq, v, fc.Text); err != nil {
			return nil, fmt.Errorf("step %d: %w", it.Index+1, err)
		}
		out = append(out, fc)
	}
	return out, nil
}

// cursorsAt is each participant's latest selection up to event seq,
// carried from the version it was made at to v (the frame's), in text.
func (d *replayDoc) cursorsAt(seq int64, v int, text string) ([]FrameCursor, error) {
	out := []FrameCursor{}
	n := sort.Search(len(d.cursors), func(i int) bool { return d.cursors[i].Seq > seq })
	for _, actor := range []string{storage.ActorCandidate, storage.ActorInterviewer} {
		i := n - 1
		for i >= 0 && d.cursors[i].Actor != actor {
			i--
		}
		if i < 0 {
			continue
		}
		c := d.cursors[i]
		if c.Version < 0 || c.Version > v || v-c.Version > maxCursorMapping {
			continue
		}
		anchor, head := c.Anchor, c.Head
		for _, u := range d.ups[c.Version:v] {
			ch, err := collab.ParseChanges(u.Changes)
			if err != nil {
				return nil, err
			}
			anchor, head = ch.MapPos(anchor), ch.MapPos(head)
		}
		n := collab.Length(text)
		anchor, head = min(max(anchor, 0), n), min(max(head, 0), n)
		line, col := lineColumn(text, head)
		out = append(out, FrameCursor{Actor: actor, Anchor: anchor, Head: head, Line: line, Column: col})
	}
	return out, nil
}

// lineColumn is where UTF-16 offset pos of text is: its line and column,
// both from 1, the column counted in characters.
func lineColumn(text string, pos int) (line, col int) {
	line, col = 1, 1
	units := 0
	for _, r := range text {
		if units >= pos {
			break
		}
		units += utf16.RuneLen(r)
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// nav finds the moments around seq.
func (r *Replay) nav(seq int64) FrameNav {
	nav := FrameNav{NextOf: map[string]int64{}, PrevOf: map[string]int64{}, Moments: len(r.Moments), Index: -1}
	if len(r.Moments) == 0 {
		return nav
	}
	nav.First, nav.Last = r.Moments[0].Seq, r.Moments[len(r.Moments)-1].Seq
	// i is the first moment after seq; the one before it is the frame's.
	i := sort.Search(len(r.Moments), func(i int) bool { return r.Moments[i].Seq > seq })
	nav.Index = i - 1
	if i < len(r.Moments) {
		nav.Next = r.Moments[i].Seq
	}
	if j := i - 1; j >= 0 {
		if r.Moments[j].Seq == seq {
			j--
		}
		if j >= 0 {
			nav.Prev = r.Moments[j].Seq
		}
	}
	for _, m := range r.Moments[i:] {
		if _, ok := nav.NextOf[m.Class]; !ok {
			nav.NextOf[m.Class] = m.Seq
			if len(nav.NextOf) == len(MomentClasses) {
				break
			}
		}
	}
	for j := i - 1; j >= 0; j-- {
		m := r.Moments[j]
		if m.Seq == seq {
			continue
		}
		if _, ok := nav.PrevOf[m.Class]; !ok {
			nav.PrevOf[m.Class] = m.Seq
			if len(nav.PrevOf) == len(MomentClasses) {
				break
			}
		}
	}
	return nav
}
