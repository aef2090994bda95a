package storage

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"
)

var timedT0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

func TestStartTimedSession(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		q1 := ScopeQuestion("q1")

		first, created, err := s.StartTimedSession(ctx, a.ID, q1, ModeTimed, 2*time.Minute, false, timedT0)
		if err != nil || !created || first.ID == 0 || !first.StartedAt.Equal(timedT0) || first.Limit != 2*time.Minute || !first.Open() {
			t.Fatalf("first start = %+v, created %v, %v", first, created, err)
		}
		// A second start (another tab, a retried request) returns the same
		// session with the first start time, whatever it asks for.
		again, created, err := s.StartTimedSession(ctx, a.ID, q1, ModeUntimed, time.Minute, false, timedT0.Add(30*time.Second))
		if err != nil || created || again.ID != first.ID || !again.StartedAt.Equal(timedT0) || again.Mode != ModeTimed {
			t.Fatalf("second start = %+v, created %v, %v; want session %d unchanged", again, created, err, first.ID)
		}
		other, created, err := s.StartTimedSession(ctx, a.ID, ScopeQuestion("q2"), ModeUntimed, time.Minute, false, timedT0)
		if err != nil || !created || other.ID == first.ID || other.Mode != ModeUntimed {
			t.Fatalf("start of another scope = %+v, %v, %v; want a new session", other, created, err)
		}
		// "No limit" inside a run: timed to the run's end, and kept so.
		q4 := ScopeQuestion("q4")
		bounded, created, err := s.StartTimedSession(ctx, a.ID, q4, ModeTimed, 30*time.Second, true, timedT0)
		if err != nil || !created || !bounded.NoOwnLimit || first.NoOwnLimit {
			t.Fatalf("start with no limit of its own = %+v, %v, %v; want it marked (and the first one not)", bounded, created, err)
		}
		if got, err := s.TimedSession(ctx, bounded.ID); err != nil || !got.NoOwnLimit || got.Mode != ModeTimed {
			t.Fatalf("read back = %+v, %v; want a timed session with no limit of its own", got, err)
		}
		open, err := s.OpenTimedSessions(ctx, a.ID)
		if err != nil || len(open) != 3 || open[q1].ID != first.ID || open[q1].NoOwnLimit || !open[q4].NoOwnLimit {
			t.Fatalf("OpenTimedSessions = %+v, %v", open, err)
		}

		bad := []struct {
			name  string
			mode  string
			limit time.Duration
		}{
			{"unknown mode", "sprint", time.Minute},
			{"zero limit", ModeTimed, 0},
			{"untimed with no limit of its own", ModeUntimed, time.Minute},
		}
		for _, b := range bad {
			t.Run(b.name, func(t *testing.T) {
				if _, _, err := s.StartTimedSession(ctx, a.ID, ScopeQuestion("q3"), b.mode, b.limit, b.mode == ModeUntimed, timedT0); err == nil {
					t.Fatal("start succeeded")
				}
			})
		}
		if _, _, err := s.StartTimedSession(ctx, 9999, q1, ModeTimed, time.Minute, false, timedT0); !errors.Is(err, ErrNotFound) {
			t.Errorf("start on a missing attempt = %v; want ErrNotFound", err)
		}
	})
}

func TestConcurrentStartsMakeOneSession(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		const starts = 8
		ids := make(chan int64, starts)
		for i := range starts {
			go func() {
				ts, _, err := s.StartTimedSession(ctx, a.ID, ScopeProblem, ModeTimed, time.Minute, false, timedT0.Add(time.Duration(i)*time.Millisecond))
				if err != nil {
					t.Error(err)
				}
				ids <- ts.ID
			}()
		}
		seen := map[int64]bool{}
		for range starts {
			seen[<-ids] = true
		}
		if len(seen) != 1 {
			t.Fatalf("concurrent starts made sessions %v; want one", seen)
		}
	})
}

func TestSaveDraft(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		ts, _, err := s.StartTimedSession(ctx, a.ID, ScopeProblem, ModeTimed, 2*time.Minute, false, timedT0)
		if err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			name      string
			seq       int64
			text      string
			late      bool
			wantSaved bool
			wantDraft string
			wantLate  string
		}{
			{"first draft", 1, "Retry", false, true, "Retry", ""},
			{"newer draft", 3, "Retry with the same key", false, true, "Retry with the same key", ""},
			{"stale draft arriving late is ignored", 2, "Retry with", false, false, "Retry with the same key", ""},
			{"same seq again is ignored", 3, "something else", false, false, "Retry with the same key", ""},
			{"late text is kept apart", 4, "Retry with the same key, and reconcile", true, true, "Retry with the same key", "Retry with the same key, and reconcile"},
		}
		for i, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				at := timedT0.Add(time.Duration(i+1) * time.Second)
				got, saved, err := s.SaveDraft(ctx, ts.ID, st.seq, st.text, st.late, at)
				if err != nil || saved != st.wantSaved {
					t.Fatalf("SaveDraft = saved %v, %v; want saved %v", saved, err, st.wantSaved)
				}
				stored, err := s.TimedSession(ctx, ts.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Draft != st.wantDraft || stored.Draft != st.wantDraft || stored.LateText != st.wantLate {
					t.Errorf("after save: returned draft %q, stored draft %q, late %q; want %q, %q", got.Draft, stored.Draft, stored.LateText, st.wantDraft, st.wantLate)
				}
			})
		}
		for _, seq := range []int64{0, -1, MaxDraftSeq + 1, math.MaxInt64} {
			if _, _, err := s.SaveDraft(ctx, ts.ID, seq, "x", false, timedT0); err == nil {
				t.Errorf("SaveDraft with seq %d succeeded", seq)
			}
		}
		if _, _, err := s.SaveDraft(ctx, 9999, 1, "x", false, timedT0); !errors.Is(err, ErrNotFound) {
			t.Errorf("SaveDraft on a missing session = %v; want ErrNotFound", err)
		}
	})
}

func TestSubmitTimedAnswer(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		q1 := ScopeQuestion("q1")
		ts, _, err := s.StartTimedSession(ctx, a.ID, q1, ModeTimed, 2*time.Minute, false, timedT0)
		if err != nil {
			t.Fatal(err)
		}
		timing := AnswerTiming{Mode: ModeTimed, Limit: 2 * time.Minute, StartedAt: timedT0, TimeUsed: 47 * time.Second,
			HowEnded: EndedSubmitted, WordCount: 3}
		ans, err := s.SubmitTimedAnswer(ctx, a.ID, q1, "Same key, retry.", ts.ID, timing, timedT0.Add(47*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.TimedAnswer(ctx, ans.ID)
		if err != nil || got.Body != "Same key, retry." || got.Timing != timing || got.AttemptID != a.ID {
			t.Fatalf("TimedAnswer = %+v, %v; want timing %+v", got, err, timing)
		}
		closed, err := s.TimedSession(ctx, ts.ID)
		if err != nil || closed.Open() || closed.AnswerID != ans.ID {
			t.Fatalf("session after submit = %+v, %v; want closed with answer %d", closed, err, ans.ID)
		}
		reveals, err := s.AnswerReveals(ctx, a.ID)
		if err != nil || len(reveals) != 1 || reveals[0].Reason != ReasonSubmitted {
			t.Fatalf("reveals after a timed submit = %+v, %v; want one, submitted", reveals, err)
		}

		t.Run("submitting twice is refused", func(t *testing.T) {
			if _, err := s.SubmitTimedAnswer(ctx, a.ID, q1, "again", ts.ID, timing, timedT0.Add(time.Minute)); !errors.Is(err, ErrSessionClosed) {
				t.Fatalf("second submit = %v; want ErrSessionClosed", err)
			}
			if _, _, err := s.SaveDraft(ctx, ts.ID, 99, "more", false, timedT0.Add(time.Minute)); !errors.Is(err, ErrSessionClosed) {
				t.Fatalf("draft after submit = %v; want ErrSessionClosed", err)
			}
			if _, _, err := s.SaveDraft(ctx, ts.ID, 99, "more", true, timedT0.Add(time.Hour)); !errors.Is(err, ErrSessionClosed) {
				t.Fatalf("late draft after a submit = %v; want ErrSessionClosed (the answer was submitted on time)", err)
			}
		})
		t.Run("a session of another scope or attempt", func(t *testing.T) {
			q2 := ScopeQuestion("q2")
			other, _, err := s.StartTimedSession(ctx, a.ID, q2, ModeTimed, time.Minute, false, timedT0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.SubmitTimedAnswer(ctx, a.ID, q1, "x", other.ID, timing, timedT0); !errors.Is(err, ErrNotFound) {
				t.Errorf("submit to q1 with q2's session = %v; want ErrNotFound", err)
			}
			b, err := s.StartAttempt(ctx, "someone-else", KindSet, "rapid")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.SubmitTimedAnswer(ctx, b.ID, q2, "x", other.ID, timing, timedT0); !errors.Is(err, ErrNotFound) {
				t.Errorf("submit with another user's session = %v; want ErrNotFound", err)
			}
			if still, _ := s.TimedSession(ctx, other.ID); !still.Open() {
				t.Error("a refused submit closed the session")
			}
		})
		t.Run("plain answer without a session", func(t *testing.T) {
			plain, err := s.SubmitTimedAnswer(ctx, a.ID, ScopeQuestion("q3"), "typed without script", 0,
				AnswerTiming{Mode: ModeTimed, WordCount: 3}, timedT0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.TimedAnswer(ctx, plain.ID)
			if err != nil || got.Timing != (AnswerTiming{WordCount: 3}) {
				t.Fatalf("plain answer timing = %+v, %v; want only the word count", got.Timing, err)
			}
		})
		latest, err := s.LatestTimedAnswers(ctx, a.ID)
		if err != nil || latest[q1].ID != ans.ID || latest[q1].Timing.TimeUsed != 47*time.Second || len(latest) != 2 {
			t.Fatalf("LatestTimedAnswers = %+v, %v", latest, err)
		}
		history, err := s.TimedAnswerHistory(ctx, a.ID)
		if err != nil || len(history) != 2 || history[0].ID != ans.ID || history[0].Timing != timing || history[1].Timing.Mode != "" {
			t.Fatalf("TimedAnswerHistory = %+v, %v; want the timed answer then the plain one", history, err)
		}
	})
}

// The user closes the tab mid-answer; the server closes the session at
// expiry with the last on-time draft, and late text is still kept.
func TestExpiredSessionKeepsLateText(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		ts, _, err := s.StartTimedSession(ctx, a.ID, ScopeProblem, ModeTimed, time.Minute, false, timedT0)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.SaveDraft(ctx, ts.ID, 1, "on time", false, timedT0.Add(50*time.Second)); err != nil {
			t.Fatal(err)
		}
		ts, _ = s.TimedSession(ctx, ts.ID)
		expired := AnswerTiming{Mode: ModeTimed, Limit: time.Minute, StartedAt: timedT0, TimeUsed: time.Minute,
			HowEnded: EndedExpired, WordCount: 2}
		ans, err := s.SubmitTimedAnswer(ctx, a.ID, ScopeProblem, ts.Draft, ts.ID, expired, timedT0.Add(10*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		// A tab that was offline comes back and sends what it had.
		if _, saved, err := s.SaveDraft(ctx, ts.ID, 2, "on time, and more", true, timedT0.Add(11*time.Minute)); err != nil || !saved {
			t.Fatalf("late draft to an expired session = saved %v, %v; want kept", saved, err)
		}
		got, err := s.TimedAnswer(ctx, ans.ID)
		if err != nil || got.Body != "on time" || !got.Timing.Late || got.Timing.LateBody != "on time, and more" || got.Timing.HowEnded != EndedExpired {
			t.Fatalf("answer after late text = %+v, %v; want the on-time body, marked late with the late text", got, err)
		}
	})
}

func TestSelfAssessment(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		ans, err := s.SubmitTimedAnswer(ctx, a.ID, ScopeQuestion("q1"), "answer", 0, AnswerTiming{WordCount: 1}, timedT0)
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name    string
			covered []int
			of      int
			want    []int
			wantErr bool
		}{
			{"some points, unsorted with a repeat", []int{2, 0, 2}, 4, []int{0, 2}, false},
			{"none", nil, 4, []int{}, false},
			{"all, replacing the earlier one", []int{0, 1, 2, 3}, 4, []int{0, 1, 2, 3}, false},
			{"index past the end", []int{4}, 4, nil, true},
			{"negative index", []int{-1}, 4, nil, true},
			{"no key points", nil, 0, nil, true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.SaveSelfAssessment(ctx, ans.ID, tt.covered, tt.of, timedT0)
				if (err != nil) != tt.wantErr {
					t.Fatalf("SaveSelfAssessment = %+v, %v; want error %v", got, err, tt.wantErr)
				}
				if !tt.wantErr && (!slices.Equal(got.Covered, tt.want) || got.Of != tt.of) {
					t.Fatalf("SaveSelfAssessment = %+v; want covered %v of %d", got, tt.want, tt.of)
				}
			})
		}
		all, err := s.SelfAssessments(ctx, a.ID)
		if err != nil || len(all) != 1 || !slices.Equal(all[ans.ID].Covered, []int{0, 1, 2, 3}) || all[ans.ID].Of != 4 {
			t.Fatalf("SelfAssessments = %+v, %v; want the last save", all, err)
		}
		if _, err := s.SaveSelfAssessment(ctx, 9999, nil, 2, timedT0); !errors.Is(err, ErrNotFound) {
			t.Errorf("assessment of a missing answer = %v; want ErrNotFound", err)
		}
	})
}

// TestSaveDraftAfterAnAbsurdSeq: a sequence number above MaxDraftSeq
// stored before the bound existed does not make every later save stale.
func TestSaveDraftAfterAnAbsurdSeq(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		ts, _, err := s.StartTimedSession(ctx, a.ID, ScopeProblem, ModeTimed, 2*time.Minute, false, timedT0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.ExecContext(ctx, `UPDATE timed_sessions SET draft = 'old', draft_seq = ? WHERE id = ?`, int64(math.MaxInt64), ts.ID); err != nil {
			t.Fatal(err)
		}
		stored, err := s.TimedSession(ctx, ts.ID)
		if err != nil || stored.DraftSeq != 0 {
			t.Fatalf("session read with seq %d, %v; want the absurd seq read as none", stored.DraftSeq, err)
		}
		got, saved, err := s.SaveDraft(ctx, ts.ID, 1_800_000_000_000, "new", false, timedT0.Add(time.Second))
		if err != nil || !saved || got.Draft != "new" {
			t.Fatalf("SaveDraft = %q saved %v, %v; want the new text saved", got.Draft, saved, err)
		}
	})
}
