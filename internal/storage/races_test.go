package storage

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/pgtest"
)

// The races: each write that decides from what it read, run by many
// writers at once through two stores on one database (two server
// instances), on each database. On Postgres the writers really run side by
// side under READ COMMITTED; the tests failed there before the writes
// locked the row they read or made their test part of the UPDATE.

// forEachStorePair runs f on two stores opened on one fresh database of
// each kind.
func forEachStorePair(t *testing.T, f func(t *testing.T, a, b *Store)) {
	t.Helper()
	open := func(t *testing.T, db string) *Store {
		s, err := Open(context.Background(), db)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "shared.db")
		f(t, open(t, path), open(t, path))
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.URL(t)
		f(t, open(t, url), open(t, url))
	})
}

// race runs n calls of do at once, call i on store a or b in turn, and
// returns their errors by i.
func race(n int, a, b *Store, do func(i int, s *Store) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = do(i, s)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

func TestRaceDraftNewerWins(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		at, err := a.StartAttempt(ctx, "u", KindSet, "s")
		if err != nil {
			t.Fatal(err)
		}
		for round := range 4 {
			ts, _, err := a.StartTimedSession(ctx, at.ID, ScopeQuestion(fmt.Sprint(round)), ModeTimed, time.Hour, false, timedT0)
			if err != nil {
				t.Fatal(err)
			}
			const saves = 24
			seqs := rand.Perm(saves)
			errs := race(saves, a, b, func(i int, s *Store) error {
				seq := int64(seqs[i] + 1)
				_, _, err := s.SaveDraft(ctx, ts.ID, seq, fmt.Sprintf("text %d", seq), false, timedT0.Add(time.Second))
				return err
			})
			for i, err := range errs {
				if err != nil {
					t.Fatalf("save of seq %d: %v", seqs[i]+1, err)
				}
			}
			got, err := b.TimedSession(ctx, ts.ID)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("text %d", saves); got.DraftSeq != saves || got.Draft != want {
				t.Fatalf("round %d: after %d saves at once the draft is %q (seq %d); want %q (seq %d): an older save overwrote a newer one",
					round, saves, got.Draft, got.DraftSeq, want, saves)
			}
		}
	})
}

func TestRaceHintsRevealedInOrder(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		at, err := a.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		const hints = 6
		// Every writer reveals 1..hints in order, so each reveal follows one
		// that returned: none may be refused, and none may fail on the
		// primary key because two counted the same hints shown.
		errs := race(8, a, b, func(_ int, s *Store) error {
			for i := 1; i <= hints; i++ {
				if err := s.RevealHint(ctx, at.ID, 1, i); err != nil {
					return fmt.Errorf("hint %d: %w", i, err)
				}
			}
			return nil
		})
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got, err := a.HintReveals(ctx, at.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != hints {
			t.Fatalf("%d hints revealed; want %d", len(got), hints)
		}
		for i, h := range got {
			if h.Index != i+1 {
				t.Fatalf("reveal %d is hint %d", i, h.Index)
			}
		}
	})
}

func TestRaceRunFinishesOnce(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		at, err := a.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		for round := range 4 {
			run, err := a.StartGradeRun(ctx, at.ID, "p", int64(round), "package p")
			if err != nil {
				t.Fatal(err)
			}
			const finishes = 8
			errs := race(finishes, a, b, func(i int, s *Store) error {
				return s.FinishGradeRun(ctx, run.ID, GradeRunEnd{Status: GradeSystemError, Message: fmt.Sprintf("finish %d", i)})
			})
			winner := -1
			for i, err := range errs {
				switch {
				case err == nil && winner >= 0:
					t.Fatalf("round %d: finishes %d and %d both succeeded", round, winner, i)
				case err == nil:
					winner = i
				case !errors.Is(err, ErrRunFinished):
					t.Fatalf("round %d: finish %d: %v; want nil or ErrRunFinished", round, i, err)
				}
			}
			got, err := b.GradeRun(ctx, run.ID)
			if err != nil {
				t.Fatal(err)
			}
			if winner < 0 || got.Message != fmt.Sprintf("finish %d", winner) {
				t.Fatalf("round %d: winner %d, stored message %q", round, winner, got.Message)
			}
		}
	})
}

func TestRaceSubmitClosesOnce(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		at, err := a.StartAttempt(ctx, "u", KindSet, "s")
		if err != nil {
			t.Fatal(err)
		}
		ts, _, err := a.StartTimedSession(ctx, at.ID, ScopeQuestion("q"), ModeTimed, time.Hour, false, timedT0)
		if err != nil {
			t.Fatal(err)
		}
		timing := AnswerTiming{Mode: ModeTimed, Limit: time.Hour, StartedAt: timedT0, HowEnded: EndedSubmitted}
		const submits = 8
		errs := race(submits, a, b, func(i int, s *Store) error {
			_, err := s.SubmitTimedAnswer(ctx, at.ID, ScopeQuestion("q"), fmt.Sprintf("answer %d", i), ts.ID, timing, timedT0.Add(time.Minute))
			return err
		})
		ok := 0
		for i, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, ErrSessionClosed):
				t.Fatalf("submit %d: %v; want nil or ErrSessionClosed", i, err)
			}
		}
		history, err := a.TimedAnswerHistory(ctx, at.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ok != 1 || len(history) != 1 {
			t.Fatalf("%d submits succeeded, %d answers stored; want one of each", ok, len(history))
		}
	})
}

func TestRaceQuotaAcrossAttempts(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		const limit, body = 100 << 10, 30 << 10
		a.maxUserBytes, b.maxUserBytes = limit, limit
		var attempts []Attempt
		for _, slug := range []string{"s1", "s2"} {
			at, err := a.StartAttempt(ctx, "u", KindSet, slug)
			if err != nil {
				t.Fatal(err)
			}
			attempts = append(attempts, at)
		}
		// Three answers of 30 KiB fit under 100 KiB, a fourth does not,
		// whichever of the user's attempts each goes to.
		errs := race(8, a, b, func(i int, s *Store) error {
			_, err := submitPlain(ctx, s, attempts[i%2].ID, ScopeQuestion(fmt.Sprint(i)), strings.Repeat("x", body))
			return err
		})
		ok := 0
		for i, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, ErrQuota):
				t.Fatalf("answer %d: %v; want nil or a quota error", i, err)
			}
		}
		used, err := b.Usage(ctx, "u")
		if err != nil {
			t.Fatal(err)
		}
		if ok != limit/body || used > limit {
			t.Fatalf("%d answers stored, %d bytes in all; want %d, within the limit of %d", ok, used, limit/body, limit)
		}
	})
}

func TestRaceScreenRunLosesNoStep(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		if _, err := a.StartScreenRun(ctx, "u", "screen", 0, timedT0); err != nil {
			t.Fatal(err)
		}
		const moves = 16
		errs := race(moves, a, b, func(_ int, s *Store) error {
			_, err := s.UpdateScreenRun(ctx, "u", "screen", func(r ScreenRun) (ScreenRun, error) {
				r.StepUsed = append(r.StepUsed, time.Millisecond)
				r.Step++
				return r, nil
			})
			return err
		})
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got, err := b.ScreenRun(ctx, "u", "screen")
		if err != nil {
			t.Fatal(err)
		}
		if got.Step != moves+1 || len(got.StepUsed) != moves {
			t.Fatalf("after %d moves at once: step %d with %d step times; want step %d: a move was lost", moves, got.Step, len(got.StepUsed), moves+1)
		}
	})
}

func TestRaceTimedStartsMakeOneSession(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		at, err := a.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, 8)
		errs := race(len(ids), a, b, func(i int, s *Store) error {
			ts, _, err := s.StartTimedSession(ctx, at.ID, ScopeProblem, ModeTimed, time.Minute, false, timedT0)
			ids[i] = ts.ID
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("start %d: %v", i, err)
			}
			if ids[i] != ids[0] {
				t.Fatalf("starts at once made sessions %v; want one", ids)
			}
		}
	})
}

func TestRaceRoomAppendsFromTwoInstances(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		t0 := time.Now()
		newTestRoom(t, a, "r1", t0, time.Hour)
		const writers, each = 8, 10
		errs := race(writers, a, b, func(w int, s *Store) error {
			for i := range each {
				vis := VisibleToEveryone
				if (w+i)%3 == 0 {
					vis = VisibleToInterviewer
				}
				if _, err := s.AppendRoomEvents(ctx, "r1", t0, ev(ActorCandidate, "answer.text", vis, `{}`)); err != nil {
					return err
				}
			}
			return nil
		})
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		evs, err := b.RoomEvents(ctx, "r1", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var public int64
		for i, e := range evs {
			if e.Seq != int64(i+1) {
				t.Fatalf("event %d has seq %d: a gap or a repeat", i, e.Seq)
			}
			if e.Visibility == VisibleToEveryone {
				public++
				if e.PublicSeq != public {
					t.Fatalf("event %d has public seq %d; want %d", i, e.PublicSeq, public)
				}
			}
		}
		if len(evs) != writers*each+1 {
			t.Fatalf("%d events; want %d", len(evs), writers*each+1)
		}
	})
}

// TestRaceMixedWritesOfOneUser: a user's different writes at once (an
// autosave of the answer box, a submit, a code save, a grade started and
// finished) take their
// locks in one order, user before attempt before row, so none waits on
// another that waits on it: on Postgres such a cycle is a deadlock, and
// one of the writes would fail as busy.
func TestRaceMixedWritesOfOneUser(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		at, err := a.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		ts, _, err := a.StartTimedSession(ctx, at.ID, ScopeProblem, ModeUntimed, time.Hour, false, timedT0)
		if err != nil {
			t.Fatal(err)
		}
		var seq atomic.Int64
		writes := []func(s *Store) error{
			func(s *Store) error {
				_, _, err := s.SaveDraft(ctx, ts.ID, seq.Add(1), "draft text", false, timedT0)
				return err
			},
			func(s *Store) error {
				_, err := submitPlain(ctx, s, at.ID, ScopeQuestion("q"), "an answer")
				return err
			},
			func(s *Store) error {
				_, err := s.SaveCodeDraft(ctx, at.ID, "package p")
				return err
			},
			func(s *Store) error {
				r, err := s.StartGradeRun(ctx, at.ID, "p", 1, "package p")
				if err != nil {
					return err
				}
				return s.FinishGradeRun(ctx, r.ID, GradeRunEnd{Status: GradeDone, ReportJSON: []byte(`{}`), Summary: GradeSummary{Verdict: "pass"}})
			},
		}
		for round := range 3 {
			errs := race(16, a, b, func(i int, s *Store) error {
				for range 3 {
					if err := writes[i%len(writes)](s); err != nil {
						return err
					}
				}
				return nil
			})
			for i, err := range errs {
				if err != nil {
					t.Fatalf("round %d, writer %d: %v", round, i, err)
				}
			}
		}
	})
}

// TestRaceRestartsLeaveOneClock: a set's run and a screen's run started
// again from two instances at once each end with one clock, the one its
// row points to: no restart leaves a clock behind.
func TestRaceRestartsLeaveOneClock(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		at, err := a.StartAttempt(ctx, "u", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		errs := race(16, a, b, func(i int, s *Store) error {
			if i%2 == 0 {
				_, err := s.StartRunClock(ctx, at.ID, time.Minute, timedT0)
				return err
			}
			_, err := s.StartScreenRun(ctx, "u", "screen", time.Hour, timedT0)
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("start %d: %v", i, err)
			}
		}
		rc, err := b.RunClock(ctx, at.ID)
		if err != nil {
			t.Fatal(err)
		}
		sr, err := b.ScreenRun(ctx, "u", "screen")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := b.db.QueryContext(ctx, `SELECT id FROM practice_clocks ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		want := []int64{min(rc.ClockID, sr.ClockID), max(rc.ClockID, sr.ClockID)}
		if !slices.Equal(ids, want) {
			t.Fatalf("clocks after 8 restarts of each at once: %v; want only the run's and the screen's, %v", ids, want)
		}
	})
}
