package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// User is an anonymous user, known by the random id in their cookie.
type User struct {
	ID          string
	CreatedAt   time.Time
	DisplayName string // empty when not set
}

// EnsureUser records the user id if it is new and returns the user. The web
// layer calls it on the first write, so browsing never writes to the database.
func (s *Store) EnsureUser(ctx context.Context, id string) (User, error) {
	if id == "" {
		return User{}, errors.New("storage: ensure user: empty id")
	}
	if _, err := s.db.ExecContext(ctx,
		`INSERT INTO users (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`,
		id, millis(s.now())); err != nil {
		return User{}, fmt.Errorf("storage: ensure user: %w", err)
	}
	return s.User(ctx, id)
}

// User returns the user with id, or ErrNotFound.
func (s *Store) User(ctx context.Context, id string) (User, error) {
	var (
		u       User
		created int64
		name    sql.NullString
	)
	err := s.db.QueryRowContext(ctx, `SELECT id, created_at, display_name FROM users WHERE id = ?`, id).
		Scan(&u.ID, &created, &name)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("storage: user %s: %w", id, err)
	}
	u.CreatedAt = fromMillis(created)
	u.DisplayName = name.String
	return u, nil
}
