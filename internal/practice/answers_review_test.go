package practice

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/review"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// TestAnswersEnterTheReviewQueue: every path that stores an answer puts it
// in the review queue when what it answers has key points, due a day later
// (issue 29): a submit in the timed box, a plain form's answer with no
// session, and the answer the server stores itself when the clock ran out
// while the candidate was away. An answer to something with no key points
// (nothing to rate it by) stays out; a guess made with the answer is kept.
func TestAnswersEnterTheReviewQueue(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		points int
		store  func(t *testing.T, ans *Answers, clock *fakeClock, attempt int64) storage.TimedAnswer
	}{
		{"timed submit", 4, func(t *testing.T, ans *Answers, clock *fakeClock, attempt int64) storage.TimedAnswer {
			st, err := ans.Start(ctx, Start{AttemptID: attempt, Scope: scope, Mode: timer.Timed, Limit: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			guess := 3
			got, err := ans.Submit(ctx, Submission{AttemptID: attempt, Scope: scope, SessionID: st.Session.ID, Text: "an answer", Predicted: &guess})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}},
		{"plain form", 4, func(t *testing.T, ans *Answers, clock *fakeClock, attempt int64) storage.TimedAnswer {
			got, err := ans.Submit(ctx, Submission{AttemptID: attempt, Scope: scope, Text: "an answer"})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}},
		{"stored when the clock ran out", 4, func(t *testing.T, ans *Answers, clock *fakeClock, attempt int64) storage.TimedAnswer {
			st, err := ans.Start(ctx, Start{AttemptID: attempt, Scope: scope, Mode: timer.Timed, Limit: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ans.SaveDraft(ctx, st.Session, 1, "on time"); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Minute + timer.Grace + time.Millisecond)
			if err := ans.CloseOverdue(ctx, attempt); err != nil {
				t.Fatal(err)
			}
			got, err := ans.store.TimedAnswer(ctx, mustClosed(t, ans, st.Session.ID).AnswerID)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}},
		{"no key points", 0, func(t *testing.T, ans *Answers, clock *fakeClock, attempt int64) storage.TimedAnswer {
			got, err := ans.Submit(ctx, Submission{AttemptID: attempt, Scope: scope, Text: "an answer"})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ans, st, clock, attempt := newAnswers(t)
			var asked []string
			ans.KeyPoints = func(_ context.Context, kind storage.Kind, slug, sc string) int {
				asked = append(asked, string(kind)+"/"+slug+"/"+sc)
				return tc.points
			}
			got := tc.store(t, ans, clock, attempt)
			if len(asked) != 1 || asked[0] != "set/rapid/"+scope {
				t.Errorf("key points asked for %q; want the answer's set and question once", asked)
			}
			items, err := st.ReviewItems(ctx, "user-1")
			if err != nil {
				t.Fatal(err)
			}
			if tc.points == 0 {
				if len(items) != 0 {
					t.Errorf("an answer with no key points is queued: %+v", items)
				}
				return
			}
			if len(items) != 1 || items[0].Scope != scope || !items[0].Due.Equal(clock.Now().Add(24*time.Hour)) {
				t.Fatalf("queue %+v; want %s due a day after the answer was stored (%v)", items, scope, clock.Now())
			}
			predicted, of, err := st.Prediction(ctx, got.ID)
			if tc.name == "timed submit" && (err != nil || predicted != 3 || of != 4) {
				t.Errorf("the guess kept = %d of %d, %v; want 3 of 4", predicted, of, err)
			}
		})
	}
}

func mustClosed(t *testing.T, ans *Answers, id int64) storage.TimedSession {
	t.Helper()
	s, err := ans.store.TimedSession(context.Background(), id)
	if err != nil || s.Open() {
		t.Fatalf("session %d: %+v, %v; want it closed", id, s, err)
	}
	return s
}

// failingQueue is a store whose review queue cannot be written.
type failingQueue struct{ AnswerStore }

func (failingQueue) AddReviewItem(context.Context, int64, string, storage.ReviewSchedule) error {
	return errors.New("disk full")
}

// TestQueueWriteFailureKeepsTheAnswer: the answer is stored before it is
// queued, so a failing queue write is logged and the candidate still gets
// their answer back (no error page for an answer that was saved); ticking
// its key points later puts it in the queue.
func TestQueueWriteFailureKeepsTheAnswer(t *testing.T) {
	ctx := context.Background()
	ans, st, clock, attempt := newAnswers(t)
	var logged bytes.Buffer
	broken := NewAnswers(failingQueue{st}, clock.Now)
	broken.KeyPoints = func(context.Context, storage.Kind, string, string) int { return 4 }
	broken.Log = slog.New(slog.NewTextHandler(&logged, nil))
	got, err := broken.Submit(ctx, Submission{AttemptID: attempt, Scope: scope, Text: "an answer"})
	if err != nil {
		t.Fatalf("submit with a failing queue: %v; want the stored answer", err)
	}
	if stored, err := ans.store.TimedAnswer(ctx, got.ID); err != nil || stored.Body != "an answer" {
		t.Fatalf("stored answer = %+v, %v", stored, err)
	}
	if !strings.Contains(logged.String(), "not put in the review queue") || !strings.Contains(logged.String(), "disk full") {
		t.Errorf("log = %q; want the failed queue write", logged.String())
	}
	if _, err := review.Assessed(ctx, st, attempt, scope, got.ID, 3, 4, clock.Now()); err != nil {
		t.Fatal(err)
	}
	if items, err := st.ReviewItems(ctx, "user-1"); err != nil || len(items) != 1 {
		t.Fatalf("queue after the ticks = %+v, %v; want the item", items, err)
	}
}
