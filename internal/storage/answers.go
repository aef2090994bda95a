package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Answer is one submission of text by a user for a scope.
type Answer struct {
	ID        int64
	Scope     string
	Body      string
	CreatedAt time.Time
}

// SubmitAnswer stores an answer and, in the same transaction, reveals the
// scope's answer material with reason "submitted" (unless already revealed).
func (s *Store) SubmitAnswer(ctx context.Context, attemptID int64, scope, body string) (Answer, error) {
	now := s.now()
	a := Answer{Scope: scope, Body: body, CreatedAt: fromMillis(millis(now))}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := revealAnswer(ctx, tx, attemptID, scope, ReasonSubmitted, now); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx,
			`INSERT INTO answers (attempt_id, scope, body, created_at) VALUES (?, ?, ?, ?)`,
			attemptID, scope, body, millis(now))
		if err != nil {
			return fmt.Errorf("storage: submit answer %s: %w", scope, err)
		}
		a.ID, err = res.LastInsertId()
		if err != nil {
			return fmt.Errorf("storage: submit answer %s: %w", scope, err)
		}
		return nil
	})
	if err != nil {
		return Answer{}, err
	}
	return a, nil
}

// LatestAnswers returns the newest answer per scope in an attempt.
func (s *Store) LatestAnswers(ctx context.Context, attemptID int64) (map[string]Answer, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, scope, body, created_at FROM answers
		 WHERE id IN (SELECT max(id) FROM answers WHERE attempt_id = ? GROUP BY scope)`, attemptID)
	if err != nil {
		return nil, fmt.Errorf("storage: latest answers: %w", err)
	}
	defer rows.Close()
	out := map[string]Answer{}
	for rows.Next() {
		var (
			a  Answer
			at int64
		)
		if err := rows.Scan(&a.ID, &a.Scope, &a.Body, &at); err != nil {
			return nil, fmt.Errorf("storage: latest answers: %w", err)
		}
		a.CreatedAt = fromMillis(at)
		out[a.Scope] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: latest answers: %w", err)
	}
	return out, nil
}
