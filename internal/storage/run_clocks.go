package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// RunClock is the overall clock of an attempt run as one timed sequence:
// started by the server's clock, with the limit it had then.
type RunClock struct {
	AttemptID int64
	Limit     time.Duration
	StartedAt time.Time
}

// StartRunClock starts the attempt's overall clock at at, replacing one
// already there: starting the run again starts its clock again.
func (s *Store) StartRunClock(ctx context.Context, attemptID int64, limit time.Duration, at time.Time) (RunClock, error) {
	if limit <= 0 {
		return RunClock{}, fmt.Errorf("storage: start run clock of attempt %d: limit %v is not positive", attemptID, limit)
	}
	if _, err := s.db.ExecContext(ctx,
		`INSERT INTO run_clocks (attempt_id, limit_ms, started_at) VALUES (?, ?, ?)
		 ON CONFLICT (attempt_id) DO UPDATE SET limit_ms = excluded.limit_ms, started_at = excluded.started_at`,
		attemptID, limit.Milliseconds(), millis(at)); err != nil {
		return RunClock{}, fmt.Errorf("storage: start run clock of attempt %d: %w", attemptID, err)
	}
	return s.RunClock(ctx, attemptID)
}

// RunClock returns the attempt's overall clock, or ErrNotFound when the
// attempt was never run as one timed sequence.
func (s *Store) RunClock(ctx context.Context, attemptID int64) (RunClock, error) {
	var limit, started int64
	err := s.db.QueryRowContext(ctx, `SELECT limit_ms, started_at FROM run_clocks WHERE attempt_id = ?`, attemptID).Scan(&limit, &started)
	if errors.Is(err, sql.ErrNoRows) {
		return RunClock{}, ErrNotFound
	}
	if err != nil {
		return RunClock{}, fmt.Errorf("storage: run clock of attempt %d: %w", attemptID, err)
	}
	return RunClock{AttemptID: attemptID, Limit: time.Duration(limit) * time.Millisecond, StartedAt: fromMillis(started)}, nil
}
