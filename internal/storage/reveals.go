package storage

import (
	"context"
	"fmt"
	"time"
)

// Reason says why answer material was shown.
type Reason string

// Reveal reasons.
const (
	ReasonSubmitted     Reason = "submitted"       // the user answered first
	ReasonChoseToReveal Reason = "chose-to-reveal" // the user looked without answering
)

// ScopeProblem is the answer-reveal scope of a problem's answer material
// (rubric, strong-answer points, guidance, pitfalls, model answer).
const ScopeProblem = "problem"

// ScopeQuestion is the answer-reveal scope of one question of a set.
func ScopeQuestion(id string) string { return "question:" + id }

// HintReveal records that a hint was shown.
type HintReveal struct {
	Part       int
	Index      int // from 1, in reveal order
	RevealedAt time.Time
}

// AnswerReveal records that answer material was shown, and why.
type AnswerReveal struct {
	Scope      string
	Reason     Reason
	RevealedAt time.Time
}

// RevealHint records that hint index (from 1) of part was shown. Revealing a
// hint already shown changes nothing; revealing one whose predecessor is not
// shown yet returns ErrHintOrder. The caller checks index against the number
// of hints the part has.
func (s *Store) RevealHint(ctx context.Context, attemptID int64, part, index int) error {
	if part < 1 || index < 1 {
		return fmt.Errorf("storage: reveal hint: part %d, hint %d: both count from 1", part, index)
	}
	now := s.now()
	return s.inTx(ctx, func(tx *txn) error {
		// Locked before counting: two reveals at once must not both count
		// the same hints shown.
		if err := lockAttempt(ctx, tx, attemptID); err != nil {
			return err
		}
		var shown int
		if err := tx.QueryRowContext(ctx,
			`SELECT count(*) FROM hint_reveals WHERE attempt_id = ? AND part = ?`, attemptID, part).Scan(&shown); err != nil {
			return fmt.Errorf("storage: reveal hint: %w", err)
		}
		switch {
		case index <= shown:
			return nil
		case index > shown+1:
			return fmt.Errorf("%w: part %d has %d shown, hint %d asked", ErrHintOrder, part, shown, index)
		}
		if err := touch(ctx, tx, attemptID, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO hint_reveals (attempt_id, part, hint_index, revealed_at) VALUES (?, ?, ?, ?)`,
			attemptID, part, index, millis(now)); err != nil {
			return fmt.Errorf("storage: reveal hint: %w", err)
		}
		return nil
	})
}

// HintReveals lists the hints shown in an attempt, by part then index.
func (s *Store) HintReveals(ctx context.Context, attemptID int64) ([]HintReveal, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT part, hint_index, revealed_at FROM hint_reveals WHERE attempt_id = ? ORDER BY part, hint_index`, attemptID)
	if err != nil {
		return nil, fmt.Errorf("storage: hint reveals: %w", err)
	}
	defer rows.Close()
	var out []HintReveal
	for rows.Next() {
		var (
			h  HintReveal
			at int64
		)
		if err := rows.Scan(&h.Part, &h.Index, &at); err != nil {
			return nil, fmt.Errorf("storage: hint reveals: %w", err)
		}
		h.RevealedAt = fromMillis(at)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: hint reveals: %w", err)
	}
	return out, nil
}

// RevealAnswer records that the answer material of scope was shown, and why.
// The first reveal of a scope wins: looking first and answering afterwards
// stays "chose-to-reveal", which is what the user did.
func (s *Store) RevealAnswer(ctx context.Context, attemptID int64, scope string, reason Reason) error {
	if reason != ReasonSubmitted && reason != ReasonChoseToReveal {
		return fmt.Errorf("storage: reveal answer: unknown reason %q", reason)
	}
	now := s.now()
	return s.inTx(ctx, func(tx *txn) error {
		return revealAnswer(ctx, tx, attemptID, scope, reason, now)
	})
}

func revealAnswer(ctx context.Context, tx *txn, attemptID int64, scope string, reason Reason, now time.Time) error {
	if err := touch(ctx, tx, attemptID, now); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO answer_reveals (attempt_id, scope, reason, revealed_at) VALUES (?, ?, ?, ?)
		 ON CONFLICT (attempt_id, scope) DO NOTHING`,
		attemptID, scope, string(reason), millis(now)); err != nil {
		return fmt.Errorf("storage: reveal answer %s: %w", scope, err)
	}
	return nil
}

// AnswerReveals lists the scopes revealed in an attempt, oldest first.
func (s *Store) AnswerReveals(ctx context.Context, attemptID int64) ([]AnswerReveal, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT scope, reason, revealed_at FROM answer_reveals WHERE attempt_id = ? ORDER BY revealed_at, scope`, attemptID)
	if err != nil {
		return nil, fmt.Errorf("storage: answer reveals: %w", err)
	}
	defer rows.Close()
	var out []AnswerReveal
	for rows.Next() {
		var (
			r      AnswerReveal
			reason string
			at     int64
		)
		if err := rows.Scan(&r.Scope, &reason, &at); err != nil {
			return nil, fmt.Errorf("storage: answer reveals: %w", err)
		}
		r.Reason, r.RevealedAt = Reason(reason), fromMillis(at)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: answer reveals: %w", err)
	}
	return out, nil
}
