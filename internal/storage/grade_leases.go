package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Several server instances grade on one database, so who runs a grade run
// and the limits on starting one live here rather than in one process's
// memory: a run is owned by the instance grading it, which holds a lease
// on it (lease_until) and renews it with a heartbeat (RenewGradeLeases).
// A running run whose lease passed is one whose owner died: any instance
// finishes it as a system error the user can retry (ExpireGradeLeases),
// and no instance ever touches a run whose owner is still renewing it.
// "One running run per user" is a partial unique index, so two instances
// starting a run for the same user at once cannot both succeed; the
// per-address limit is a count of the address's running runs taken under
// a lock on the address's row in grade_address_locks, which serialises
// the starts of one address and no others.

// GradeClaim says who runs a new grade run and what its start is held to.
type GradeClaim struct {
	Owner string        // the instance that grades it
	Lease time.Duration // how long the run is the owner's without a renewal
	// UserID may have one run going; a second is an *AlreadyGradingError.
	UserID string
	// ClientKey (a clientaddr.Key) may have PerAddress runs going at once;
	// one more is ErrAddressBusy. PerAddress 0 is no limit.
	ClientKey  string
	PerAddress int
	// Expired is the message a run of the user's whose lease ran out is
	// finished with when this claim finds it, so a dead instance's run does
	// not hold the user's place until the next sweep.
	Expired string
}

// AlreadyGradingError refuses a run to a user who has one going: Run.
type AlreadyGradingError struct{ Run GradeRun }

func (e *AlreadyGradingError) Error() string {
	return fmt.Sprintf("storage: the user's grade run %d is still going", e.Run.ID)
}

// ErrAddressBusy refuses a run to a client address that has its maximum
// of runs going.
var ErrAddressBusy = errors.New("storage: the client address has its maximum of grade runs going")

// StartOwnedGradeRun is StartGradeRun for a run that claim's owner grades:
// it records the owner and the lease, and refuses the run (writing
// nothing) when the user has one going or the address its maximum.
func (s *Store) StartOwnedGradeRun(ctx context.Context, attemptID int64, problem string, seed int64, source string, claim GradeClaim) (GradeRun, error) {
	return s.StartOwnedGradeRunIn(ctx, attemptID, problem, LangGo, seed, source, claim)
}

// StartOwnedGradeRunIn is StartOwnedGradeRun for source written in lang
// (LangGo or LangPython), which the run records.
func (s *Store) StartOwnedGradeRunIn(ctx context.Context, attemptID int64, problem, lang string, seed int64, source string, claim GradeClaim) (GradeRun, error) {
	if claim.Owner == "" || claim.UserID == "" || claim.Lease <= 0 {
		return GradeRun{}, fmt.Errorf("storage: start grade run: a claim needs an owner, a user and a lease (got %q, %q, %s)",
			claim.Owner, claim.UserID, claim.Lease)
	}
	run, err := s.startGradeRun(ctx, attemptID, problem, lang, seed, source, &claim)
	if uniqueViolation(err) {
		// Another instance started the user's run between this one's check
		// and its insert: the index refused the second.
		return s.alreadyGrading(ctx, claim.UserID)
	}
	var already *AlreadyGradingError
	if errors.As(err, &already) {
		return s.alreadyGrading(ctx, claim.UserID)
	}
	return run, err
}

// alreadyGrading is the *AlreadyGradingError of the user's running run,
// read after the transaction that found it, so it carries the whole run.
func (s *Store) alreadyGrading(ctx context.Context, userID string) (GradeRun, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM grade_runs WHERE user_id = ? AND status = 'running'`, userID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		// It finished in the meantime: the user may try again at once.
		return GradeRun{}, fmt.Errorf("storage: start grade run: %w", ErrBusy)
	}
	if err != nil {
		return GradeRun{}, fmt.Errorf("storage: start grade run: %w", err)
	}
	run, err := s.GradeRun(ctx, id)
	if err != nil {
		return GradeRun{}, err
	}
	return GradeRun{}, &AlreadyGradingError{Run: run}
}

// claimGradeRun checks claim's limits inside the transaction that inserts
// the run. The user's check is a fast path with a clear answer; the
// unique index is what holds when two instances race.
func claimGradeRun(ctx context.Context, tx *txn, claim *GradeClaim, now time.Time) error {
	if _, err := tx.ExecContext(ctx,
		`UPDATE grade_runs SET status = 'system-error', finished_at = ?, message = ?
		 WHERE user_id = ? AND status = 'running' AND (lease_until IS NULL OR lease_until < ?)`,
		millis(now), claim.Expired, claim.UserID, millis(now)); err != nil {
		return fmt.Errorf("storage: start grade run: expire the user's dead run: %w", err)
	}
	var id int64
	switch err := tx.QueryRowContext(ctx,
		`SELECT id FROM grade_runs WHERE user_id = ? AND status = 'running'`, claim.UserID).Scan(&id); {
	case err == nil:
		return &AlreadyGradingError{Run: GradeRun{ID: id}}
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("storage: start grade run: %w", err)
	}
	if claim.PerAddress <= 0 {
		return nil
	}
	// The upsert takes the address row's lock until commit, so the count
	// below and the insert after it are one address's alone.
	if err := lockAddress(ctx, tx, claim.ClientKey, now); err != nil {
		return fmt.Errorf("storage: start grade run: %w", err)
	}
	n, err := addressRuns(ctx, tx, claim.ClientKey, now)
	if err != nil {
		return fmt.Errorf("storage: start grade run: %w", err)
	}
	if n >= claim.PerAddress {
		return ErrAddressBusy
	}
	return nil
}

// lockAddress takes the address's row lock in grade_address_locks until
// the transaction ends: the upsert serialises one address's starts.
func lockAddress(ctx context.Context, tx *txn, clientKey string, now time.Time) error {
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO grade_address_locks (client_key, used_at) VALUES (?, ?)
		 ON CONFLICT (client_key) DO UPDATE SET used_at = excluded.used_at`,
		clientKey, millis(now)); err != nil {
		return fmt.Errorf("lock the address: %w", err)
	}
	return nil
}

// addressRuns counts the runs going for clientKey on every instance, its
// grade runs and its rooms' runs, whose leases hold at now. Call it under
// lockAddress.
func addressRuns(ctx context.Context, tx *txn, clientKey string, now time.Time) (int, error) {
	var n int
	if err := tx.QueryRowContext(ctx,
		`SELECT (SELECT count(*) FROM grade_runs WHERE client_key = ? AND status = 'running' AND lease_until >= ?)
		      + (SELECT count(*) FROM rooms WHERE run_client_key = ? AND run_lease_until >= ?)`,
		clientKey, millis(now), clientKey, millis(now)).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the address's runs: %w", err)
	}
	return n, nil
}

// claimColumns are the values of the owner columns for a run's insert:
// NULL for a run no instance owns.
func claimColumns(claim *GradeClaim, now time.Time) [4]any {
	if claim == nil {
		return [4]any{nil, nil, nil, nil}
	}
	return [4]any{claim.Owner, millis(now.Add(claim.Lease)), claim.UserID, claim.ClientKey}
}

// RenewGradeLeases extends the lease of every run owner is grading to now
// plus lease, and returns the ids renewed: a run of the owner's missing
// from them was taken over (the owner was out of touch past its lease),
// and its grading is no longer wanted.
func (s *Store) RenewGradeLeases(ctx context.Context, owner string, lease time.Duration) ([]int64, error) {
	now := s.now()
	var ids []int64
	err := s.inTx(ctx, func(tx *txn) error {
		ids = ids[:0]
		rows, err := tx.QueryContext(ctx,
			`UPDATE grade_runs SET lease_until = ? WHERE owner = ? AND status = 'running' RETURNING id`,
			millis(now.Add(lease)), owner)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("storage: renew grade leases: %w", err)
	}
	return ids, nil
}

// ExpireGradeLeases finishes every running run whose lease has passed (a
// run from before leases has none, and counts as passed) as a system
// error with message, and returns the ids it finished, so the caller can
// announce their ends to the streams following them. Any instance may
// call it at any time: a run whose owner renews its lease is never
// touched, and the condition is in the UPDATE, so two instances expiring
// at once finish each run once.
func (s *Store) ExpireGradeLeases(ctx context.Context, message string) ([]int64, error) {
	now := s.now()
	var ids []int64
	err := s.inTx(ctx, func(tx *txn) error {
		ids = ids[:0]
		rows, err := tx.QueryContext(ctx,
			`UPDATE grade_runs SET status = 'system-error', finished_at = ?, message = ?
			 WHERE status = 'running' AND (lease_until IS NULL OR lease_until < ?) RETURNING id`,
			millis(now), message, millis(now))
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// The address rows left unused for a day go too; one being locked
		// now has just been stamped, and the condition is checked again
		// once its lock is released.
		_, err = tx.ExecContext(ctx, `DELETE FROM grade_address_locks WHERE used_at < ?`,
			millis(now.Add(-addressLockIdle)))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("storage: expire grade leases: %w", err)
	}
	return ids, nil
}

// addressLockIdle is how long an address's lock row outlives its last
// grade run.
const addressLockIdle = 24 * time.Hour

// ExpireGradeLease is ExpireGradeLeases for one run: whether it finished
// it. A page that finds a run running that its own instance does not
// grade asks this, so a dead owner's run is shown as such at once rather
// than at the next sweep.
func (s *Store) ExpireGradeLease(ctx context.Context, id int64, message string) (bool, error) {
	now := s.now()
	var n int64
	err := s.inTx(ctx, func(tx *txn) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE grade_runs SET status = 'system-error', finished_at = ?, message = ?
			 WHERE id = ? AND status = 'running' AND (lease_until IS NULL OR lease_until < ?)`,
			millis(now), message, id, millis(now))
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("storage: expire grade run %d: %w", id, err)
	}
	return n == 1, nil
}

// uniqueViolation reports whether err is a unique index's refusal, on
// either database.
func uniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	// modernc's error text: "constraint failed: UNIQUE constraint failed:
	// grade_runs.user_id (2067)".
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}
