package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// RunClock is the overall clock of an attempt run as one timed sequence:
// started by the server's clock, with the limit it had then. Its EndedAt
// stays zero: the run ends with its last answer (practice.Run).
type RunClock struct {
	AttemptID int64
	Clock
}

// StartRunClock starts the attempt's overall clock at at, replacing one
// already there: starting the run again starts its clock again.
func (s *Store) StartRunClock(ctx context.Context, attemptID int64, limit time.Duration, at time.Time) (RunClock, error) {
	if limit <= 0 {
		return RunClock{}, fmt.Errorf("storage: start run clock of attempt %d: limit %v is not positive", attemptID, limit)
	}
	rc := RunClock{AttemptID: attemptID}
	err := s.inTx(ctx, func(tx *txn) error {
		if err := lockAttempt(ctx, tx, attemptID); err != nil {
			return err
		}
		var old sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT clock_id FROM set_runs WHERE attempt_id = ?`, attemptID).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("storage: start run clock of attempt %d: %w", attemptID, err)
		}
		if rc.Clock, err = newClock(ctx, tx, ClockRun, limit, at); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO set_runs (attempt_id, clock_id) VALUES (?, ?)
			 ON CONFLICT (attempt_id) DO UPDATE SET clock_id = excluded.clock_id`,
			attemptID, rc.ClockID); err != nil {
			return fmt.Errorf("storage: start run clock of attempt %d: %w", attemptID, err)
		}
		if old.Valid {
			return dropClock(ctx, tx, old.Int64)
		}
		return nil
	})
	if err != nil {
		return RunClock{}, err
	}
	return rc, nil
}

// RunClock returns the attempt's overall clock, or ErrNotFound when the
// attempt was never run as one timed sequence.
func (s *Store) RunClock(ctx context.Context, attemptID int64) (RunClock, error) {
	var cl clockFields
	err := s.db.QueryRowContext(ctx,
		`SELECT `+clockColumns+` FROM set_runs r JOIN practice_clocks c ON c.id = r.clock_id WHERE r.attempt_id = ?`,
		attemptID).Scan(cl.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return RunClock{}, ErrNotFound
	}
	if err != nil {
		return RunClock{}, fmt.Errorf("storage: run clock of attempt %d: %w", attemptID, err)
	}
	return RunClock{AttemptID: attemptID, Clock: cl.clock()}, nil
}
