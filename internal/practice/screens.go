package practice

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// ScreenRunStore keeps a screen practised as a whole; *storage.Store has it.
type ScreenRunStore interface {
	StartScreenRun(ctx context.Context, userID, screen string, limit time.Duration, at time.Time) (storage.ScreenRun, error)
	ScreenRun(ctx context.Context, userID, screen string) (storage.ScreenRun, error)
	UpdateScreenRun(ctx context.Context, userID, screen string, change func(storage.ScreenRun) (storage.ScreenRun, error)) (storage.ScreenRun, error)
}

// ErrNoScreenRun: the user has not started practising the screen as a
// whole.
var ErrNoScreenRun = errors.New("practice: the screen is not being practised as a whole")

// Screens are the use cases of practising a screen as a whole: one overall
// clock, started when the candidate starts, counting down from the
// screen's length when content gives one and up otherwise, and the time
// used on each step, counted by the server from one move to the next.
type Screens struct {
	store ScreenRunStore
	now   func() time.Time
}

// NewScreens returns the screen use cases over store, reading the time
// from now (time.Now when nil).
func NewScreens(store ScreenRunStore, now func() time.Time) *Screens {
	if now == nil {
		now = time.Now
	}
	return &Screens{store: store, now: now}
}

// ScreenView is a run at one moment of the server's clock.
type ScreenView struct {
	Run   storage.ScreenRun
	Clock timer.ClockState // the overall clock; its Used stops at the finish
	// StepUsed is the time used on each step (one per step), the current
	// step's counted up to this moment.
	StepUsed []time.Duration
	Current  int  // the step the clock counts; 0 once the run is over
	Finished bool // the candidate finished, or the time is up
	Up       bool // the overall time ran out
	At       time.Time
}

// Start starts practising the screen now, on step 1, with the screen's
// limit (0: the clock counts up). Starting again starts from nothing.
func (s *Screens) Start(ctx context.Context, userID, screen string, limit time.Duration, steps int) (ScreenView, error) {
	now := s.now()
	r, err := s.store.StartScreenRun(ctx, userID, screen, limit, now)
	if err != nil {
		return ScreenView{}, err
	}
	return view(r, steps, now), nil
}

// Read is the run now, or ErrNoScreenRun. It writes nothing: a run whose
// time is up reads as over, and the next move stores that.
func (s *Screens) Read(ctx context.Context, userID, screen string, steps int) (ScreenView, error) {
	r, err := s.store.ScreenRun(ctx, userID, screen)
	if errors.Is(err, storage.ErrNotFound) {
		return ScreenView{}, ErrNoScreenRun
	}
	if err != nil {
		return ScreenView{}, err
	}
	return view(r, steps, s.now()), nil
}

// Move makes step to (from 1) the one the clock counts, adding the time
// since the last move to the step it leaves. Once the run is over it
// changes nothing but storing the end: a run whose time ran out is
// finished at its deadline, and no time after that counts on any step.
func (s *Screens) Move(ctx context.Context, userID, screen string, to, steps int) (ScreenView, error) {
	if to < 1 || to > steps {
		return ScreenView{}, fmt.Errorf("practice: screen %s has steps 1 to %d, not %d", screen, steps, to)
	}
	return s.update(ctx, userID, screen, steps, func(r storage.ScreenRun, now time.Time) storage.ScreenRun {
		r = settle(r, now)
		if r.EndedAt.IsZero() {
			r.Step, r.StepSince = to, now
		}
		return r
	})
}

// Finish ends the run now (or at its deadline, if the time ran out first).
// Finishing twice changes nothing.
func (s *Screens) Finish(ctx context.Context, userID, screen string, steps int) (ScreenView, error) {
	return s.update(ctx, userID, screen, steps, func(r storage.ScreenRun, now time.Time) storage.ScreenRun {
		r = settle(r, now)
		if r.EndedAt.IsZero() {
			r.EndedAt = r.StepSince
		}
		return r
	})
}

func (s *Screens) update(ctx context.Context, userID, screen string, steps int, change func(storage.ScreenRun, time.Time) storage.ScreenRun) (ScreenView, error) {
	now := s.now()
	r, err := s.store.UpdateScreenRun(ctx, userID, screen, func(r storage.ScreenRun) (storage.ScreenRun, error) {
		return change(r, now), nil
	})
	if errors.Is(err, storage.ErrNotFound) {
		return ScreenView{}, ErrNoScreenRun
	}
	if err != nil {
		return ScreenView{}, err
	}
	return view(r, steps, now), nil
}

// end is the moment time stops counting for the run at now: its finish,
// its deadline once that has passed, or now.
func end(r storage.ScreenRun, now time.Time) time.Time {
	if !r.EndedAt.IsZero() {
		return r.EndedAt
	}
	if d := Deadline(r.Clock); !d.IsZero() && now.After(d) {
		return d
	}
	return now
}

// settle adds the time from the last move to the moment time stops (now,
// or the deadline) to the current step. A run whose time is up is
// finished at its deadline. A finished run is left as it is.
func settle(r storage.ScreenRun, now time.Time) storage.ScreenRun {
	if !r.EndedAt.IsZero() {
		return r
	}
	at := end(r, now)
	used := append([]time.Duration(nil), r.StepUsed...)
	for len(used) < r.Step {
		used = append(used, 0)
	}
	used[r.Step-1] += max(at.Sub(r.StepSince), 0)
	r.StepUsed, r.StepSince = used, at
	if at.Before(now) {
		r.EndedAt = at
	}
	return r
}

func view(r storage.ScreenRun, steps int, now time.Time) ScreenView {
	v := ScreenView{Run: r, At: now, StepUsed: make([]time.Duration, steps)}
	copy(v.StepUsed, r.StepUsed)
	at := end(r, now)
	if r.EndedAt.IsZero() && r.Step <= steps {
		v.StepUsed[r.Step-1] += max(at.Sub(r.StepSince), 0)
	}
	v.Clock = ClockAt(r.Clock, at)
	v.Up = v.Clock.Phase == timer.ClockUp
	v.Finished = !r.EndedAt.IsZero() || v.Up
	if !v.Finished {
		v.Current = r.Step
	}
	return v
}
