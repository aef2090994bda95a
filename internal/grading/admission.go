package grading

import (
	"context"
	"slices"
	"sync"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// A grade's admission as the pages and rooms see it: they admit and grade
// through the Dispatcher, and name what it hands back by these, not by
// the pool of child processes behind it (internal/sandbox).
type (
	// Ticket is one grade's admission to the pool: a place in its queue,
	// then a running child. One never graded must be released.
	Ticket = sandbox.Ticket
	// BusyError is a grade refused at once: every place is busy and the
	// queue is full, or the wait would pass the pool's bound. RetryAfter
	// says when to try again.
	BusyError = sandbox.BusyError
)

// ErrBusy is matched (errors.Is) by every *BusyError.
var ErrBusy = sandbox.ErrBusy

// refereeGate admits native checks (Referee.judge) to the referee's
// places: a check builds and runs the code natively, as heavy as a grade,
// and without a fair order a newcomer's check would wait behind the checks
// of every endless loop graded before it, each running to the CPU limit
// again natively. A check is low when the grade it checks hit its CPU or
// wall-clock limit or its address's code ran long lately (the pool's mark);
// a free place goes to the check that came first among those not low, then
// among the low ones. One place more is kept for a check that is not low,
// as the pool keeps one for a newcomer: when a place frees while it is
// taken, its check moves into the freed place, so at most places+1 checks
// run at once.
type refereeGate struct {
	mu      sync.Mutex
	places  int
	taken   int // of the places; the extra one is extra
	extra   *gateTicket
	waiting []*gateTicket
}

type gateTicket struct {
	low     bool
	granted bool
	extra   bool
	ready   chan struct{}
}

func newRefereeGate(places int) *refereeGate { return &refereeGate{places: max(1, places)} }

// enter waits for a place for a check (low as above) and returns the
// function that gives it back, or ctx's error when ctx ended first.
func (g *refereeGate) enter(ctx context.Context, low bool) (leave func(), err error) {
	t := g.queue(low)
	select {
	case <-t.ready:
		return func() { g.leave(t) }, nil
	case <-ctx.Done():
		g.mu.Lock()
		granted := t.granted
		if !granted {
			g.waiting = slices.DeleteFunc(g.waiting, func(w *gateTicket) bool { return w == t })
		}
		g.mu.Unlock()
		if granted {
			g.leave(t)
		}
		return nil, ctx.Err()
	}
}

// queue puts a check in line and gives it a place at once if one is free
// for it (t.ready is then closed).
func (g *refereeGate) queue(low bool) *gateTicket {
	t := &gateTicket{low: low, ready: make(chan struct{})}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waiting = append(g.waiting, t)
	g.dispatchLocked()
	return t
}

// leave gives back t's place, which it holds.
func (g *refereeGate) leave(t *gateTicket) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case t.extra:
		g.extra = nil
	case g.extra != nil: // the extra place's check moves into the freed one
		g.extra.extra, g.extra = false, nil
	default:
		g.taken--
	}
	g.dispatchLocked()
}

func (g *refereeGate) dispatchLocked() {
	for g.taken < g.places {
		i := g.nextLocked(true)
		if i < 0 {
			break
		}
		g.grantLocked(i, false)
		g.taken++
	}
	if g.extra == nil {
		if i := g.nextLocked(false); i >= 0 {
			g.grantLocked(i, true)
		}
	}
}

// nextLocked is the index of the first waiting check not low, else (when
// lowToo) of the first low one, or -1.
func (g *refereeGate) nextLocked(lowToo bool) int {
	if i := slices.IndexFunc(g.waiting, func(t *gateTicket) bool { return !t.low }); i >= 0 || !lowToo {
		return i
	}
	return slices.IndexFunc(g.waiting, func(t *gateTicket) bool { return t.low })
}

func (g *refereeGate) grantLocked(i int, extra bool) {
	t := g.waiting[i]
	g.waiting = slices.Delete(g.waiting, i, i+1)
	t.granted, t.extra = true, extra
	if extra {
		g.extra = t
	}
	close(t.ready)
}
