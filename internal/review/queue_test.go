package review

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/pgtest"
	"github.com/faultline-dev/faultline/internal/storage"
)

// forEachDB runs f on a SQLite file and on a Postgres database, with a
// function that opens another store on the same database (a restart, or
// a second instance).
func forEachDB(t *testing.T, f func(t *testing.T, open func() *storage.Store)) {
	t.Helper()
	opener := func(t *testing.T, db string) func() *storage.Store {
		return func() *storage.Store {
			s, err := storage.Open(context.Background(), db)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	}
	t.Run("sqlite", func(t *testing.T) { f(t, opener(t, filepath.Join(t.TempDir(), "review.db"))) })
	t.Run("postgres", func(t *testing.T) { f(t, opener(t, pgtest.URL(t))) })
}

// TestQueueAcrossInstances answers a question, ticks its key points and
// reads the queue from another store on the same database: the schedule
// is the database's, not a process's.
func TestQueueAcrossInstances(t *testing.T) {
	ctx := context.Background()
	forEachDB(t, func(t *testing.T, open func() *storage.Store) {
		a, b := open(), open()
		att, err := a.StartAttempt(ctx, "u", storage.KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		scope := storage.ScopeQuestion("q1")
		answer := func(s *storage.Store, at time.Time, predicted int) int64 {
			t.Helper()
			ans, err := s.SubmitTimedAnswer(ctx, att.ID, scope, "an answer", 0, storage.AnswerTiming{}, at)
			if err != nil {
				t.Fatal(err)
			}
			if err := Answered(ctx, s, att.ID, scope, ans.ID, predicted, 4, at); err != nil {
				t.Fatal(err)
			}
			return ans.ID
		}
		assess := func(s *storage.Store, id int64, covered int, at time.Time) State {
			t.Helper()
			ticks := make([]int, covered)
			for i := range ticks {
				ticks[i] = i
			}
			if _, err := s.SaveSelfAssessment(ctx, id, ticks, 4, at); err != nil {
				t.Fatal(err)
			}
			st, err := Assessed(ctx, s, att.ID, scope, id, covered, 4, at)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}

		// Answered, not yet ticked: due a day later, on the other instance too.
		id := answer(a, t0, -1)
		q, err := Load(ctx, b, "u", t0)
		if err != nil || len(q.Due) != 0 || len(q.Later) != 1 || !q.Later[0].Due.Equal(t0.Add(Day)) {
			t.Fatalf("queue after an answer = %+v, %v; want one item due in a day", q, err)
		}
		if q, _ := Load(ctx, b, "u", t0.Add(Day)); len(q.Due) != 1 || q.Due[0].Slug != "rapid" || q.Due[0].Scope != scope {
			t.Fatalf("queue a day later = %+v; want the item due", q)
		}

		// Good ticks, each review on the day it is due: 1, 6, 16 days.
		at := t0
		var got []int
		for i := range 3 {
			if i > 0 {
				id = answer(b, at, -1)
			}
			st := assess(a, id, 4, at)
			// Ticking the same answer again on the other instance rates it once.
			if again := assess(b, id, 4, at); again.Interval != st.Interval || again.Reps != st.Reps {
				t.Fatalf("re-ticking = %+v; first %+v", again, st)
			}
			got = append(got, st.Interval)
			at = st.Due
		}
		if got[0] != 1 || got[1] != 6 || got[2] != 16 {
			t.Fatalf("intervals %v; want 1 6 16", got)
		}
		// A restart: a fresh store reads the same schedule.
		c := open()
		q, err = Load(ctx, c, "u", at.Add(-time.Hour))
		if err != nil || len(q.Later) != 1 || !q.Later[0].Due.Equal(at) || q.Later[0].Reps != 3 {
			t.Fatalf("queue after a restart = %+v, %v; want due %v after 3 reps", q, err, at)
		}
		// A poor answer starts again from a day.
		id = answer(c, at, -1)
		if st := assess(c, id, 1, at); st.Interval != 1 || st.Reps != 0 || st.Lapses != 1 {
			t.Fatalf("after a poor review = %+v; want 1 day, reps reset", st)
		}
		// Calibrated, then over-confident, answers of the same quality: the
		// second pass would be 6 days by SM-2; predicting 4 and ticking 2
		// halves it.
		at = at.Add(Day)
		id = answer(c, at, 2)
		calibrated := assess(c, id, 2, at)
		if calibrated.Interval != 1 {
			t.Fatalf("first pass after a lapse: %d days; want 1", calibrated.Interval)
		}
		at = calibrated.Due
		id = answer(c, at, 4)
		if over := assess(c, id, 2, at); over.Interval != 3 {
			t.Fatalf("over-confident second pass: %d days; want 3", over.Interval)
		}
		if err := Answered(ctx, c, att.ID, scope, id, 5, 4, at); err == nil {
			t.Fatal("a prediction of 5 of 4 key points was taken")
		}
	})
}
