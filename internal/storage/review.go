package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"
)

// ReviewSchedule is an item's place in the review queue. internal/review
// computes it (SM-2); this package only keeps it.
type ReviewSchedule struct {
	Reps     int     // passing reviews in a row
	Ease     float64 // SM-2's easiness factor; kept to three decimals
	Interval int     // days from Reviewed to Due
	Lapses   int
	Due      time.Time
	Reviewed time.Time // zero until the item is first rated
}

// ReviewItem is one answered question or problem in a user's queue.
type ReviewItem struct {
	AttemptID int64
	Kind      Kind
	Slug      string
	Scope     string // "problem" or "question:<id>", as answers
	ReviewSchedule
	RatedAnswerID int64 // the answer the schedule was last rated from; 0 if none
}

// CalibrationPoint is one answer whose author predicted how many key points
// they covered, before seeing them, and then ticked them.
type CalibrationPoint struct {
	AnswerID  int64
	Kind      Kind
	Slug      string
	Scope     string
	Predicted int
	Covered   int
	Of        int
	At        time.Time // when they ticked
}

func easeMilli(e float64) int64 { return int64(math.Round(e * 1000)) }

// AddReviewItem puts an answered item in the queue with the schedule first,
// unless it is there already (answering again changes nothing until the
// answer is rated).
func (s *Store) AddReviewItem(ctx context.Context, attemptID int64, scope string, first ReviewSchedule) error {
	return s.inTx(ctx, func(tx *txn) error {
		// The attempt's row first, as RateReviewItem takes it: on Postgres
		// the insert's foreign-key check would otherwise wait for a rating
		// that holds the row and waits for this insert (a deadlock).
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM attempts WHERE id = ?`+tx.d.forUpdate, attemptID).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err == nil {
			_, err = tx.ExecContext(ctx,
				`INSERT INTO review_items (attempt_id, scope, reps, ease_milli, interval_days, lapses, due_at, reviewed_at)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (attempt_id, scope) DO NOTHING`,
				attemptID, scope, first.Reps, easeMilli(first.Ease), first.Interval, first.Lapses, millis(first.Due),
				nullMillis(first.Reviewed))
		}
		if err != nil {
			return fmt.Errorf("storage: add review item %d/%s: %w", attemptID, scope, err)
		}
		return nil
	})
}

// RateReviewItem applies rate to the item's schedule for a rating of
// answer answerID, in one transaction. Rating the same answer again (the
// candidate changed their ticks) starts again from the schedule before that
// answer's first rating, so an answer counts once. An item not in the queue
// (answered before the queue existed) starts from fresh.
func (s *Store) RateReviewItem(ctx context.Context, attemptID int64, scope string, answerID int64, fresh ReviewSchedule,
	rate func(ReviewSchedule) ReviewSchedule) (ReviewSchedule, error) {
	var next ReviewSchedule
	err := s.inTx(ctx, func(tx *txn) error {
		// The attempt's row, locked on Postgres: the one writer of its
		// items until the transaction ends.
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM attempts WHERE id = ?`+tx.d.forUpdate, attemptID).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("storage: rate review item %d/%s: %w", attemptID, scope, err)
		}
		var (
			cur, before         ReviewSchedule
			curEase, beforeEase int64
			curDue, beforeDue   int64
			curRev, beforeRev   sql.NullInt64
			rated               sql.NullInt64
		)
		err = tx.QueryRowContext(ctx,
			`SELECT reps, ease_milli, interval_days, lapses, due_at, reviewed_at, rated_answer_id,
			   before_reps, before_ease_milli, before_interval, before_lapses, before_due_at, before_reviewed_at
			 FROM review_items WHERE attempt_id = ? AND scope = ?`+tx.d.forUpdate, attemptID, scope).Scan(
			&cur.Reps, &curEase, &cur.Interval, &cur.Lapses, &curDue, &curRev, &rated,
			&before.Reps, &beforeEase, &before.Interval, &before.Lapses, &beforeDue, &beforeRev)
		base := fresh
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("storage: rate review item %d/%s: %w", attemptID, scope, err)
		case rated.Valid && rated.Int64 == answerID:
			before.Ease, before.Due, before.Reviewed = float64(beforeEase)/1000, fromMillis(beforeDue), fromNullMillis(beforeRev)
			base = before
		default:
			cur.Ease, cur.Due, cur.Reviewed = float64(curEase)/1000, fromMillis(curDue), fromNullMillis(curRev)
			base = cur
		}
		next = rate(base)
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO review_items (attempt_id, scope, reps, ease_milli, interval_days, lapses, due_at, reviewed_at,
			   rated_answer_id, before_reps, before_ease_milli, before_interval, before_lapses, before_due_at, before_reviewed_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (attempt_id, scope) DO UPDATE SET reps = excluded.reps, ease_milli = excluded.ease_milli,
			   interval_days = excluded.interval_days, lapses = excluded.lapses, due_at = excluded.due_at,
			   reviewed_at = excluded.reviewed_at, rated_answer_id = excluded.rated_answer_id,
			   before_reps = excluded.before_reps, before_ease_milli = excluded.before_ease_milli,
			   before_interval = excluded.before_interval, before_lapses = excluded.before_lapses,
			   before_due_at = excluded.before_due_at, before_reviewed_at = excluded.before_reviewed_at`,
			attemptID, scope, next.Reps, easeMilli(next.Ease), next.Interval, next.Lapses, millis(next.Due), nullMillis(next.Reviewed),
			answerID, base.Reps, easeMilli(base.Ease), base.Interval, base.Lapses, millis(base.Due), nullMillis(base.Reviewed)); err != nil {
			return fmt.Errorf("storage: rate review item %d/%s: %w", attemptID, scope, err)
		}
		return nil
	})
	if err != nil {
		return ReviewSchedule{}, err
	}
	next.Ease = float64(easeMilli(next.Ease)) / 1000
	next.Due, next.Reviewed = fromMillis(millis(next.Due)), fromNullMillis(nullMillis(next.Reviewed))
	return next, nil
}

// ReviewItems returns a user's queue, soonest due first.
func (s *Store) ReviewItems(ctx context.Context, userID string) ([]ReviewItem, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT r.attempt_id, t.kind, t.slug, r.scope, r.reps, r.ease_milli, r.interval_days, r.lapses, r.due_at,
		   r.reviewed_at, r.rated_answer_id
		 FROM review_items r JOIN attempts t ON t.id = r.attempt_id
		 WHERE t.user_id = ? ORDER BY r.due_at, t.slug, r.scope`, userID)
	if err != nil {
		return nil, fmt.Errorf("storage: review items: %w", err)
	}
	defer rows.Close()
	var out []ReviewItem
	for rows.Next() {
		var (
			it        ReviewItem
			kind      string
			ease, due int64
			rev, ans  sql.NullInt64
		)
		if err := rows.Scan(&it.AttemptID, &kind, &it.Slug, &it.Scope, &it.Reps, &ease, &it.Interval, &it.Lapses, &due,
			&rev, &ans); err != nil {
			return nil, fmt.Errorf("storage: review items: %w", err)
		}
		it.Kind, it.Ease, it.Due, it.Reviewed, it.RatedAnswerID = Kind(kind), float64(ease)/1000, fromMillis(due), fromNullMillis(rev), ans.Int64
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: review items: %w", err)
	}
	return out, nil
}

// SavePrediction records that the author of answer answerID said, before
// the key points were shown, that they covered predicted of of them.
// Saving again replaces it.
func (s *Store) SavePrediction(ctx context.Context, answerID int64, predicted, of int, at time.Time) error {
	if of < 1 || predicted < 0 || predicted > of {
		return fmt.Errorf("storage: prediction for answer %d: %d of %d key points", answerID, predicted, of)
	}
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO answer_predictions (answer_id, predicted, of_total, predicted_at) VALUES (?, ?, ?, ?)
		 ON CONFLICT (answer_id) DO UPDATE SET predicted = excluded.predicted, of_total = excluded.of_total,
		   predicted_at = excluded.predicted_at`, answerID, predicted, of, millis(at))
	if err != nil {
		return fmt.Errorf("storage: prediction for answer %d: %w", answerID, err)
	}
	return nil
}

// Prediction returns how many key points the author of answer answerID
// predicted, of how many, or ErrNotFound when they made no prediction.
func (s *Store) Prediction(ctx context.Context, answerID int64) (predicted, of int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT predicted, of_total FROM answer_predictions WHERE answer_id = ?`, answerID).
		Scan(&predicted, &of)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, ErrNotFound
	}
	if err != nil {
		return 0, 0, fmt.Errorf("storage: prediction for answer %d: %w", answerID, err)
	}
	return predicted, of, nil
}

// MaxCalibrationPoints bounds the history Calibration returns: the newest
// ones, enough for a chart a person reads.
const MaxCalibrationPoints = 200

// Calibration returns a user's predictions beside their ticks, oldest
// first: answers with both a prediction and a self-assessment, the newest
// MaxCalibrationPoints of them. A prediction made against a different
// number of key points than the ticks (the content changed between) is
// left out: the two do not compare.
func (s *Store) Calibration(ctx context.Context, userID string) ([]CalibrationPoint, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT a.id, t.kind, t.slug, a.scope, p.predicted, sa.covered_count, sa.of_total, sa.assessed_at
		 FROM answers a JOIN attempts t ON t.id = a.attempt_id
		   JOIN answer_predictions p ON p.answer_id = a.id
		   JOIN self_assessments sa ON sa.answer_id = a.id
		 WHERE t.user_id = ? AND p.of_total = sa.of_total
		 ORDER BY sa.assessed_at DESC, a.id DESC LIMIT ?`, userID, MaxCalibrationPoints)
	if err != nil {
		return nil, fmt.Errorf("storage: calibration: %w", err)
	}
	defer rows.Close()
	var out []CalibrationPoint
	for rows.Next() {
		var (
			p    CalibrationPoint
			kind string
			at   int64
		)
		if err := rows.Scan(&p.AnswerID, &kind, &p.Slug, &p.Scope, &p.Predicted, &p.Covered, &p.Of, &at); err != nil {
			return nil, fmt.Errorf("storage: calibration: %w", err)
		}
		p.Kind, p.At = Kind(kind), fromMillis(at)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: calibration: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
