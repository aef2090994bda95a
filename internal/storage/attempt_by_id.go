package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// AttemptByID returns the attempt with this id, or ErrNotFound: what a use
// case that has only the id (an answer stored when its clock ran out) needs
// to find the problem or set it is at.
func (s *Store) AttemptByID(ctx context.Context, id int64) (Attempt, error) {
	var (
		a                Attempt
		k                string
		created, updated int64
	)
	err := s.db.QueryRowContext(ctx,
		`SELECT id, user_id, kind, slug, created_at, updated_at FROM attempts WHERE id = ?`, id).
		Scan(&a.ID, &a.UserID, &k, &a.Slug, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Attempt{}, ErrNotFound
	}
	if err != nil {
		return Attempt{}, fmt.Errorf("storage: attempt %d: %w", id, err)
	}
	a.Kind = Kind(k)
	a.CreatedAt, a.UpdatedAt = fromMillis(created), fromMillis(updated)
	return a, nil
}
