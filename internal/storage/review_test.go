package storage

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// bump is a stand-in for internal/review's rules: each rating adds a rep
// and a day, so the test sees which schedule a rating started from.
func bump(at time.Time) func(ReviewSchedule) ReviewSchedule {
	return func(s ReviewSchedule) ReviewSchedule {
		s.Reps++
		s.Interval++
		s.Ease += 0.1
		s.Reviewed = at
		s.Due = at.Add(time.Duration(s.Interval) * 24 * time.Hour)
		return s
	}
}

func TestReviewItems(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		set, err := s.StartAttempt(ctx, "u", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		prob, err := s.StartAttempt(ctx, "u", KindProblem, "refund")
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.StartAttempt(ctx, "someone-else", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		q1 := ScopeQuestion("q1")
		first := ReviewSchedule{Ease: 2.5, Due: timedT0.Add(24 * time.Hour)}
		for _, add := range []struct {
			id    int64
			scope string
			due   time.Time
		}{{set.ID, q1, first.Due}, {prob.ID, ScopeProblem, timedT0.Add(time.Hour)}, {other.ID, q1, timedT0}} {
			f := first
			f.Due = add.due
			if err := s.AddReviewItem(ctx, add.id, add.scope, f); err != nil {
				t.Fatal(err)
			}
		}
		// Adding again (a second answer) keeps the schedule.
		if err := s.AddReviewItem(ctx, set.ID, q1, ReviewSchedule{Ease: 2.5, Due: timedT0}); err != nil {
			t.Fatal(err)
		}
		items, err := s.ReviewItems(ctx, "u")
		if err != nil || len(items) != 2 {
			t.Fatalf("ReviewItems = %+v, %v; want 2", items, err)
		}
		if items[0].Slug != "refund" || items[0].Kind != KindProblem || items[1].Scope != q1 || !items[1].Due.Equal(first.Due) ||
			items[1].Ease != 2.5 || !items[1].Reviewed.IsZero() || items[1].RatedAnswerID != 0 {
			t.Fatalf("ReviewItems = %+v; want the problem (due sooner), then q1 unchanged", items)
		}

		// Rating answer 7 moves from the stored schedule; rating answer 7
		// again starts from the same one; answer 8 moves on from there.
		at := timedT0.Add(2 * time.Hour)
		got, err := s.RateReviewItem(ctx, set.ID, q1, 7, ReviewSchedule{Ease: 9}, bump(at))
		if err != nil || got.Reps != 1 || got.Interval != 1 || got.Ease != 2.6 || !got.Reviewed.Equal(at) {
			t.Fatalf("first rating = %+v, %v", got, err)
		}
		again, err := s.RateReviewItem(ctx, set.ID, q1, 7, ReviewSchedule{Ease: 9}, bump(at.Add(time.Minute)))
		if err != nil || again.Reps != 1 || again.Ease != 2.6 || !again.Reviewed.Equal(at.Add(time.Minute)) {
			t.Fatalf("re-rating the same answer = %+v, %v; want it rated once", again, err)
		}
		next, err := s.RateReviewItem(ctx, set.ID, q1, 8, ReviewSchedule{Ease: 9}, bump(at))
		if err != nil || next.Reps != 2 || next.Interval != 2 {
			t.Fatalf("rating the next answer = %+v, %v; want it to build on the first", next, err)
		}
		items, err = s.ReviewItems(ctx, "u")
		if err != nil || len(items) != 2 || items[1].Scope != q1 || items[1].Reps != 2 || items[1].RatedAnswerID != 8 ||
			!items[1].Due.Equal(at.Add(48*time.Hour)) {
			t.Fatalf("ReviewItems after ratings = %+v, %v", items, err)
		}
		// An item never added (answered before the queue) starts from fresh.
		fresh, err := s.RateReviewItem(ctx, set.ID, ScopeQuestion("q2"), 9, ReviewSchedule{Ease: 1.5}, bump(at))
		if err != nil || fresh.Reps != 1 || fresh.Ease != 1.6 {
			t.Fatalf("rating an item not in the queue = %+v, %v", fresh, err)
		}
		if _, err := s.RateReviewItem(ctx, 999999, q1, 1, first, bump(at)); !errors.Is(err, ErrNotFound) {
			t.Fatalf("rating in a missing attempt: %v; want ErrNotFound", err)
		}
	})
}

func TestCalibration(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		answer := func(scope string, at time.Time) int64 {
			ans, err := s.SubmitTimedAnswer(ctx, a.ID, scope, "my answer", 0, AnswerTiming{}, at)
			if err != nil {
				t.Fatal(err)
			}
			return ans.ID
		}
		one := answer(ScopeQuestion("q1"), timedT0)
		two := answer(ScopeQuestion("q2"), timedT0.Add(time.Minute))
		three := answer(ScopeQuestion("q3"), timedT0.Add(2*time.Minute))
		unticked := answer(ScopeQuestion("q4"), timedT0.Add(3*time.Minute))
		for _, p := range []struct {
			id            int64
			predicted, of int
		}{{one, 3, 4}, {two, 1, 3}, {three, 2, 5}, {unticked, 2, 2}} {
			if err := s.SavePrediction(ctx, p.id, p.predicted, p.of, timedT0); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SavePrediction(ctx, one, 5, 4, timedT0); err == nil {
			t.Fatal("a prediction of 5 of 4 saved")
		}
		if p, of, err := s.Prediction(ctx, one); err != nil || p != 3 || of != 4 {
			t.Fatalf("Prediction = %d of %d, %v", p, of, err)
		}
		if _, _, err := s.Prediction(ctx, 424242); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Prediction of no answer: %v; want ErrNotFound", err)
		}
		// Ticked in the order two, one; three against another count of key
		// points (the content changed) is left out.
		if _, err := s.SaveSelfAssessment(ctx, two, []int{0, 1, 2}, 3, timedT0.Add(10*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveSelfAssessment(ctx, one, []int{1}, 4, timedT0.Add(11*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveSelfAssessment(ctx, three, []int{1}, 4, timedT0.Add(12*time.Minute)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Calibration(ctx, "u")
		if err != nil || len(got) != 2 {
			t.Fatalf("Calibration = %+v, %v; want 2 points", got, err)
		}
		if got[0].AnswerID != two || got[0].Predicted != 1 || got[0].Covered != 3 || got[0].Of != 3 ||
			got[1].AnswerID != one || got[1].Predicted != 3 || got[1].Covered != 1 || got[1].Slug != "rapid" ||
			got[1].Scope != ScopeQuestion("q1") || !got[1].At.Equal(timedT0.Add(11*time.Minute)) {
			t.Fatalf("Calibration = %+v", got)
		}
		if none, err := s.Calibration(ctx, "nobody"); err != nil || len(none) != 0 {
			t.Fatalf("Calibration of nobody = %+v, %v", none, err)
		}
	})
}

// TestRaceReviewRatingsAllCount rates one item from two stores on one
// database at once, each call for another answer: every rating must build
// on the one before it (none lost to a concurrent read), and a first
// rating racing the item's creation must not fail.
func TestRaceReviewRatingsAllCount(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		at, err := a.StartAttempt(ctx, "u", KindSet, "s")
		if err != nil {
			t.Fatal(err)
		}
		const n = 8
		scope := ScopeQuestion("q")
		errs := race(n, a, b, func(i int, s *Store) error {
			if i == 0 {
				return s.AddReviewItem(ctx, at.ID, scope, ReviewSchedule{Ease: 2.5, Due: timedT0})
			}
			_, err := s.RateReviewItem(ctx, at.ID, scope, int64(100+i), ReviewSchedule{Ease: 2.5, Due: timedT0}, bump(timedT0))
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		items, err := b.ReviewItems(ctx, "u")
		if err != nil || len(items) != 1 || items[0].Reps != n-1 {
			t.Fatalf("after %d concurrent ratings: %+v, %v; want %d reps", n-1, items, err, n-1)
		}
	})
}

// TestReviewMigrationQueuesEarlierAnswers: migration 0015 puts what was
// answered before it in the queue, due a day after the latest answer.
func TestReviewMigrationQueuesEarlierAnswers(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		for i, at := range []time.Time{timedT0, timedT0.Add(time.Hour)} {
			if _, err := s.SubmitTimedAnswer(ctx, a.ID, ScopeQuestion("q1"), fmt.Sprint("answer ", i), 0, AnswerTiming{}, at); err != nil {
				t.Fatal(err)
			}
		}
		// Back to before 0015, with the answers, and forward again.
		for _, q := range []string{`DROP TABLE answer_predictions`, `DROP TABLE review_items`, `DELETE FROM schema_migrations WHERE version = 15`} {
			if _, err := s.db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := s.Migrate(ctx); err != nil || n != 1 {
			t.Fatalf("Migrate = %d, %v; want 0015 applied again", n, err)
		}
		items, err := s.ReviewItems(ctx, "u")
		if err != nil || len(items) != 1 || items[0].Scope != ScopeQuestion("q1") || !items[0].Due.Equal(timedT0.Add(25*time.Hour)) ||
			items[0].Ease != 2.5 || !items[0].Reviewed.IsZero() {
			t.Fatalf("queue after the migration = %+v, %v; want q1 due a day after its latest answer", items, err)
		}
	})
}
