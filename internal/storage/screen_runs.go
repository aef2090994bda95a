package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ScreenRun is one user's practice of a screen as a whole: its overall
// clock and the time used on each step. internal/practice holds the rules
// that move it; this package only keeps it. All times are the server's.
type ScreenRun struct {
	UserID string
	Screen string
	// Clock is the run's: Limit 0 counts up, and EndedAt is the finish
	// (zero while the run goes on).
	Clock
	Step      int             // the step the clock counts, from 1
	StepSince time.Time       // when Step became the current one
	StepUsed  []time.Duration // time used on step i+1 before StepSince
}

// StartScreenRun starts the user's run of a screen at at, on step 1,
// replacing any run there was: practising again starts from nothing.
func (s *Store) StartScreenRun(ctx context.Context, userID, screen string, limit time.Duration, at time.Time) (ScreenRun, error) {
	if limit < 0 {
		return ScreenRun{}, fmt.Errorf("storage: start screen run %s: limit %v is negative", screen, limit)
	}
	if _, err := s.EnsureUser(ctx, userID); err != nil {
		return ScreenRun{}, err
	}
	r := ScreenRun{UserID: userID, Screen: screen, Step: 1, StepSince: fromMillis(millis(at))}
	err := s.inTx(ctx, func(tx *txn) error {
		// The user's row is locked first on Postgres (SQLite holds the
		// write lock from BEGIN), so two starts at once cannot both
		// replace the same clock and leave one of theirs behind.
		if tx.d.forUpdate != "" {
			if _, err := tx.ExecContext(ctx, `SELECT id FROM users WHERE id = ?`+tx.d.forUpdate, userID); err != nil {
				return fmt.Errorf("storage: start screen run %s: %w", screen, err)
			}
		}
		var old sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT clock_id FROM screen_runs WHERE user_id = ? AND screen = ?`, userID, screen).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("storage: start screen run %s: %w", screen, err)
		}
		if r.Clock, err = newClock(ctx, tx, ClockScreen, limit, at); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO screen_runs (user_id, screen, clock_id, step, step_since, step_ms) VALUES (?, ?, ?, 1, ?, '[]')
			 ON CONFLICT (user_id, screen) DO UPDATE SET clock_id = excluded.clock_id, step = 1,
			   step_since = excluded.step_since, step_ms = '[]'`,
			userID, screen, r.ClockID, millis(at)); err != nil {
			return fmt.Errorf("storage: start screen run %s: %w", screen, err)
		}
		if old.Valid {
			return dropClock(ctx, tx, old.Int64)
		}
		return nil
	})
	if err != nil {
		return ScreenRun{}, err
	}
	return r, nil
}

// ScreenRun returns the user's run of a screen, or ErrNotFound.
func (s *Store) ScreenRun(ctx context.Context, userID, screen string) (ScreenRun, error) {
	return screenRun(ctx, s.db, userID, screen, "")
}

// screenRun reads the run; lock is "" or the dialect's forUpdate.
func screenRun(ctx context.Context, db queryer, userID, screen, lock string) (ScreenRun, error) {
	var (
		r     = ScreenRun{UserID: userID, Screen: screen}
		since int64
		steps string
		cl    clockFields
	)
	err := db.QueryRowContext(ctx,
		`SELECT r.step, r.step_since, r.step_ms, `+clockColumns+`
		 FROM screen_runs r JOIN practice_clocks c ON c.id = r.clock_id WHERE r.user_id = ? AND r.screen = ?`+lock,
		userID, screen).Scan(append([]any{&r.Step, &since, &steps}, cl.dest()...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return ScreenRun{}, ErrNotFound
	}
	if err != nil {
		return ScreenRun{}, fmt.Errorf("storage: screen run %s: %w", screen, err)
	}
	var ms []int64
	if err := json.Unmarshal([]byte(steps), &ms); err != nil {
		return ScreenRun{}, fmt.Errorf("storage: screen run %s: step times %q: %w", screen, steps, err)
	}
	for _, m := range ms {
		r.StepUsed = append(r.StepUsed, time.Duration(m)*time.Millisecond)
	}
	r.Clock, r.StepSince = cl.clock(), fromMillis(since)
	return r, nil
}

// UpdateScreenRun runs change on the user's run of a screen and stores the
// step, its start, the step times and the finish (the clock's EndedAt) it
// returns, in one transaction, so two tabs moving at once cannot lose a
// step's time. No run is ErrNotFound; an error from change stores nothing.
func (s *Store) UpdateScreenRun(ctx context.Context, userID, screen string, change func(ScreenRun) (ScreenRun, error)) (ScreenRun, error) {
	var out ScreenRun
	err := s.inTx(ctx, func(tx *txn) error {
		// Locked as read: change decides from it, and two tabs moving at
		// once on two instances must not both start from the same step.
		r, err := screenRun(ctx, tx, userID, screen, s.d.forUpdate)
		if err != nil {
			return err
		}
		if out, err = change(r); err != nil {
			return err
		}
		if out.Step < 1 {
			return fmt.Errorf("storage: update screen run %s: step %d is not a step", screen, out.Step)
		}
		ms := make([]int64, len(out.StepUsed))
		for i, d := range out.StepUsed {
			ms[i] = d.Milliseconds()
		}
		steps, err := json.Marshal(ms)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE screen_runs SET step = ?, step_since = ?, step_ms = ? WHERE user_id = ? AND screen = ?`,
			out.Step, millis(out.StepSince), string(steps), userID, screen); err != nil {
			return fmt.Errorf("storage: update screen run %s: %w", screen, err)
		}
		if !out.EndedAt.Equal(r.EndedAt) {
			return endClock(ctx, tx, r.ClockID, out.EndedAt)
		}
		return nil
	})
	if err != nil {
		return ScreenRun{}, err
	}
	return out, nil
}
