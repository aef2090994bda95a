package rooms

import (
	"encoding/json"
	"fmt"

	"github.com/faultline-dev/faultline/internal/storage"
)

// Event kinds. Each has a payload type below, stored as its JSON in the
// log (storage.RoomEvent.Payload); replay and the scorecard read them, so
// a kind's payload only ever gains optional fields. Item is the index of
// the room's item (Room.Items) the event belongs to.
//
//	kind                 actor        visible to   payload
//	room.created         system       everyone     Created
//	item.changed         interviewer  everyone     ItemChanged
//	hint.released        interviewer  everyone     HintReleased
//	timer.started        interviewer  everyone     TimerStarted
//	timer.paused         interviewer  everyone     TimerPaused
//	timer.resumed        interviewer  everyone     TimerResumed
//	timer.extended       interviewer  everyone     TimerExtended
//	code.update          either       everyone     collab.Update: one shared-editor step (doc "code/<item>"), with
//	                                               the typist's selection after it on a push's last update
//	cursor.moved         either       everyone     Cursor: a participant's cursor and selection in the code, moved
//	                                               without an edit (an edit's cursor rides with its code.update)
//	answer.text          candidate    everyone     AnswerText: the timed answer box's whole text
//	run.started          interviewer  interviewer  RunStarted
//	run.finished         system       interviewer  RunFinished: the grader's report, for the interviewer
//	run.shared           interviewer  everyone     RunShared: the same report, now for the candidate too
//	note.saved           interviewer  interviewer  NoteSaved: the whole notes text, in Markdown
//	rubric.scored        interviewer  interviewer  RubricScored
//	recommendation.set   interviewer  interviewer  RecommendationSet
//	signal.paste         candidate    interviewer  SignalPaste
//	signal.hidden        candidate    interviewer  TabHidden: the tab lost focus
//	signal.visible       candidate    interviewer  TabVisible: it came back, and after how long
//	room.ended           interviewer  everyone     Ended (the log's last event)
//
// An event is visible to everyone only when the candidate may see all of
// it: a shared report is copied into run.shared rather than pointed to,
// so the candidate's reader never needs an interviewer-only row.
const (
	KindCreated           = "room.created"
	KindItemChanged       = "item.changed"
	KindHintReleased      = "hint.released"
	KindTimerStarted      = "timer.started"
	KindTimerPaused       = "timer.paused"
	KindTimerResumed      = "timer.resumed"
	KindTimerExtended     = "timer.extended"
	KindCodeUpdate        = "code.update"
	KindCursor            = "cursor.moved"
	KindAnswerText        = "answer.text"
	KindRunStarted        = "run.started"
	KindRunFinished       = "run.finished"
	KindRunShared         = "run.shared"
	KindNoteSaved         = "note.saved"
	KindRubricScored      = "rubric.scored"
	KindRecommendationSet = "recommendation.set"
	KindSignalPaste       = "signal.paste"
	KindSignalHidden      = "signal.hidden"
	KindSignalVisible     = "signal.visible"
	KindEnded             = "room.ended"
)

// visibility says who may read each kind; an unknown kind is nobody's,
// so a new kind added without a line here cannot leak.
var visibility = map[string]string{
	KindCreated:           storage.VisibleToEveryone,
	KindItemChanged:       storage.VisibleToEveryone,
	KindHintReleased:      storage.VisibleToEveryone,
	KindTimerStarted:      storage.VisibleToEveryone,
	KindTimerPaused:       storage.VisibleToEveryone,
	KindTimerResumed:      storage.VisibleToEveryone,
	KindTimerExtended:     storage.VisibleToEveryone,
	KindCodeUpdate:        storage.VisibleToEveryone,
	KindCursor:            storage.VisibleToEveryone,
	KindAnswerText:        storage.VisibleToEveryone,
	KindRunStarted:        storage.VisibleToInterviewer,
	KindRunFinished:       storage.VisibleToInterviewer,
	KindRunShared:         storage.VisibleToEveryone,
	KindNoteSaved:         storage.VisibleToInterviewer,
	KindRubricScored:      storage.VisibleToInterviewer,
	KindRecommendationSet: storage.VisibleToInterviewer,
	KindSignalPaste:       storage.VisibleToInterviewer,
	KindSignalHidden:      storage.VisibleToInterviewer,
	KindSignalVisible:     storage.VisibleToInterviewer,
	KindEnded:             storage.VisibleToEveryone,
}

// Created opens the log: what the room was made from.
type Created struct {
	SourceKind string `json:"source_kind"` // "screen" or "problem"
	SourceSlug string `json:"source_slug"`
	Items      int    `json:"items"` // how many items the room walks through
	// Language is the room's code language ("go" or "python"); absent
	// in rooms made before rooms had one, which are Go's.
	Language string `json:"language,omitempty"`
}

// ItemChanged moves the room to item Item ("next item").
type ItemChanged struct {
	Item int `json:"item"`
}

// HintReleased shows the candidate hint Index (from 0) of part Part (from
// 1) of the item's problem.
type HintReleased struct {
	Item  int `json:"item"`
	Part  int `json:"part"`
	Index int `json:"index"`
}

// TimerStarted starts the item's clock with LimitMS to spend.
type TimerStarted struct {
	Item    int   `json:"item"`
	LimitMS int64 `json:"limit_ms"`
}

// TimerPaused stops the item's clock; the time spent so far stays spent.
type TimerPaused struct {
	Item int `json:"item"`
}

// TimerResumed runs the item's clock again.
type TimerResumed struct {
	Item int `json:"item"`
}

// TimerExtended adds ByMS to the item's limit.
type TimerExtended struct {
	Item int   `json:"item"`
	ByMS int64 `json:"by_ms"`
}

// Cursor is a selection report of the shared editor (its JSON is the
// editor's own: clientID, name, colour, version, anchor, head), for the
// other participant's page to draw, and replay to show.
type Cursor struct {
	Item     int    `json:"item"`
	ClientID string `json:"clientID"`
	Name     string `json:"name"`
	Colour   int    `json:"colour"`
	Version  int    `json:"version"`
	Anchor   int    `json:"anchor"`
	Head     int    `json:"head"`
}

// AnswerText is the candidate's answer to a question item, whole: the
// latest one is the answer.
type AnswerText struct {
	Item int    `json:"item"`
	Text string `json:"text"`
	// Final: the candidate submitted it (or the box did at zero); no
	// more text is taken for the step.
	Final bool `json:"final,omitempty"`
	// Late: it reached the server after the step's clock ran out and its
	// grace: kept for the interviewer, but not the answer.
	Late bool `json:"late,omitempty"`
}

// RunStarted: the grader was started on the item's code as it stood.
type RunStarted struct {
	Item       int    `json:"item"`
	Run        int64  `json:"run"` // the seq of this event, which names the run
	DocVersion int64  `json:"doc_version"`
	Source     string `json:"source"`
}

// RunFinished is a run's end. Report is the grader's report JSON
// (gradewire.Report) when it graded; otherwise Status says why not.
type RunFinished struct {
	Item    int             `json:"item"`
	Run     int64           `json:"run"`
	Status  string          `json:"status"` // "done", "busy" or "system-error"
	Verdict string          `json:"verdict,omitempty"`
	Summary string          `json:"summary"`
	Report  json.RawMessage `json:"report,omitempty"`
}

// RunShared gives the candidate a finished run's report.
type RunShared struct {
	Item    int             `json:"item"`
	Run     int64           `json:"run"`
	Verdict string          `json:"verdict,omitempty"`
	Summary string          `json:"summary"`
	Report  json.RawMessage `json:"report,omitempty"`
}

// NoteSaved is the interviewer's notes, whole, in Markdown.
type NoteSaved struct {
	Text string `json:"text"`
}

// RubricScored scores one rubric point (or, for a question, one key
// point): Point is its index in Part's list. Cite names an invariant of
// the latest run as evidence, with whether it held.
type RubricScored struct {
	Item  int    `json:"item"`
	Part  int    `json:"part"` // 0 for a question's key points
	Point int    `json:"point"`
	Score int    `json:"score"` // 0 to MaxScore
	Cite  *Cite  `json:"cite,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Cite is grader evidence for a score.
type Cite struct {
	Run       int64  `json:"run"`
	Scenario  string `json:"scenario"`
	Invariant string `json:"invariant"`
	Status    string `json:"status"` // the invariant's status in that run: "held", "violated", ...
}

// RecommendationSet is the interviewer's overall call.
type RecommendationSet struct {
	Value string `json:"value"` // one of Recommendations
}

// SignalPaste: the candidate pasted Bytes into the editor or answer box.
type SignalPaste struct {
	Item  int    `json:"item"`
	Bytes int    `json:"bytes"`
	Where string `json:"where"` // "code" or "answer"
}

// TabHidden: the candidate's tab was hidden or lost focus.
type TabHidden struct{}

// TabVisible: it came back; HiddenMS is how long it was away, by the
// server's clock from the matching signal.hidden (0 when there was none).
type TabVisible struct {
	HiddenMS int64 `json:"hidden_ms"`
}

// Ended closes the room.
type Ended struct{}

// newEvent builds the event to append for payload p of kind.
func newEvent(actor, kind string, p any) (storage.NewRoomEvent, error) {
	vis, ok := visibility[kind]
	if !ok {
		return storage.NewRoomEvent{}, fmt.Errorf("rooms: event kind %q has no visibility", kind)
	}
	data, err := json.Marshal(p)
	if err != nil {
		return storage.NewRoomEvent{}, fmt.Errorf("rooms: encode %s: %w", kind, err)
	}
	return storage.NewRoomEvent{Actor: actor, Kind: kind, Visibility: vis, Payload: data}, nil
}
