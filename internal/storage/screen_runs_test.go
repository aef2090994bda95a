package storage

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// TestScreenRun: none until started; an update stores the step, the step
// times and the finish; starting again starts from nothing; a change that
// fails stores nothing; the run is the user's and the screen's alone.
func TestScreenRun(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		if _, err := s.ScreenRun(ctx, "u", "screen"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("ScreenRun before a start: %v; want ErrNotFound", err)
		}
		if _, err := s.UpdateScreenRun(ctx, "u", "screen", func(r ScreenRun) (ScreenRun, error) { return r, nil }); !errors.Is(err, ErrNotFound) {
			t.Fatalf("UpdateScreenRun before a start: %v; want ErrNotFound", err)
		}
		r, err := s.StartScreenRun(ctx, "u", "screen", time.Hour, timedT0)
		if err != nil || r.Step != 1 || !r.StepSince.Equal(timedT0) || !r.StartedAt.Equal(timedT0) || r.Limit != time.Hour || len(r.StepUsed) != 0 || !r.EndedAt.IsZero() {
			t.Fatalf("StartScreenRun = %+v, %v", r, err)
		}
		moved := timedT0.Add(3 * time.Minute)
		if _, err := s.UpdateScreenRun(ctx, "u", "screen", func(r ScreenRun) (ScreenRun, error) {
			r.StepUsed, r.Step, r.StepSince, r.EndedAt = []time.Duration{3 * time.Minute, 1500 * time.Millisecond}, 2, moved, moved
			return r, nil
		}); err != nil {
			t.Fatal(err)
		}
		got, err := s.ScreenRun(ctx, "u", "screen")
		if err != nil || got.Step != 2 || !got.StepSince.Equal(moved) || !got.EndedAt.Equal(moved) ||
			!slices.Equal(got.StepUsed, []time.Duration{3 * time.Minute, 1500 * time.Millisecond}) {
			t.Fatalf("after an update: %+v, %v", got, err)
		}
		boom := errors.New("boom")
		if _, err := s.UpdateScreenRun(ctx, "u", "screen", func(r ScreenRun) (ScreenRun, error) { r.Step = 5; return r, boom }); !errors.Is(err, boom) {
			t.Fatalf("a failing change: %v; want its error", err)
		}
		if _, err := s.UpdateScreenRun(ctx, "u", "screen", func(r ScreenRun) (ScreenRun, error) { r.Step = 0; return r, nil }); err == nil {
			t.Fatal("step 0 was stored")
		}
		if got, _ := s.ScreenRun(ctx, "u", "screen"); got.Step != 2 {
			t.Fatalf("a refused change moved the run to step %d", got.Step)
		}
		if _, err := s.ScreenRun(ctx, "v", "screen"); !errors.Is(err, ErrNotFound) {
			t.Errorf("another user's run: %v; want ErrNotFound", err)
		}
		again, err := s.StartScreenRun(ctx, "u", "screen", 0, timedT0.Add(time.Hour))
		if err != nil || again.Step != 1 || again.Limit != 0 || len(again.StepUsed) != 0 || !again.EndedAt.IsZero() {
			t.Fatalf("starting again = %+v, %v; want a fresh run counting up", again, err)
		}
		if _, err := s.StartScreenRun(ctx, "u", "screen", -time.Second, timedT0); err == nil {
			t.Error("a negative limit was accepted")
		}
	})
}
