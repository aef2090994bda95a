package storage

import (
	"context"
	"errors"
	"testing"
)

// TestAttemptByID finds an attempt by its id alone, in both databases, and
// says ErrNotFound for one that is not there.
func TestAttemptByID(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		a, err := s.StartAttempt(ctx, "user-1", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.AttemptByID(ctx, a.ID)
		if err != nil || got.ID != a.ID || got.UserID != "user-1" || got.Kind != KindSet || got.Slug != "rapid" {
			t.Errorf("AttemptByID(%d) = %+v, %v; want %+v", a.ID, got, err, a)
		}
		if _, err := s.AttemptByID(ctx, a.ID+1000); !errors.Is(err, ErrNotFound) {
			t.Errorf("a missing attempt: %v; want ErrNotFound", err)
		}
	})
}
