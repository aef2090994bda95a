package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// leaseClock is a settable clock for a store; the lease tests move it
// past a lease instead of sleeping through one.
type leaseClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *leaseClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *leaseClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func withLeaseClock(s *Store) *leaseClock {
	c := &leaseClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	s.now = c.now
	return c
}

const testLease = 15 * time.Second

func claimOf(owner, user, addr string) GradeClaim {
	return GradeClaim{Owner: owner, Lease: testLease, UserID: user, ClientKey: addr, PerAddress: 3, Expired: "EXPIRED"}
}

// startOwned starts a run for user's attempt at problem p under claim.
func startOwned(t *testing.T, s *Store, claim GradeClaim) (GradeRun, error) {
	t.Helper()
	ctx := context.Background()
	a, err := s.StartAttempt(ctx, claim.UserID, KindProblem, "p")
	if err != nil {
		t.Fatal(err)
	}
	return s.StartOwnedGradeRun(ctx, a.ID, "p", 1, "SOURCE of "+claim.UserID, claim)
}

func mustStartOwned(t *testing.T, s *Store, claim GradeClaim) GradeRun {
	t.Helper()
	r, err := startOwned(t, s, claim)
	if err != nil {
		t.Fatalf("start a run for %s on %s: %v", claim.UserID, claim.Owner, err)
	}
	return r
}

func statusOf(t *testing.T, s *Store, id int64) GradeRun {
	t.Helper()
	r, err := s.GradeRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Two instances over one store: each renews and sweeps, and neither
// finishes the other's run while that one renews it.
func TestGradeLeasesOfTwoLiveInstances(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		clock := withLeaseClock(s)
		ra := mustStartOwned(t, s, claimOf("instance-a", "ua", "addr"))
		rb := mustStartOwned(t, s, claimOf("instance-b", "ub", "addr"))
		// Three leases go by, each instance renewing its own every third
		// of one and sweeping after.
		for range 9 {
			clock.add(testLease / 3)
			for _, owner := range []struct {
				name string
				run  int64
			}{{"instance-a", ra.ID}, {"instance-b", rb.ID}} {
				ids, err := s.RenewGradeLeases(ctx, owner.name, testLease)
				if err != nil {
					t.Fatal(err)
				}
				if len(ids) != 1 || ids[0] != owner.run {
					t.Fatalf("%s renewed %v; want [%d]", owner.name, ids, owner.run)
				}
				if ids, err := s.ExpireGradeLeases(ctx, "EXPIRED"); err != nil || len(ids) != 0 {
					t.Fatalf("%s's sweep expired %v (%v); want none: both owners are alive", owner.name, ids, err)
				}
			}
		}
		for _, id := range []int64{ra.ID, rb.ID} {
			if r := statusOf(t, s, id); r.Status != GradeRunning {
				t.Errorf("run %d is %s; want running", id, r.Status)
			}
			if ok, err := s.ExpireGradeLease(ctx, id, "EXPIRED"); err != nil || ok {
				t.Errorf("ExpireGradeLease(%d) = %v, %v on a live owner's run", id, ok, err)
			}
		}
	})
}

// A dead owner stops renewing: after its lease another instance's sweep
// finishes its run, once, and not a moment before.
func TestGradeLeaseOfADeadOwner(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		clock := withLeaseClock(s)
		dead := mustStartOwned(t, s, claimOf("instance-a", "ua", "addr"))
		alive := mustStartOwned(t, s, claimOf("instance-b", "ub", "addr"))
		clock.add(testLease - time.Millisecond)
		if _, err := s.RenewGradeLeases(ctx, "instance-b", testLease); err != nil {
			t.Fatal(err)
		}
		if ids, _ := s.ExpireGradeLeases(ctx, "EXPIRED"); len(ids) != 0 {
			t.Fatalf("a sweep inside the lease expired %v", ids)
		}
		clock.add(2 * time.Millisecond)
		if ids, err := s.ExpireGradeLeases(ctx, "EXPIRED"); err != nil || len(ids) != 1 || ids[0] != dead.ID {
			t.Fatalf("a sweep past the dead owner's lease expired %v (%v); want [%d]", ids, err, dead.ID)
		}
		r := statusOf(t, s, dead.ID)
		if r.Status != GradeSystemError || r.Message != "EXPIRED" || r.FinishedAt.IsZero() {
			t.Errorf("the dead owner's run is %+v; want a system error with the sweep's message", r)
		}
		if r := statusOf(t, s, alive.ID); r.Status != GradeRunning {
			t.Errorf("the live owner's run is %s; want running", r.Status)
		}
		// A second instance sweeping finds nothing more; the owner coming
		// back learns its run was taken and cannot finish it again.
		if ids, _ := s.ExpireGradeLeases(ctx, "AGAIN"); len(ids) != 0 {
			t.Errorf("a second sweep expired %v", ids)
		}
		if ids, _ := s.RenewGradeLeases(ctx, "instance-a", testLease); len(ids) != 0 {
			t.Errorf("the late owner renewed %v; want nothing: its run was taken over", ids)
		}
		if err := s.FinishGradeRun(ctx, dead.ID, GradeRunEnd{Status: GradeDone, Summary: GradeSummary{Verdict: "pass"}}); !errors.Is(err, ErrRunFinished) {
			t.Errorf("the late owner's finish: err = %v; want ErrRunFinished", err)
		}
	})
}

func TestGradeRunsFromBeforeLeasesExpire(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		old, err := s.StartGradeRun(ctx, a.ID, "p", 1, "x")
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := s.ExpireGradeLease(ctx, old.ID, "EXPIRED"); err != nil || !ok {
			t.Fatalf("ExpireGradeLease of an unowned run = %v, %v; want true", ok, err)
		}
		if r := statusOf(t, s, old.ID); r.Status != GradeSystemError {
			t.Errorf("the unowned run is %s; want system-error", r.Status)
		}
	})
}

func TestGradeClaimLimits(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		clock := withLeaseClock(s)
		first := mustStartOwned(t, s, claimOf("instance-a", "u1", "addr"))

		// The user's second run, from another instance, is refused with
		// the first; nothing is written.
		_, err := startOwned(t, s, claimOf("instance-b", "u1", "addr"))
		var already *AlreadyGradingError
		if !errors.As(err, &already) || already.Run.ID != first.ID || already.Run.Source == "" {
			t.Fatalf("the user's second run: err = %v; want an AlreadyGradingError with run %d read whole", err, first.ID)
		}

		// The address takes three at once, whichever instances start them.
		mustStartOwned(t, s, claimOf("instance-b", "u2", "addr"))
		third := mustStartOwned(t, s, claimOf("instance-a", "u3", "addr"))
		if _, err := startOwned(t, s, claimOf("instance-b", "u4", "addr")); !errors.Is(err, ErrAddressBusy) {
			t.Fatalf("a fourth run of the address: err = %v; want ErrAddressBusy", err)
		}
		mustStartOwned(t, s, claimOf("instance-b", "u4", "other-addr"))
		if err := s.FinishGradeRun(ctx, third.ID, GradeRunEnd{Status: GradeDone, Summary: GradeSummary{Verdict: "pass"}}); err != nil {
			t.Fatal(err)
		}
		fourth := mustStartOwned(t, s, claimOf("instance-b", "u5", "addr"))

		// instance-a dies: its runs stop counting once their lease is past,
		// and its user may start again at once, the dead run finished on
		// the way with the claim's message.
		clock.add(testLease / 2)
		if _, err := s.RenewGradeLeases(ctx, "instance-b", testLease); err != nil {
			t.Fatal(err)
		}
		clock.add(testLease/2 + time.Millisecond)
		again := mustStartOwned(t, s, claimOf("instance-b", "u1", "addr"))
		if r := statusOf(t, s, first.ID); r.Status != GradeSystemError || r.Message != "EXPIRED" {
			t.Errorf("the user's dead run is %s %q; want system-error \"EXPIRED\"", r.Status, r.Message)
		}
		if again.ID == first.ID || statusOf(t, s, fourth.ID).Status != GradeRunning {
			t.Error("the new run is not a run of its own, or the live run stopped")
		}
	})
}

func TestGradeClaimNeedsAnOwnerAUserAndALease(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		for _, c := range []GradeClaim{
			{UserID: "u", Lease: time.Second},
			{Owner: "o", Lease: time.Second},
			{Owner: "o", UserID: "u"},
		} {
			if _, err := s.StartOwnedGradeRun(context.Background(), 1, "p", 1, "x", c); err == nil {
				t.Errorf("StartOwnedGradeRun with %+v succeeded", c)
			}
		}
	})
}

// Instances starting runs at the same moment: the database, not a
// process's memory, keeps one run per user and three per address.
func TestGradeClaimsRacing(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		const n = 8
		race := func(claims []GradeClaim) (started int, errs []error) {
			attempts := make([]int64, n)
			for i, c := range claims {
				a, err := s.StartAttempt(ctx, c.UserID, KindProblem, fmt.Sprintf("p%d", i))
				if err != nil {
					t.Fatal(err)
				}
				attempts[i] = a.ID
			}
			var (
				wg sync.WaitGroup
				mu sync.Mutex
			)
			start := make(chan struct{})
			for i, c := range claims {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, err := s.StartOwnedGradeRun(ctx, attempts[i], "p", 1, "x", c)
					mu.Lock()
					defer mu.Unlock()
					if err == nil {
						started++
					} else {
						errs = append(errs, err)
					}
				}()
			}
			close(start)
			wg.Wait()
			return started, errs
		}

		var sameUser []GradeClaim
		for i := range n {
			sameUser = append(sameUser, GradeClaim{Owner: fmt.Sprintf("instance-%d", i%2), Lease: time.Minute,
				UserID: "racer", ClientKey: fmt.Sprintf("addr-%d", i)})
		}
		started, errs := race(sameUser)
		if started != 1 {
			t.Errorf("%d runs started for one user at once; want 1", started)
		}
		for _, err := range errs {
			var already *AlreadyGradingError
			if !errors.As(err, &already) && !errors.Is(err, ErrBusy) {
				t.Errorf("a refused run of the same user: %v; want AlreadyGradingError (or ErrBusy)", err)
			}
		}

		var sameAddr []GradeClaim
		for i := range n {
			sameAddr = append(sameAddr, GradeClaim{Owner: fmt.Sprintf("instance-%d", i%2), Lease: time.Minute,
				UserID: fmt.Sprintf("classmate-%d", i), ClientKey: "classroom", PerAddress: 3})
		}
		started, errs = race(sameAddr)
		if started != 3 {
			t.Errorf("%d runs started for one address at once; want its 3", started)
		}
		for _, err := range errs {
			if !errors.Is(err, ErrAddressBusy) && !errors.Is(err, ErrBusy) {
				t.Errorf("a refused run of the address: %v; want ErrAddressBusy (or ErrBusy)", err)
			}
		}
	})
}
