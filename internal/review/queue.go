package review

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
)

// Store is what the queue keeps; *storage.Store has it.
type Store interface {
	AddReviewItem(ctx context.Context, attemptID int64, scope string, first storage.ReviewSchedule) error
	RateReviewItem(ctx context.Context, attemptID int64, scope string, answerID int64, fresh storage.ReviewSchedule,
		rate func(storage.ReviewSchedule) storage.ReviewSchedule) (storage.ReviewSchedule, error)
	ReviewItems(ctx context.Context, userID string) ([]storage.ReviewItem, error)
	SavePrediction(ctx context.Context, answerID int64, predicted, of int, at time.Time) error
	Prediction(ctx context.Context, answerID int64) (predicted, of int, err error)
}

// Enqueuer is the part of Store that Answered writes to.
type Enqueuer interface {
	AddReviewItem(ctx context.Context, attemptID int64, scope string, first storage.ReviewSchedule) error
	SavePrediction(ctx context.Context, answerID int64, predicted, of int, at time.Time) error
}

func toStored(s State) storage.ReviewSchedule {
	return storage.ReviewSchedule{Reps: s.Reps, Ease: s.Ease, Interval: s.Interval, Lapses: s.Lapses, Due: s.Due, Reviewed: s.Reviewed}
}

func fromStored(s storage.ReviewSchedule) State {
	return State{Reps: s.Reps, Ease: s.Ease, Interval: s.Interval, Lapses: s.Lapses, Due: s.Due, Reviewed: s.Reviewed}
}

// Answered puts an answered question or problem in the queue, due a day
// later (SM-2's first interval) until the candidate ticks its key points,
// which rates it. An item in the queue already keeps its schedule. With a
// prediction (predicted >= 0), how many of the of key points the candidate
// said they covered before seeing them is kept with the answer.
func Answered(ctx context.Context, st Enqueuer, attemptID int64, scope string, answerID int64, predicted, of int, at time.Time) error {
	if predicted >= 0 {
		if err := (Rating{Covered: 0, Of: of, Predicted: predicted}).Validate(); err != nil {
			return err
		}
		if err := st.SavePrediction(ctx, answerID, predicted, of, at); err != nil {
			return err
		}
	}
	first := New(at)
	first.Due = at.Add(Day)
	return st.AddReviewItem(ctx, attemptID, scope, toStored(first))
}

// Assessed rates the item by the candidate's ticks on answer answerID
// (covered of of key points) and the prediction made with that answer, if
// any, and returns its new schedule.
func Assessed(ctx context.Context, st Store, attemptID int64, scope string, answerID int64, covered, of int, at time.Time) (State, error) {
	r := Rating{Covered: covered, Of: of, Predicted: -1}
	p, pof, err := st.Prediction(ctx, answerID)
	switch {
	case errors.Is(err, storage.ErrNotFound):
	case err != nil:
		return State{}, err
	case pof == of: // a prediction against other key points does not compare
		r.Predicted = p
	}
	if err := r.Validate(); err != nil {
		return State{}, err
	}
	next, err := st.RateReviewItem(ctx, attemptID, scope, answerID, toStored(New(at)),
		func(s storage.ReviewSchedule) storage.ReviewSchedule { return toStored(Next(fromStored(s), r, at)) })
	if err != nil {
		return State{}, fmt.Errorf("review: rate %s: %w", scope, err)
	}
	return fromStored(next), nil
}

// Queue is a user's items split at a moment: Due ones (soonest first)
// and the Later ones.
type Queue struct {
	Due, Later []storage.ReviewItem
}

// Load reads a user's queue as it stands at time at.
func Load(ctx context.Context, st Store, userID string, at time.Time) (Queue, error) {
	items, err := st.ReviewItems(ctx, userID)
	if err != nil {
		return Queue{}, err
	}
	var q Queue
	for _, it := range items {
		if it.Due.After(at) {
			q.Later = append(q.Later, it)
		} else {
			q.Due = append(q.Due, it)
		}
	}
	return q, nil
}
