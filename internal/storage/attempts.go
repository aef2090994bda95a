package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Kind is what an attempt is at.
type Kind string

// Attempt kinds.
const (
	KindProblem Kind = "problem"
	KindSet     Kind = "set"
)

// Attempt is one user's work on one problem or question set.
type Attempt struct {
	ID        int64
	UserID    string
	Kind      Kind
	Slug      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// StartAttempt returns the user's attempt at (kind, slug), creating the user
// and the attempt if needed.
func (s *Store) StartAttempt(ctx context.Context, userID string, kind Kind, slug string) (Attempt, error) {
	if kind != KindProblem && kind != KindSet {
		return Attempt{}, fmt.Errorf("storage: start attempt: unknown kind %q", kind)
	}
	if _, err := s.EnsureUser(ctx, userID); err != nil {
		return Attempt{}, err
	}
	now := millis(s.now())
	if _, err := s.db.ExecContext(ctx,
		`INSERT INTO attempts (user_id, kind, slug, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT (user_id, kind, slug) DO NOTHING`,
		userID, string(kind), slug, now, now); err != nil {
		return Attempt{}, fmt.Errorf("storage: start attempt %s/%s: %w", kind, slug, err)
	}
	return s.Attempt(ctx, userID, kind, slug)
}

// Attempt returns the user's attempt at (kind, slug), or ErrNotFound.
func (s *Store) Attempt(ctx context.Context, userID string, kind Kind, slug string) (Attempt, error) {
	var (
		a                Attempt
		k                string
		created, updated int64
	)
	err := s.db.QueryRowContext(ctx,
		`SELECT id, user_id, kind, slug, created_at, updated_at FROM attempts WHERE user_id = ? AND kind = ? AND slug = ?`,
		userID, string(kind), slug).Scan(&a.ID, &a.UserID, &k, &a.Slug, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Attempt{}, ErrNotFound
	}
	if err != nil {
		return Attempt{}, fmt.Errorf("storage: attempt %s/%s: %w", kind, slug, err)
	}
	a.Kind = Kind(k)
	a.CreatedAt, a.UpdatedAt = fromMillis(created), fromMillis(updated)
	return a, nil
}

// touch marks the attempt as changed now.
func touch(ctx context.Context, tx *txn, attemptID int64, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE attempts SET updated_at = ? WHERE id = ?`, millis(now), attemptID)
	if err != nil {
		return fmt.Errorf("storage: touch attempt %d: %w", attemptID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// lockAttempt makes the transaction the attempt's only writer until it
// ends, for a write that decides from rows it reads first (which hints are
// shown, whether a session is open). On SQLite the transaction's write
// lock already is that.
func lockAttempt(ctx context.Context, tx *txn, attemptID int64) error {
	if tx.d.forUpdate == "" {
		return nil
	}
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM attempts WHERE id = ?`+tx.d.forUpdate, attemptID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("storage: lock attempt %d: %w", attemptID, err)
	}
	return nil
}
