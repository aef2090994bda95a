package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// CodeDraft is the latest code a user wrote for a problem in a language.
type CodeDraft struct {
	Language string // LangGo or LangPython
	Code     string
	SavedAt  time.Time
}

// The languages a draft or a run is written in. Everything stored before
// drafts had a language is Go's.
const (
	LangGo     = "go"
	LangPython = "python"
)

// ValidLanguage reports whether lang is one the store keeps.
func ValidLanguage(lang string) bool { return lang == LangGo || lang == LangPython }

// LanguageLabel is a stored language's name as people read it: "Python",
// else "Go".
func LanguageLabel(lang string) string {
	if lang == LangPython {
		return "Python"
	}
	return "Go"
}

// SaveCodeDraft is SaveCodeDraftIn for Go.
func (s *Store) SaveCodeDraft(ctx context.Context, attemptID int64, code string) (CodeDraft, error) {
	return s.SaveCodeDraftIn(ctx, attemptID, LangGo, code)
}

// SaveCodeDraftIn replaces the attempt's draft in lang with code (its
// drafts in other languages stay) and marks the attempt as changed. A
// draft that would take the user past MaxUserBytes is a *QuotaError, and
// the draft stored before stays.
func (s *Store) SaveCodeDraftIn(ctx context.Context, attemptID int64, lang, code string) (CodeDraft, error) {
	if !ValidLanguage(lang) {
		return CodeDraft{}, fmt.Errorf("storage: save code draft: unknown language %q", lang)
	}
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
		err := tx.QueryRowContext(ctx, `SELECT octet_length(code) FROM code_drafts WHERE attempt_id = ? AND language = ?`, attemptID, lang).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("storage: save code draft: %w", err)
		}
		if err := s.checkQuota(ctx, tx, attemptID, int64(len(code)), old); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO code_drafts (attempt_id, language, code, saved_at) VALUES (?, ?, ?, ?)
			 ON CONFLICT (attempt_id, language) DO UPDATE SET code = excluded.code, saved_at = excluded.saved_at`,
			attemptID, lang, code, millis(now)); err != nil {
			return fmt.Errorf("storage: save code draft: %w", err)
		}
		return nil
	})
	if err != nil {
		return CodeDraft{}, err
	}
	return CodeDraft{Language: lang, Code: code, SavedAt: fromMillis(millis(now))}, nil
}

// CodeDraftOf is CodeDraftIn for Go.
func (s *Store) CodeDraftOf(ctx context.Context, attemptID int64) (CodeDraft, error) {
	return s.CodeDraftIn(ctx, attemptID, LangGo)
}

// CodeDraftIn returns the attempt's draft in lang, or ErrNotFound when the
// user has not saved any code in it yet.
func (s *Store) CodeDraftIn(ctx context.Context, attemptID int64, lang string) (CodeDraft, error) {
	d := CodeDraft{Language: lang}
	var at int64
	err := s.db.QueryRowContext(ctx, `SELECT code, saved_at FROM code_drafts WHERE attempt_id = ? AND language = ?`, attemptID, lang).
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
