package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/storage"
)

// TestRunIsHeldToTheAddressLimits: a Run takes the address's place before
// anything is written and gives it back once its end is recorded, is
// charged what it stores (the whole shared code and the report it may
// keep), and a refusal of either writes nothing and holds no place.
func TestRunIsHeldToTheAddressLimits(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	release := f.g.releaseChan()
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")

	held, released := 0, 0
	var charged []int64
	limits := RunLimits{ClientKey: "k",
		Hold: func() (func(), error) {
			held++
			return func() { released++ }, nil
		},
		Charge: func(n int64) error { charged = append(charged, n); return nil },
	}
	started, err := f.svc.Run(ctx, ia, limits)
	if err != nil {
		t.Fatal(err)
	}
	var rs RunStarted
	if err := json.Unmarshal(started.Payload, &rs); err != nil {
		t.Fatal(err)
	}
	if rs.Source == "" {
		t.Fatal("the run kept no code")
	}
	if want := int64(len(rs.Source)) + MaxReportBytes; len(charged) != 1 || charged[0] != want {
		t.Errorf("charged %v; want one charge of %d (the code and the largest report kept)", charged, want)
	}
	if held != 1 || released != 0 {
		t.Errorf("while the run goes: held %d, released %d; want 1, 0", held, released)
	}
	close(release)
	if err := f.svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if released != 1 {
		t.Errorf("after the run's end: released %d; want 1", released)
	}
}

func TestRunRefusedByTheAddressLimits(t *testing.T) {
	errSpent := errors.New("SPENT")
	errFull := errors.New("FULL")
	for _, tc := range []struct {
		name         string
		hold, charge error
		want         error
	}{
		{"address full", errFull, nil, errFull},
		{"budget spent", nil, errSpent, errSpent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t)
			_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
			before, err := f.svc.InterviewerView(ctx, ia)
			if err != nil {
				t.Fatal(err)
			}
			places := 0
			limits := RunLimits{ClientKey: "k",
				Hold: func() (func(), error) {
					if tc.hold != nil {
						return nil, tc.hold
					}
					places++
					return func() { places-- }, nil
				},
				Charge: func(int64) error { return tc.charge },
			}
			if _, err := f.svc.Run(ctx, ia, limits); !errors.Is(err, tc.want) {
				t.Fatalf("Run: %v; want %v", err, tc.want)
			}
			if places != 0 {
				t.Errorf("%d places still held after the refusal", places)
			}
			after, err := f.svc.InterviewerView(ctx, ia)
			if err != nil {
				t.Fatal(err)
			}
			if len(after.Runs) != len(before.Runs) {
				t.Errorf("runs %d after the refusal; want %d (nothing written)", len(after.Runs), len(before.Runs))
			}
		})
	}
}

// TestADeadServersRunIsTakenOverWithinALease: a run whose server stopped
// (its lease, held by an instance that no longer renews it, has passed)
// blocks the room's next Run no longer than the lease, as a solo Grade's
// does, and is shown lost by then; while its lease holds, the busy answer
// gives the grader's estimate, not the whole grading timeout.
func TestADeadServersRunIsTakenOverWithinALease(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	ev, err := newEvent(storage.ActorInterviewer, KindRunStarted, RunStarted{Item: 0})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.store.AppendRoomEvents(ctx, ia.Room.ID, f.clock.Now(), ev)
	if err != nil {
		t.Fatal(err)
	}
	dead := out[0].Seq
	if err := f.store.LeaseRoomRun(ctx, ia.Room.ID, dead, "a-dead-instance", f.clock.Now().Add(DefaultRunLease)); err != nil {
		t.Fatal(err)
	}

	f.clock.Add(DefaultRunLease - time.Second)
	var busy *BusyError
	if _, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"}); !errors.As(err, &busy) {
		t.Fatalf("a run while the other's lease holds: %v; want a BusyError", err)
	}
	if busy.RetryAfter > 5*time.Second {
		t.Errorf("busy for %s; want the grader's estimate of a run, not the grading timeout", busy.RetryAfter)
	}

	f.clock.Add(time.Second + time.Millisecond) // the lease has passed
	iv, err := f.svc.InterviewerView(ctx, ia)
	if err != nil || len(iv.Runs) != 1 || !iv.Runs[0].Lost {
		t.Fatalf("runs past the lease = %+v, %v; want the one run, lost", iv.Runs, err)
	}
	if _, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"}); err != nil {
		t.Fatalf("a run once the dead server's lease passed: %v", err)
	}
	if err := f.svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	iv, err = f.svc.InterviewerView(ctx, ia)
	if err != nil || len(iv.Runs) != 2 {
		t.Fatalf("runs = %+v, %v; want the lost one and the new one", iv.Runs, err)
	}
	if r := iv.Runs[0]; r.Run != dead || !r.Finished || r.Status != "system-error" || r.Summary != messageLost {
		t.Errorf("the dead server's run = %+v; want finished as lost", r)
	}
	if r := iv.Runs[1]; !r.Finished || r.Status != "done" {
		t.Errorf("the new run = %+v; want done", r)
	}
	if l, err := f.store.RoomRunLeaseOf(ctx, ia.Room.ID); err != nil || l.Run != 0 {
		t.Errorf("lease after the runs = %+v, %v; want none", l, err)
	}
}

// TestAHeartbeatRecordsALostRun: with no Run pressed, any instance's
// heartbeat records a dead server's run as lost once its lease passes,
// and leaves a run whose lease holds alone.
func TestAHeartbeatRecordsALostRun(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, lost, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	_, alive, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	for i, a := range []Access{lost, alive} {
		ev, err := newEvent(storage.ActorInterviewer, KindRunStarted, RunStarted{Item: 0})
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.store.AppendRoomEvents(ctx, a.Room.ID, f.clock.Now(), ev)
		if err != nil {
			t.Fatal(err)
		}
		until := f.clock.Now().Add(DefaultRunLease)
		if i == 1 {
			until = until.Add(time.Minute)
		}
		if err := f.store.LeaseRoomRun(ctx, a.Room.ID, out[0].Seq, "another-instance", until); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Add(DefaultRunLease + time.Millisecond)
	f.svc.leases.Beat()
	for _, tc := range []struct {
		a        Access
		finished bool
	}{{lost, true}, {alive, false}} {
		f.clock.Add(-DefaultRunLease) // the view's own rule aside: what the log holds
		iv, err := f.svc.InterviewerView(ctx, tc.a)
		f.clock.Add(DefaultRunLease)
		if err != nil || len(iv.Runs) != 1 || iv.Runs[0].Finished != tc.finished {
			t.Errorf("room %s: runs = %+v, %v; want finished %v", tc.a.Room.ID, iv.Runs, err, tc.finished)
		}
	}
}

// TestARunTakenOverIsDroppedByItsInstance: an instance out of touch past
// its run's lease finds at its next heartbeat that another instance took
// the run over (and recorded it lost): its grading is stopped, and the
// room's log keeps the one end, not a second run.finished.
func TestARunTakenOverIsDroppedByItsInstance(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.g.release, f.g.jobs = make(chan struct{}), make(chan grading.Request, 1)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	started, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	<-f.g.jobs

	// Past the lease with no renewal, another instance's heartbeat
	// records the run lost.
	other, err := New(Config{Store: f.store, Catalog: f.cat, Grader: f.g, Now: f.clock.Now, TTL: time.Hour, Instance: "another-instance"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	f.clock.Add(DefaultRunLease + time.Millisecond)
	if err := other.ReapLostRuns(ctx); err != nil {
		t.Fatal(err)
	}
	// This instance's heartbeat finds its run gone and stops its grading,
	// which the grader sees as its context ending.
	f.svc.leases.Beat()
	if err := f.svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !f.g.stopped.Load() {
		t.Error("the taken-over run's grading was not stopped")
	}
	evs, err := f.store.RoomEvents(ctx, ia.Room.ID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ends []RunFinished
	for _, ev := range evs {
		var p RunFinished
		if ev.Kind == KindRunFinished && decode(ev, &p) == nil && p.Run == started.Seq {
			ends = append(ends, p)
		}
	}
	if len(ends) != 1 || ends[0].Summary != messageLost {
		t.Errorf("the run's ends = %+v; want one, recorded lost by the other instance", ends)
	}
}

// TestShareIsChargedItsReport: sharing stores the run's report again, and
// is charged for it; a refused charge shares nothing.
func TestShareIsChargedItsReport(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	started, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	iv, err := f.svc.InterviewerView(ctx, ia)
	if err != nil || len(iv.Runs) != 1 || len(iv.Runs[0].Report) == 0 {
		t.Fatalf("runs = %+v, %v; want one with a report", iv.Runs, err)
	}
	want := int64(len(iv.Runs[0].Report) + len(iv.Runs[0].Summary))
	errSpent := errors.New("SPENT")
	var charged []int64
	refuse := func(n int64) error { charged = append(charged, n); return errSpent }
	if _, err := f.svc.ShareCharged(ctx, ia, started.Seq, refuse); !errors.Is(err, errSpent) {
		t.Fatalf("a refused share: %v", err)
	}
	if iv, _ := f.svc.InterviewerView(ctx, ia); iv.Runs[0].Shared {
		t.Error("a refused share was shared")
	}
	accept := func(n int64) error { charged = append(charged, n); return nil }
	if _, err := f.svc.ShareCharged(ctx, ia, started.Seq, accept); err != nil {
		t.Fatal(err)
	}
	if len(charged) != 2 || charged[0] != want || charged[1] != want {
		t.Errorf("charged %v; want %d twice (the report and summary)", charged, want)
	}
}

// TestRunCountsTheAddressOnEveryInstance: the address's place is taken in
// the store, where another instance's run for it counts: past PerAddress
// the Run is refused with grading.ErrAddressBusy and writes nothing; once
// that run's lease ends the Run goes.
func TestRunCountsTheAddressOnEveryInstance(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	_, elsewhere, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	// Another instance's run for the same address, in another room.
	if ok, err := f.store.ReserveRoomRun(ctx, elsewhere.Room.ID, "another-instance", f.clock.Now().Add(DefaultRunLease), "k", 1); err != nil || !ok {
		t.Fatalf("the other instance's run: %v, %v", ok, err)
	}
	before, err := f.store.RoomEvents(ctx, ia.Room.ID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k", PerAddress: 1}); !errors.Is(err, grading.ErrAddressBusy) {
		t.Fatalf("a Run past the address's one place: %v; want grading.ErrAddressBusy", err)
	}
	after, err := f.store.RoomEvents(ctx, ia.Room.ID, 0, 100)
	if err != nil || len(after) != len(before) {
		t.Errorf("the refused Run wrote %d events (%v)", len(after)-len(before), err)
	}
	if l, err := f.store.RoomRunLeaseOf(ctx, ia.Room.ID); err != nil || l.Owner != "" {
		t.Errorf("the refused Run left a lease: %+v, %v", l, err)
	}
	if err := f.store.EndRoomRunLease(ctx, elsewhere.Room.ID, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k", PerAddress: 1}); err != nil {
		t.Errorf("a Run once the other run's lease ended: %v", err)
	}
}

// TestAReservationLeftByADeadServerPasses: a server that reserved a room's
// run and stopped before starting it holds the room for one lease, not
// until some heartbeat happens by.
func TestAReservationLeftByADeadServerPasses(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	if ok, err := f.store.ReserveRoomRun(ctx, ia.Room.ID, "a-dead-instance", f.clock.Now().Add(DefaultRunLease), "k", 0); err != nil || !ok {
		t.Fatalf("the dead server's reservation: %v, %v", ok, err)
	}
	var busy *BusyError
	if _, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"}); !errors.As(err, &busy) {
		t.Fatalf("a Run while the reservation's lease holds: %v; want a BusyError", err)
	}
	f.clock.Add(DefaultRunLease + time.Millisecond)
	if _, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"}); err != nil {
		t.Errorf("a Run once the reservation's lease passed: %v", err)
	}
}
