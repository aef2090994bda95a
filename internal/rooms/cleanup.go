package rooms

import (
	"context"
	"log/slog"
	"time"
)

// DefaultRetention is how long a room is kept after it expires when Config
// gives no Retention: its record (scorecard, replay) stays readable by the
// interviewer's link for a month, long enough to write a screen up and for
// a hiring panel to meet over it, after which the room and its whole log
// (code, answers, notes, signals) are deleted.
const DefaultRetention = 30 * 24 * time.Hour

// DefaultSweepEvery is how often KeepClean looks for rooms past their
// retention: a room outlives its retention by at most this much.
const DefaultSweepEvery = 10 * time.Minute

// sweepBatch is how many rooms one store call deletes, each in its own
// transaction: a backlog goes in steps that let other writers in between.
const sweepBatch = 50

// Retention is how long a room is kept after it expires.
func (s *Service) Retention() time.Duration { return s.retention }

// Sweep deletes every room whose expiry plus the retention has passed,
// with its event log, and returns how many it deleted. It keeps no state:
// the store's conditional delete makes it safe to run on several instances
// at once, and one interrupted is finished by the next.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	cutoff := s.now().Add(-s.retention)
	total := 0
	for {
		ids, err := s.store.DeleteRoomsExpiredBy(ctx, cutoff, sweepBatch)
		total += len(ids)
		for _, id := range ids {
			// This instance's cached texts of the room's documents; the
			// replay cache is bounded and only reached through a room
			// that exists.
			s.docs.ForgetPrefix(id + "/")
		}
		if err != nil {
			return total, err
		}
		if len(ids) < sweepBatch {
			return total, nil
		}
	}
}

// KeepClean runs Sweep at once and then every interval until ctx ends,
// logging what it deleted and what failed (the next sweep tries again).
func (s *Service) KeepClean(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultSweepEvery
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		n, err := s.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Warn("rooms: deleting rooms past their retention failed", slog.Int("deleted", n), slog.Any("err", err))
		case n > 0:
			s.log.Info("rooms: deleted rooms past their retention", slog.Int("deleted", n), slog.Duration("retention", s.retention))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
