package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// A room's run is graded by one instance, which holds a lease on it in the
// room's row and renews it while it grades, as grade runs' leases are
// (grade_leases.go): a run whose lease passed lost its server, and any
// instance may record its end. Times are given by the caller (the rooms'
// clock), as the room log's are.

// RoomRunLease is a room's run in progress and who vouches for it.
type RoomRunLease struct {
	RoomID string
	// Run is the run's run.started seq; 0: no run is leased, or one is
	// reserved and not started yet (ReserveRoomRun).
	Run   int64
	Owner string
	Until time.Time
}

// LeaseRoomRun records that owner grades the room's run (its run.started
// seq) until until.
func (s *Store) LeaseRoomRun(ctx context.Context, roomID string, run int64, owner string, until time.Time) error {
	if _, err := s.db.ExecContext(ctx,
		`UPDATE rooms SET run_seq = ?, run_owner = ?, run_lease_until = ? WHERE id = ?`,
		run, owner, millis(until), roomID); err != nil {
		return fmt.Errorf("storage: lease run %d of room %s: %w", run, roomID, err)
	}
	return nil
}

// ReserveRoomRun leases the room's next run to owner until until, before
// the run is started (its Run is 0 until LeaseRoomRun names it), for
// clientKey, which may have perAddress runs going at once across every
// instance, its solo grade runs counted: one more is ErrAddressBusy and
// writes nothing. It reports false when the room has a run leased already
// (another instance's Run came first). The room's clock gives until; the
// store's, which the grade runs' leases use, gives now.
func (s *Store) ReserveRoomRun(ctx context.Context, roomID, owner string, until time.Time, clientKey string, perAddress int) (bool, error) {
	now := s.now()
	reserved := false
	err := s.inTx(ctx, func(tx *txn) error {
		if perAddress > 0 {
			if err := lockAddress(ctx, tx, clientKey, now); err != nil {
				return err
			}
			n, err := addressRuns(ctx, tx, clientKey, now)
			if err != nil {
				return err
			}
			if n >= perAddress {
				return ErrAddressBusy
			}
		}
		res, err := tx.ExecContext(ctx,
			`UPDATE rooms SET run_seq = 0, run_owner = ?, run_lease_until = ?, run_client_key = ? WHERE id = ? AND run_seq IS NULL`,
			owner, millis(until), clientKey, roomID)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		reserved = n == 1
		return nil
	})
	if errors.Is(err, ErrAddressBusy) {
		return false, err
	}
	if err != nil {
		return false, fmt.Errorf("storage: reserve a run of room %s: %w", roomID, err)
	}
	return reserved, nil
}

// RenewRoomRunLeases moves every lease of owner's to until and returns
// the leases it moved: a run owner holds that is missing was taken over
// (TakeExpiredRoomRunLease), and its end is no longer owner's to record.
func (s *Store) RenewRoomRunLeases(ctx context.Context, owner string, until time.Time) ([]RoomRunLease, error) {
	var out []RoomRunLease
	err := s.inTx(ctx, func(tx *txn) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx,
			`UPDATE rooms SET run_lease_until = ? WHERE run_owner = ? RETURNING id, run_seq`, millis(until), owner)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			l := RoomRunLease{Owner: owner, Until: until}
			if err := rows.Scan(&l.RoomID, &l.Run); err != nil {
				return err
			}
			out = append(out, l)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("storage: renew room run leases: %w", err)
	}
	return out, nil
}

// KeepRoomRunLease moves the lease on the room's run to until if owner
// still holds it, and reports whether it did: false means another instance
// took the run over (and records its end) or the lease was given up. The
// owner calls it before recording the run's end, which it then has a whole
// lease to do.
func (s *Store) KeepRoomRunLease(ctx context.Context, roomID string, run int64, owner string, until time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx,
		`UPDATE rooms SET run_lease_until = ? WHERE id = ? AND run_seq = ? AND run_owner = ?`,
		millis(until), roomID, run, owner)
	if err != nil {
		return false, fmt.Errorf("storage: keep the lease of run %d of room %s: %w", run, roomID, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// EndRoomRunLease gives up the lease on the room's run, once its end is
// recorded; a lease on a later run is left alone.
func (s *Store) EndRoomRunLease(ctx context.Context, roomID string, run int64) error {
	if _, err := s.db.ExecContext(ctx,
		`UPDATE rooms SET run_seq = NULL, run_owner = NULL, run_lease_until = NULL, run_client_key = NULL WHERE id = ? AND run_seq = ?`,
		roomID, run); err != nil {
		return fmt.Errorf("storage: end the lease of run %d of room %s: %w", run, roomID, err)
	}
	return nil
}

// RoomRunLeaseOf is the room's lease; Run 0 when no run is leased.
func (s *Store) RoomRunLeaseOf(ctx context.Context, roomID string) (RoomRunLease, error) {
	var (
		run   sql.NullInt64
		owner sql.NullString
		until sql.NullInt64
	)
	err := s.db.QueryRowContext(ctx, `SELECT run_seq, run_owner, run_lease_until FROM rooms WHERE id = ?`, roomID).
		Scan(&run, &owner, &until)
	if errors.Is(err, sql.ErrNoRows) {
		return RoomRunLease{}, ErrNotFound
	}
	if err != nil {
		return RoomRunLease{}, fmt.Errorf("storage: read the run lease of room %s: %w", roomID, err)
	}
	if !run.Valid {
		return RoomRunLease{RoomID: roomID}, nil
	}
	return RoomRunLease{RoomID: roomID, Run: run.Int64, Owner: owner.String, Until: fromMillis(until.Int64)}, nil
}

// TakeExpiredRoomRunLease ends the lease on the room's run if it passed
// before now, and reports whether it did: then the caller, and no other
// instance, records the run's end.
func (s *Store) TakeExpiredRoomRunLease(ctx context.Context, roomID string, run int64, now time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx,
		`UPDATE rooms SET run_seq = NULL, run_owner = NULL, run_lease_until = NULL, run_client_key = NULL
		 WHERE id = ? AND run_seq = ? AND run_lease_until < ?`, roomID, run, millis(now))
	if err != nil {
		return false, fmt.Errorf("storage: take the expired lease of run %d of room %s: %w", run, roomID, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ExpiredRoomRunLeases lists the leases that passed before now, at most
// limit; it only reads, so an idle instance sweeping writes nothing.
func (s *Store) ExpiredRoomRunLeases(ctx context.Context, now time.Time, limit int) ([]RoomRunLease, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, run_seq, run_owner, run_lease_until FROM rooms
		 WHERE run_lease_until IS NOT NULL AND run_lease_until < ? ORDER BY run_lease_until LIMIT ?`, millis(now), limit)
	if err != nil {
		return nil, fmt.Errorf("storage: list expired room run leases: %w", err)
	}
	defer rows.Close()
	var out []RoomRunLease
	for rows.Next() {
		var l RoomRunLease
		var owner sql.NullString
		var until int64
		if err := rows.Scan(&l.RoomID, &l.Run, &owner, &until); err != nil {
			return nil, fmt.Errorf("storage: list expired room run leases: %w", err)
		}
		l.Owner, l.Until = owner.String, fromMillis(until)
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: list expired room run leases: %w", err)
	}
	return out, nil
}
