package faultsim

import (
	"fmt"
	"reflect"
	"sync"
	"time"
)

// Event is one line of a run's trace, on the virtual clock.
type Event struct {
	At    time.Duration `json:"at"`
	Actor string        `json:"actor"`
	Kind  string        `json:"kind"`
	Text  string        `json:"text"`
	// Rule names the rule of the problem's page that produced this event
	// (a fake's answer cites the rule of the page it followed),
	// empty for events no rule decides.
	Rule string `json:"rule,omitempty"`

	// The event in its run's sequence diagram (see Step): empty for
	// an event the kit did not describe, which is a plain mark on its
	// actor's lane.
	Peer    string `json:"peer,omitempty"`
	Back    bool   `json:"back,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Message string `json:"message,omitempty"`
	Answer  string `json:"answer,omitempty"`
}

// Step says what an event is in a run's sequence diagram, where each
// actor has a lane: an arrow between the actor's lane and a peer's, or a
// mark on the actor's own lane. The event's text stays what the trace
// lists; a step is its picture. A kit names its lanes (Storyteller).
type Step struct {
	// Peer is the lane at the other end of an arrow: a fake, or another
	// actor. Empty, the event is a mark on the actor's lane.
	Peer string
	// Back says the arrow runs from Peer to the actor (an answer, or a
	// message of the actor's lost before it arrived); otherwise it runs
	// from the actor to Peer.
	Back bool
	// Outcome is how the step ended (the Outcome constants); it decides
	// the arrow's or the mark's shape.
	Outcome string
	// Message is the short label drawn beside the step, a format over
	// Args; empty, the label is the event's text (a mark's, after its
	// actor's name).
	Message string
	Args    []any
	// Answer is what came back in the same step, a format over
	// AnswerArgs: an arrow from Peer back to the actor follows the call.
	Answer     string
	AnswerArgs []any
}

// Outcomes of a step.
const (
	OutcomeOK       = "ok"
	OutcomeError    = "error"    // the answer was an error
	OutcomeLost     = "lost"     // the message never arrived: a broken arrow
	OutcomeUnsent   = "unsent"   // the actor could not send it: a broken arrow too, but nothing was lost
	OutcomeTimeout  = "timeout"  // the actor gave up waiting
	OutcomeCrash    = "crash"    // the actor's process died: its lane ends
	OutcomePanic    = "panic"    // a call panicked; the process lives on
	OutcomeEffect   = "effect"   // the change the scenario counts happened (see Story)
	OutcomeReturned = "returned" // the entry point returned
	OutcomePhase    = "phase"    // a phase of the scenario begins: a rule across every lane
)

// Event kinds the engine writes; kits add their own.
const (
	KindCall  = "call"
	KindReply = "reply"
	KindCrash = "crash"
	KindState = "state"
)

// Trace is the ordered record of a run. Write to it only while holding
// the gate; the mutex guards against a broken scheduler, not for order.
type Trace struct {
	mu     sync.Mutex
	start  time.Time
	events []Event
	// unformatted holds, for each event whose text is still to be made,
	// its format and arguments (index-aligned with events; an entry with
	// no format is made). A report shows one run's trace of the many a
	// grade runs, so formatting waits until Events is asked for.
	unformatted []pendingText
}

type pendingText struct {
	format string
	args   []any
	// The step's message and answer, when they are still to be made too.
	message, answer *pendingText
}

func (p *pendingText) make() string {
	if p == nil || p.format == "" {
		return ""
	}
	return fmt.Sprintf(p.format, p.args...)
}

// NewTrace starts a trace whose times count from start.
func NewTrace(start time.Time) *Trace { return &Trace{start: start} }

// Since is the virtual time since the run started.
func (t *Trace) Since() time.Duration { return time.Since(t.start) }

// Start is when the run began, on the bubble's clock.
func (t *Trace) Start() time.Time { return t.start }

// Add appends an event now. Its text is formatted now if any argument
// could print differently later (see plain); otherwise when Events is
// first asked for, which for most runs of a grade is never.
func (t *Trace) Add(actor, kind, format string, args ...any) {
	t.AddRule("", actor, kind, format, args...)
}

// AddRule is Add for an event a rule of the page decided: the event cites
// rule, the rule's id in the kit's table of rules.
func (t *Trace) AddRule(rule, actor, kind, format string, args ...any) {
	t.AddStep(rule, actor, kind, Step{}, format, args...)
}

// AddStep is AddRule for an event with its step in the run's sequence
// diagram. Its message and answer are made when its text is.
func (t *Trace) AddStep(rule, actor, kind string, s Step, format string, args ...any) {
	e := Event{At: time.Since(t.start), Actor: actor, Kind: kind, Rule: rule, Peer: s.Peer, Back: s.Back, Outcome: s.Outcome}
	var later pendingText
	if plain(args) {
		later = pendingText{format: format, args: args}
	} else {
		e.Text = fmt.Sprintf(format, args...)
	}
	later.message = part(&e.Message, s.Message, s.Args)
	later.answer = part(&e.Answer, s.Answer, s.AnswerArgs)
	pending := later.format != "" || later.message != nil || later.answer != nil
	t.mu.Lock()
	defer t.mu.Unlock()
	if pending && t.unformatted == nil {
		t.unformatted = make([]pendingText, len(t.events), cap(t.events))
	}
	t.events = append(t.events, e)
	if t.unformatted != nil {
		t.unformatted = append(t.unformatted, later)
	}
}

// plain says every argument is a value whose printing depends on nothing
// but itself: a basic kind (string, bool, a number) of a type with no
// methods fmt could call, or a time.Duration. Such a value cannot change
// after Add, and printing it runs no code of anyone's: in particular
// never a submission's (an error it returned, a type of its own with a
// String method), which may run only inside its run.
func plain(args []any) bool {
	for _, a := range args {
		switch a.(type) {
		case string, int, int64, int32, uint, uint64, uint32, bool, float64, time.Duration:
			continue
		}
		if a == nil {
			return false
		}
		rt := reflect.TypeOf(a)
		if rt.NumMethod() != 0 {
			return false
		}
		switch rt.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		default:
			return false
		}
	}
	return true
}

// part sets *to to a step's message or answer now when it has no
// arguments or printing them could change (see plain), and otherwise
// returns it to be made later.
func part(to *string, format string, args []any) *pendingText {
	switch {
	case format == "":
	case len(args) == 0:
		*to = format
	case plain(args):
		return &pendingText{format: format, args: args}
	default:
		*to = fmt.Sprintf(format, args...)
	}
	return nil
}

// format makes the text of every event still waiting for it. Hold mu.
func (t *Trace) format() {
	for i, p := range t.unformatted {
		if p.format != "" {
			t.events[i].Text = p.make()
		}
		if p.message != nil {
			t.events[i].Message = p.message.make()
		}
		if p.answer != nil {
			t.events[i].Answer = p.answer.make()
		}
	}
	t.unformatted = nil
}

// Len is the number of events so far: a position finer than the clock.
func (t *Trace) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.events)
}

// Events returns a copy of the events.
func (t *Trace) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.format()
	return append([]Event(nil), t.events...)
}

// FormatAt prints a virtual time the way reports do: "t+1.5s".
func FormatAt(d time.Duration) string {
	if d < 0 {
		return "t-" + (-d).String()
	}
	return "t+" + d.String()
}
