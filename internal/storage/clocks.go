package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Clock is one practice clock as stored (migrations/0014_one_clock.sql):
// a timed answer's, a set run's or a practised screen's. It counts from
// StartedAt, down from Limit (up when Limit is 0), is never paused, and
// stops at EndedAt when that is set. internal/practice holds the rule
// that reads it (practice.ClockAt); this package only keeps it.
type Clock struct {
	ClockID   int64
	Limit     time.Duration
	StartedAt time.Time
	EndedAt   time.Time // zero while it counts (always zero for a run's: its answers end it)
}

// Kinds of clock, as stored.
const (
	ClockAnswer = "answer"
	ClockRun    = "run"
	ClockScreen = "screen"
)

// clockColumns are a clock's columns, read from the alias c.
const clockColumns = `c.id, c.limit_ms, c.started_at, c.ended_at`

// clockFields are the scan destinations of clockColumns; set fills cl
// from them once scanned.
type clockFields struct {
	id, limit, started int64
	ended              sql.NullInt64
}

func (f *clockFields) dest() []any { return []any{&f.id, &f.limit, &f.started, &f.ended} }

func (f *clockFields) clock() Clock {
	return Clock{ClockID: f.id, Limit: time.Duration(f.limit) * time.Millisecond,
		StartedAt: fromMillis(f.started), EndedAt: fromNullMillis(f.ended)}
}

// newClock stores a clock of kind started at at, and returns it as
// stored (times kept to the millisecond).
func newClock(ctx context.Context, tx *txn, kind string, limit time.Duration, at time.Time) (Clock, error) {
	if limit < 0 || limit == 0 && kind != ClockScreen {
		return Clock{}, fmt.Errorf("storage: new %s clock: limit %v is not positive", kind, limit)
	}
	cl := Clock{Limit: time.Duration(limit.Milliseconds()) * time.Millisecond, StartedAt: fromMillis(millis(at))}
	if err := tx.QueryRowContext(ctx,
		`INSERT INTO practice_clocks (kind, limit_ms, started_at) VALUES (?, ?, ?) RETURNING id`,
		kind, limit.Milliseconds(), millis(at)).Scan(&cl.ClockID); err != nil {
		return Clock{}, fmt.Errorf("storage: new %s clock: %w", kind, err)
	}
	return cl, nil
}

// endClock stops the clock id at at (zero: it counts again).
func endClock(ctx context.Context, tx *txn, id int64, at time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE practice_clocks SET ended_at = ? WHERE id = ?`, nullMillis(at), id); err != nil {
		return fmt.Errorf("storage: end clock %d: %w", id, err)
	}
	return nil
}

// dropClock deletes the clock id, which nothing points to any more (a run
// or a screen started again has a new one).
func dropClock(ctx context.Context, tx *txn, id int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM practice_clocks WHERE id = ?`, id); err != nil {
		return fmt.Errorf("storage: drop clock %d: %w", id, err)
	}
	return nil
}
