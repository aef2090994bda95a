package practice

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/timer"
)

// ClockStore keeps overall clocks under a key the caller chooses (a room's
// id, say). UpdateClock runs change on the clock stored under key (ok is
// false when there is none yet) and stores what it returns, as one atomic
// step, so two controls pressed at once cannot lose one another; an error
// from change stores nothing and is returned as it is.
type ClockStore interface {
	UpdateClock(ctx context.Context, key string, change func(c timer.Clock, ok bool) (timer.Clock, error)) (timer.Clock, error)
	// Clock is the clock under key, or ErrNoClock.
	Clock(ctx context.Context, key string) (timer.Clock, error)
}

// ErrNoClock: no clock was set up under the key.
var ErrNoClock = errors.New("practice: no such clock")

// ClockView is a clock as its controls left it, at the moment they did.
type ClockView struct {
	Clock timer.Clock
	State timer.ClockState
	At    time.Time // the server's clock when it was read or changed
}

// Clocks are the use cases of an interviewer-controlled clock: set up with
// a limit (or none: it counts up), started, paused, resumed and extended,
// each by the server's clock. Every change is idempotent where repeating
// it makes sense (a second start or pause changes nothing), so a retried
// request is harmless.
type Clocks struct {
	store ClockStore
	now   func() time.Time
}

// NewClocks returns the clock use cases over store, reading the time from
// now (time.Now when nil).
func NewClocks(store ClockStore, now func() time.Time) *Clocks {
	if now == nil {
		now = time.Now
	}
	return &Clocks{store: store, now: now}
}

// Setup makes the clock under key, idle, with limit (0: it will count up).
// A clock already there is kept as it is: setting up twice, say on a
// reconnect, restarts nothing.
func (c *Clocks) Setup(ctx context.Context, key string, limit time.Duration) (ClockView, error) {
	if limit < 0 {
		return ClockView{}, errors.New("practice: a clock's limit cannot be negative")
	}
	return c.update(ctx, key, true, func(cl timer.Clock, _ time.Time) (timer.Clock, error) { return cl, nil },
		timer.Clock{Limit: limit})
}

// Start starts the clock under key now; starting it again changes nothing.
func (c *Clocks) Start(ctx context.Context, key string) (ClockView, error) {
	return c.update(ctx, key, false, func(cl timer.Clock, now time.Time) (timer.Clock, error) { return cl.Start(now), nil }, timer.Clock{})
}

// Pause holds the clock under key, keeping its time used.
func (c *Clocks) Pause(ctx context.Context, key string) (ClockView, error) {
	return c.update(ctx, key, false, timer.Clock.Pause, timer.Clock{})
}

// Resume lets a paused clock count again.
func (c *Clocks) Resume(ctx context.Context, key string) (ClockView, error) {
	return c.update(ctx, key, false, timer.Clock.Resume, timer.Clock{})
}

// Extend adds by to the clock's limit; a clock whose time is up gets
// exactly by more (timer.Clock.Extend).
func (c *Clocks) Extend(ctx context.Context, key string, by time.Duration) (ClockView, error) {
	return c.update(ctx, key, false, func(cl timer.Clock, now time.Time) (timer.Clock, error) { return cl.Extend(now, by) }, timer.Clock{})
}

// Read is the clock under key now, or ErrNoClock.
func (c *Clocks) Read(ctx context.Context, key string) (ClockView, error) {
	cl, err := c.store.Clock(ctx, key)
	if err != nil {
		return ClockView{}, err
	}
	now := c.now()
	return ClockView{Clock: cl, State: cl.State(now), At: now}, nil
}

// update applies change to the stored clock at one moment of the server's
// clock. A missing clock is ErrNoClock unless create is set, when fresh is
// stored.
func (c *Clocks) update(ctx context.Context, key string, create bool, change func(timer.Clock, time.Time) (timer.Clock, error), fresh timer.Clock) (ClockView, error) {
	now := c.now()
	cl, err := c.store.UpdateClock(ctx, key, func(cl timer.Clock, ok bool) (timer.Clock, error) {
		if !ok {
			if !create {
				return cl, ErrNoClock
			}
			cl = fresh
		}
		return change(cl, now)
	})
	if err != nil {
		return ClockView{}, err
	}
	return ClockView{Clock: cl, State: cl.State(now), At: now}, nil
}

// MemoryClocks is a ClockStore in this process's memory: for tests, and
// for callers whose clocks need not outlive the process.
type MemoryClocks struct {
	mu     sync.Mutex
	clocks map[string]timer.Clock
}

// NewMemoryClocks returns an empty MemoryClocks.
func NewMemoryClocks() *MemoryClocks { return &MemoryClocks{clocks: map[string]timer.Clock{}} }

// UpdateClock implements ClockStore.
func (m *MemoryClocks) UpdateClock(_ context.Context, key string, change func(timer.Clock, bool) (timer.Clock, error)) (timer.Clock, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.clocks[key]
	cl, err := change(old, ok)
	if err != nil {
		return timer.Clock{}, err
	}
	m.clocks[key] = cl
	return cl, nil
}

// Clock implements ClockStore.
func (m *MemoryClocks) Clock(_ context.Context, key string) (timer.Clock, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cl, ok := m.clocks[key]
	if !ok {
		return timer.Clock{}, ErrNoClock
	}
	return cl, nil
}
