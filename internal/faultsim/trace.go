package faultsim

import (
	"fmt"
	"sync"
	"time"
)

// Event is one line of a run's trace, on the virtual clock.
type Event struct {
	At    time.Duration `json:"at"`
	Actor string        `json:"actor"`
	Kind  string        `json:"kind"`
	Text  string        `json:"text"`
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
}

// NewTrace starts a trace whose times count from start.
func NewTrace(start time.Time) *Trace { return &Trace{start: start} }

// Since is the virtual time since the run started.
func (t *Trace) Since() time.Duration { return time.Since(t.start) }

// Start is when the run began, on the bubble's clock.
func (t *Trace) Start() time.Time { return t.start }

// Add appends an event now.
func (t *Trace) Add(actor, kind, format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, Event{At: time.Since(t.start), Actor: actor, Kind: kind, Text: fmt.Sprintf(format, args...)})
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
	return append([]Event(nil), t.events...)
}

// FormatAt prints a virtual time the way reports do: "t+1.5s".
func FormatAt(d time.Duration) string { return "t+" + d.String() }
