package practice

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/storage/storagetest"
	"github.com/faultline-dev/faultline/internal/timer"
)

// fakeClock is the server's clock in these tests, moved by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

func newFakeClock() *fakeClock { return &fakeClock{now: t0} }

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func openStore(t *testing.T) *storage.Store {
	t.Helper()
	return storagetest.Open(t)
}

func newAnswers(t *testing.T) (*Answers, *storage.Store, *fakeClock, int64) {
	t.Helper()
	st := openStore(t)
	clock := newFakeClock()
	a, err := st.StartAttempt(context.Background(), "user-1", storage.KindSet, "rapid")
	if err != nil {
		t.Fatal(err)
	}
	return NewAnswers(st, clock.Now), st, clock, a.ID
}

const scope = "question:q1"

// TestSubmitEndings: the ending, the time used and the split of on-time and
// late text, by when the submit reaches the server.
func TestSubmitEndings(t *testing.T) {
	tests := []struct {
		name      string
		after     time.Duration // from the start to the submit
		wantEnded string
		wantUsed  time.Duration
		wantBody  string
		wantLate  string
	}{
		{"before the limit", 90 * time.Second, storage.EndedSubmitted, 90 * time.Second, "final text", ""},
		{"at the limit", 2 * time.Minute, storage.EndedExpired, 2 * time.Minute, "final text", ""},
		{"within the grace", 2*time.Minute + timer.Grace, storage.EndedExpired, 2 * time.Minute, "final text", ""},
		{"after the grace", 2*time.Minute + timer.Grace + time.Millisecond, storage.EndedExpired, 2 * time.Minute, "saved in time", "final text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ans, _, clock, attempt := newAnswers(t)
			st, err := ans.Start(ctx, Start{AttemptID: attempt, Scope: scope, Mode: timer.Timed, Limit: 2 * time.Minute})
			if err != nil || !st.Created || st.Phase != "running" || st.Remaining != 2*time.Minute {
				t.Fatalf("Start = %+v, %v", st, err)
			}
			clock.Advance(time.Minute)
			if _, err := ans.SaveDraft(ctx, st.Session, 1, "saved in time"); err != nil {
				t.Fatal(err)
			}
			clock.Advance(tt.after - time.Minute)
			got, err := ans.Submit(ctx, Submission{AttemptID: attempt, Scope: scope, SessionID: st.Session.ID, Text: "  final text\r\n"})
			if err != nil {
				t.Fatal(err)
			}
			if got.Timing.HowEnded != tt.wantEnded || got.Timing.TimeUsed != tt.wantUsed || got.Body != tt.wantBody ||
				got.Timing.LateBody != tt.wantLate || got.Timing.Late != (tt.wantLate != "") {
				t.Errorf("Submit = %q, %+v; want %s after %v, body %q, late %q", got.Body, got.Timing, tt.wantEnded, tt.wantUsed, tt.wantBody, tt.wantLate)
			}
		})
	}
}

// TestEmptyAnswers: an empty answer is refused before the box locks and
// stored (empty, expired) once it has; a plain form's empty answer is
// refused.
func TestEmptyAnswers(t *testing.T) {
	ctx := context.Background()
	ans, _, clock, attempt := newAnswers(t)
	if _, err := ans.Submit(ctx, Submission{AttemptID: attempt, Scope: scope, Text: " \u200b "}); !errors.Is(err, ErrEmptyAnswer) {
		t.Errorf("plain empty submit: %v; want ErrEmptyAnswer", err)
	}
	st, err := ans.Start(ctx, Start{AttemptID: attempt, Scope: scope, Mode: timer.Timed, Limit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ans.Submit(ctx, Submission{AttemptID: attempt, Scope: scope, SessionID: st.Session.ID, Text: "\n"}); !errors.Is(err, ErrEmptyAnswer) {
		t.Errorf("empty submit before the limit: %v; want ErrEmptyAnswer", err)
	}
	clock.Advance(time.Minute)
	got, err := ans.Submit(ctx, Submission{AttemptID: attempt, Scope: scope, SessionID: st.Session.ID, Text: ""})
	if err != nil || got.Body != "" || got.Timing.HowEnded != storage.EndedExpired {
		t.Errorf("empty submit at the limit = %+v, %v; want an empty expired answer", got, err)
	}
}

// TestCloseOverdue: nothing is closed before the limit plus grace; after
// it the last on-time draft is the answer and late text sits beside it; a
// second close changes nothing; a start afterwards opens a fresh session.
func TestCloseOverdue(t *testing.T) {
	ctx := context.Background()
	ans, store, clock, attempt := newAnswers(t)
	st, err := ans.Start(ctx, Start{AttemptID: attempt, Scope: scope, Mode: timer.Timed, Limit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ans.SaveDraft(ctx, st.Session, 1, "on time"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute + timer.Grace)
	if err := ans.CloseOverdue(ctx, attempt); err != nil {
		t.Fatal(err)
	}
	if open, _ := store.OpenTimedSessions(ctx, attempt); len(open) != 1 {
		t.Fatalf("within the grace %d sessions are open; want 1", len(open))
	}
	clock.Advance(time.Millisecond)
	d, err := ans.SaveDraft(ctx, st.Session, 2, "on time, and more")
	if err != nil || !d.Late || d.Phase != "locked" {
		t.Fatalf("draft after the grace = %+v, %v; want late, locked", d, err)
	}
	for range 2 {
		if err := ans.CloseOverdue(ctx, attempt); err != nil {
			t.Fatal(err)
		}
	}
	latest, err := store.LatestTimedAnswers(ctx, attempt)
	if err != nil {
		t.Fatal(err)
	}
	got := latest[scope]
	if got.Body != "on time" || got.Timing.LateBody != "on time, and more" || got.Timing.HowEnded != storage.EndedExpired || got.Timing.TimeUsed != time.Minute {
		t.Errorf("closed overdue = %q, %+v", got.Body, got.Timing)
	}
	again, err := ans.Start(ctx, Start{AttemptID: attempt, Scope: scope, Mode: timer.Timed, Limit: time.Minute})
	if err != nil || !again.Created || again.Session.ID == st.Session.ID {
		t.Errorf("start after the close = %+v, %v; want a fresh session", again, err)
	}
	// The old tab's submit lands on the closed session: kept, late.
	closed, err := store.TimedSession(ctx, st.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := ans.KeepAfterClose(ctx, closed, "on time, and more, and the end", 0)
	if err != nil || kept.Body != "on time" || kept.Timing.LateBody != "on time, and more, and the end" {
		t.Errorf("KeepAfterClose = %q, %+v, %v", kept.Body, kept.Timing, err)
	}
}

// TestStartBoundedByAnOverallClock: inside a whole-set run the session
// ends when the run does, "no limit" too (the run's clock still runs);
// once the run is over no answer starts, but one already open is returned
// as it is.
func TestStartBoundedByAnOverallClock(t *testing.T) {
	ctx := context.Background()
	ans, _, clock, attempt := newAnswers(t)
	until := t0.Add(90 * time.Second)
	tests := []struct {
		name      string
		at        time.Duration // from t0
		scope     string
		mode      timer.Mode
		wantLimit time.Duration
		wantErr   error
	}{
		{"plenty of run left", 0, "question:a", timer.Timed, time.Minute, nil},
		{"less run left than the limit", 70 * time.Second, "question:b", timer.Timed, 20 * time.Second, nil},
		{"no limit still ends with the run", 70 * time.Second, "question:c", timer.Untimed, 20 * time.Second, nil},
		{"the run is over", 90 * time.Second, "question:d", timer.Timed, 0, ErrOuterClockUp},
		{"the run is over but the box is open", 90 * time.Second, "question:b", timer.Timed, 20 * time.Second, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock.Advance(t0.Add(tt.at).Sub(clock.Now()))
			st, err := ans.Start(ctx, Start{AttemptID: attempt, Scope: tt.scope, Mode: tt.mode, Limit: time.Minute, Until: until})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Start: %v; want %v", err, tt.wantErr)
			}
			if err == nil && st.Session.Limit != tt.wantLimit {
				t.Errorf("the session's limit is %v; want %v", st.Session.Limit, tt.wantLimit)
			}
			if err == nil && st.Session.Mode != string(timer.Timed) {
				t.Errorf("the session is %q inside the run; want it timed to the run's end", st.Session.Mode)
			}
			if err == nil && st.Session.NoOwnLimit != (tt.mode == timer.Untimed) {
				t.Errorf("the session's NoOwnLimit is %v for a %s start; want it to say the candidate chose no limit", st.Session.NoOwnLimit, tt.mode)
			}
		})
	}
	// The untimed one's answer is untimed, with the run's time left as
	// its limit; the timed ones' are timed.
	open, err := ans.store.OpenTimedSessions(ctx, attempt)
	if err != nil {
		t.Fatal(err)
	}
	for scope, want := range map[string]string{"question:b": storage.ModeTimed, "question:c": storage.ModeUntimed} {
		got, err := ans.Submit(ctx, Submission{AttemptID: attempt, Scope: scope, SessionID: open[scope].ID, Text: "An answer."})
		if err != nil || got.Timing.Mode != want || got.Timing.Limit != 20*time.Second {
			t.Errorf("%s's answer: %+v, %v; want %s with a 20 s limit", scope, got.Timing, err, want)
		}
	}
}
