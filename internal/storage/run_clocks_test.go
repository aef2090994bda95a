package storage

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRunClock: none until started; starting again replaces the start and
// the limit; a limit that is not positive is refused.
func TestRunClock(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RunClock(ctx, a.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("RunClock before a start: %v; want ErrNotFound", err)
		}
		steps := []struct {
			limit time.Duration
			at    time.Time
		}{
			{4 * time.Minute, timedT0},
			{5 * time.Minute, timedT0.Add(time.Hour)},
		}
		for _, st := range steps {
			if _, err := s.StartRunClock(ctx, a.ID, st.limit, st.at); err != nil {
				t.Fatal(err)
			}
			got, err := s.RunClock(ctx, a.ID)
			if err != nil || got.Limit != st.limit || !got.StartedAt.Equal(st.at) || got.AttemptID != a.ID {
				t.Fatalf("RunClock = %+v, %v; want limit %v from %v", got, err, st.limit, st.at)
			}
		}
		if _, err := s.StartRunClock(ctx, a.ID, 0, timedT0); err == nil {
			t.Error("a zero limit was accepted")
		}
	})
}
