package practice

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

func newService(t *testing.T) (*Service, *storage.Store, *fakeClock) {
	t.Helper()
	st := openStore(t)
	clock := newFakeClock()
	return New(st, clock.Now), st, clock
}

// TestBeginClosesOverdueAnswers: the first write after a timed answer
// ran out while the user was away stores its last on-time draft, before
// anything else; an answer still within its time is left open.
func TestBeginClosesOverdueAnswers(t *testing.T) {
	tests := []struct {
		name     string
		away     time.Duration
		wantOpen bool
	}{
		{"back within the limit", time.Minute, true},
		{"back within the grace", 2*time.Minute + timer.Grace, true},
		{"back after the grace", 2*time.Minute + timer.Grace + time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			svc, st, clock := newService(t)
			a, err := svc.Begin(ctx, "u", storage.KindSet, "rapid")
			if err != nil {
				t.Fatal(err)
			}
			started, err := svc.Answers.Start(ctx, Start{AttemptID: a.ID, Scope: scope, Mode: timer.Timed, Limit: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Answers.SaveDraft(ctx, started.Session, 1, "what I had"); err != nil {
				t.Fatal(err)
			}
			clock.Advance(tt.away)
			again, err := svc.Begin(ctx, "u", storage.KindSet, "rapid")
			if err != nil || again.ID != a.ID {
				t.Fatalf("Begin again = %+v, %v; want attempt %d", again, err, a.ID)
			}
			open, err := svc.Answers.Open(ctx, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := open[scope]; ok != tt.wantOpen {
				t.Fatalf("open after Begin: %v; want %v", ok, tt.wantOpen)
			}
			if tt.wantOpen {
				return
			}
			latest, err := st.LatestTimedAnswers(ctx, a.ID)
			if got := latest[scope]; err != nil || got.Body != "what I had" || got.Timing.HowEnded != storage.EndedExpired {
				t.Errorf("the stored answer = %+v (%v); want the draft, expired", got, err)
			}
		})
	}
}

// TestOwnership: a session or answer is read only as its own attempt's
// and box's; any other is storage.ErrNotFound, so a handler says "not
// yours" the same way for a wrong id, user or box.
func TestOwnership(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newService(t)
	mine, err := svc.Begin(ctx, "u", storage.KindSet, "rapid")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := svc.Begin(ctx, "v", storage.KindSet, "rapid")
	if err != nil {
		t.Fatal(err)
	}
	started, err := svc.Answers.Start(ctx, Start{AttemptID: mine.ID, Scope: scope, Mode: timer.Timed, Limit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := svc.Answers.Submit(ctx, Submission{AttemptID: mine.ID, Scope: scope, SessionID: started.Session.ID, Text: "an answer"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		attempt int64
		scope   string
		id      int64
		want    error
	}{
		{"mine", mine.ID, scope, 0, nil},
		{"another user's attempt", theirs.ID, scope, 0, storage.ErrNotFound},
		{"another box", mine.ID, "question:other", 0, storage.ErrNotFound},
		{"no such id", mine.ID, scope, 999, storage.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sid, aid := started.Session.ID, ans.ID
			if tt.id != 0 {
				sid, aid = tt.id, tt.id
			}
			if _, err := svc.Answers.Session(ctx, tt.attempt, tt.scope, sid); !errors.Is(err, tt.want) {
				t.Errorf("Session = %v; want %v", err, tt.want)
			}
			if _, err := svc.Answers.Answer(ctx, tt.attempt, tt.scope, aid); !errors.Is(err, tt.want) {
				t.Errorf("Answer = %v; want %v", err, tt.want)
			}
			_, err := svc.Assess(ctx, tt.attempt, tt.scope, aid, []int{0}, 2)
			if !errors.Is(err, tt.want) {
				t.Errorf("Assess = %v; want %v", err, tt.want)
			}
		})
	}
}

// TestSubmitWithoutTheSessionEndsTheOpenBox: a plain form sent while the
// box's clock runs ends that session, timed; with no session open it is
// stored untimed.
func TestSubmitWithoutTheSessionEndsTheOpenBox(t *testing.T) {
	for _, running := range []bool{true, false} {
		ctx := context.Background()
		svc, st, clock := newService(t)
		a, err := svc.Begin(ctx, "u", storage.KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		if running {
			if _, err := svc.Answers.Start(ctx, Start{AttemptID: a.ID, Scope: scope, Mode: timer.Timed, Limit: 2 * time.Minute}); err != nil {
				t.Fatal(err)
			}
		}
		clock.Advance(30 * time.Second)
		ans, err := svc.Answers.Submit(ctx, Submission{AttemptID: a.ID, Scope: scope, Text: "plain"})
		if err != nil {
			t.Fatal(err)
		}
		wantMode := ""
		if running {
			wantMode = storage.ModeTimed
		}
		if ans.Timing.Mode != wantMode || running && ans.Timing.TimeUsed != 30*time.Second {
			t.Errorf("running %v: the answer's timing = %+v; want mode %q", running, ans.Timing, wantMode)
		}
		if open, err := st.OpenTimedSessions(ctx, a.ID); err != nil || len(open) != 0 {
			t.Errorf("running %v: open sessions after the submit = %v (%v); want none", running, open, err)
		}
	}
}

// TestRevealsAndName: hints come in order, a reveal without an answer is
// recorded as chosen, and a display name that cannot be one is refused
// with the reason and not stored.
func TestRevealsAndName(t *testing.T) {
	ctx := context.Background()
	svc, st, _ := newService(t)
	a, err := svc.Begin(ctx, "u", storage.KindProblem, "async-refund")
	if err != nil {
		t.Fatal(err)
	}
	hints := []struct {
		part, hint int
		want       error
	}{
		{1, 2, storage.ErrHintOrder},
		{1, 1, nil},
		{1, 2, nil},
		{2, 1, nil},
	}
	for _, h := range hints {
		if err := svc.RevealHint(ctx, a.ID, h.part, h.hint); !errors.Is(err, h.want) {
			t.Errorf("RevealHint(%d, %d) = %v; want %v", h.part, h.hint, err, h.want)
		}
	}
	if err := svc.RevealAnswer(ctx, a.ID, storage.ScopeProblem); err != nil {
		t.Fatal(err)
	}
	reveals, err := st.AnswerReveals(ctx, a.ID)
	if err != nil || len(reveals) != 1 || reveals[0].Reason != storage.ReasonChoseToReveal {
		t.Errorf("reveals = %+v (%v); want one, chosen", reveals, err)
	}

	names := []struct {
		raw, want   string
		wantProblem bool
	}{
		{"  Ada  ", "Ada", false},
		{"\x00", "Ada", true},
		{"", "", false},
	}
	for _, n := range names {
		problem, err := svc.SetDisplayName(ctx, "u", n.raw)
		if err != nil || (problem != "") != n.wantProblem {
			t.Errorf("SetDisplayName(%q) = %q, %v; want a problem: %v", n.raw, problem, err, n.wantProblem)
		}
		u, err := st.User(ctx, "u")
		if err != nil || u.DisplayName != n.want {
			t.Errorf("after SetDisplayName(%q) the name is %q (%v); want %q", n.raw, u.DisplayName, err, n.want)
		}
	}
}

// TestRunOfTheService: no run until one is started; started, its clock
// counts from now with the limit given, and starting again restarts it.
func TestRunOfTheService(t *testing.T) {
	ctx := context.Background()
	svc, _, clock := newService(t)
	a, err := svc.Begin(ctx, "u", storage.KindSet, "rapid")
	if err != nil {
		t.Fatal(err)
	}
	items := []RunItem{{}, {}}
	if _, ok, err := svc.Run(ctx, a.ID, items); ok || err != nil {
		t.Fatalf("Run before a start = %v, %v; want none", ok, err)
	}
	steps := []struct {
		start    bool
		advance  time.Duration
		wantUsed time.Duration
	}{
		{true, time.Minute, time.Minute},
		{false, time.Minute, 2 * time.Minute},
		{true, 30 * time.Second, 30 * time.Second},
		{false, time.Hour, 4 * time.Minute},
	}
	for i, s := range steps {
		if s.start {
			if _, err := svc.StartRun(ctx, a.ID, 4*time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		clock.Advance(s.advance)
		st, ok, err := svc.Run(ctx, a.ID, items)
		if !ok || err != nil || st.Used != s.wantUsed || st.Limit != 4*time.Minute {
			t.Errorf("step %d: Run = %+v, %v, %v; want %v used of 4m", i, st, ok, err, s.wantUsed)
		}
	}
}
