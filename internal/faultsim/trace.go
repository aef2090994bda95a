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
}

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
	e := Event{At: time.Since(t.start), Actor: actor, Kind: kind, Rule: rule}
	var later pendingText
	if plain(args) {
		later = pendingText{format, args}
	} else {
		e.Text = fmt.Sprintf(format, args...)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if later.format != "" && t.unformatted == nil {
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

// format makes the text of every event still waiting for it. Hold mu.
func (t *Trace) format() {
	for i, p := range t.unformatted {
		if p.format != "" {
			t.events[i].Text = fmt.Sprintf(p.format, p.args...)
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
