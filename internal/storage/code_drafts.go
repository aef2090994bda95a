package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// CodeDraft is the latest code a user wrote for a problem.
type CodeDraft struct {
	Code    string
	SavedAt time.Time
}

// SaveCodeDraft replaces the attempt's draft with code and marks the
// attempt as changed. A draft that would take the user past MaxUserBytes
// is a *QuotaError, and the draft stored before stays.
func (s *Store) SaveCodeDraft(ctx context.Context, attemptID int64, code string) (CodeDraft, error) {
	code = storableText(code)
	now := s.now()
	err := s.inTx(ctx, func(tx *txn) error {
		if err := lockUserOf(ctx, tx, attemptID); err != nil {
			return err
		}
		if err := touch(ctx, tx, attemptID, now); err != nil {
			return err
		}
		var old int64
		err := tx.QueryRowContext(ctx, `SELECT octet_length(code) FROM code_drafts WHERE attempt_id = ?`, attemptID).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("storage: save code draft: %w", err)
		}
		if err := s.checkQuota(ctx, tx, attemptID, int64(len(code)), old); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO code_drafts (attempt_id, code, saved_at) VALUES (?, ?, ?)
			 ON CONFLICT (attempt_id) DO UPDATE SET code = excluded.code, saved_at = excluded.saved_at`,
			attemptID, code, millis(now)); err != nil {
			return fmt.Errorf("storage: save code draft: %w", err)
		}
		return nil
	})
	if err != nil {
		return CodeDraft{}, err
	}
	return CodeDraft{Code: code, SavedAt: fromMillis(millis(now))}, nil
}

// CodeDraftOf returns the attempt's draft, or ErrNotFound when the user
// has not saved any code yet.
func (s *Store) CodeDraftOf(ctx context.Context, attemptID int64) (CodeDraft, error) {
	var (
		d  CodeDraft
		at int64
	)
	err := s.db.QueryRowContext(ctx, `SELECT code, saved_at FROM code_drafts WHERE attempt_id = ?`, attemptID).
		Scan(&d.Code, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return CodeDraft{}, ErrNotFound
	}
	if err != nil {
		return CodeDraft{}, fmt.Errorf("storage: code draft: %w", err)
	}
	d.SavedAt = fromMillis(at)
	return d, nil
}
