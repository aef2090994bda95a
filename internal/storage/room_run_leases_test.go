package storage

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A room run's lease, on both databases: leased, renewed by its owner
// only, listed and taken once when it passed (by one caller of two), and
// given up for its own run only.
func TestRoomRunLeases(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		newTestRoom(t, s, "room-a", t0, time.Hour)
		newTestRoom(t, s, "room-b", t0, time.Hour)
		if l, err := s.RoomRunLeaseOf(ctx, "room-a"); err != nil || l.Run != 0 {
			t.Fatalf("a new room's lease = %+v, %v; want none", l, err)
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.LeaseRoomRun(ctx, "room-a", 7, "A", t0.Add(15*time.Second)))
		must(s.LeaseRoomRun(ctx, "room-b", 9, "B", t0.Add(15*time.Second)))
		if renewed, err := s.RenewRoomRunLeases(ctx, "A", t0.Add(30*time.Second)); err != nil || len(renewed) != 1 || renewed[0].RoomID != "room-a" || renewed[0].Run != 7 {
			t.Fatalf("A renewed %+v, %v; want room-a's run 7 only", renewed, err)
		}

		at := t0.Add(20 * time.Second) // B's lease has passed, A's holds
		expired, err := s.ExpiredRoomRunLeases(ctx, at, 10)
		if err != nil || len(expired) != 1 || expired[0].RoomID != "room-b" || expired[0].Run != 9 || expired[0].Owner != "B" {
			t.Fatalf("expired = %+v, %v; want room-b's run 9", expired, err)
		}
		if took, err := s.TakeExpiredRoomRunLease(ctx, "room-a", 7, at); err != nil || took {
			t.Errorf("took room-a's live lease: %v, %v", took, err)
		}
		if took, err := s.TakeExpiredRoomRunLease(ctx, "room-b", 9, at); err != nil || !took {
			t.Errorf("first take of room-b's passed lease: %v, %v; want taken", took, err)
		}
		if took, err := s.TakeExpiredRoomRunLease(ctx, "room-b", 9, at); err != nil || took {
			t.Errorf("second take of room-b's lease: %v, %v; want not taken", took, err)
		}
		// B was out of touch: its run is no longer its to keep or renew.
		if kept, err := s.KeepRoomRunLease(ctx, "room-b", 9, "B", at.Add(15*time.Second)); err != nil || kept {
			t.Errorf("B kept room-b's lease after it was taken: %v, %v", kept, err)
		}
		if renewed, err := s.RenewRoomRunLeases(ctx, "B", at.Add(15*time.Second)); err != nil || len(renewed) != 0 {
			t.Errorf("B renewed %+v, %v after its run was taken; want none", renewed, err)
		}
		if kept, err := s.KeepRoomRunLease(ctx, "room-a", 7, "B", at.Add(15*time.Second)); err != nil || kept {
			t.Errorf("B kept A's lease: %v, %v", kept, err)
		}
		if kept, err := s.KeepRoomRunLease(ctx, "room-a", 7, "A", t0.Add(30*time.Second)); err != nil || !kept {
			t.Errorf("A could not keep its own lease: %v, %v", kept, err)
		}

		must(s.EndRoomRunLease(ctx, "room-a", 6)) // an earlier run: not this lease
		if l, err := s.RoomRunLeaseOf(ctx, "room-a"); err != nil || l.Run != 7 || l.Owner != "A" || !l.Until.Equal(t0.Add(30*time.Second)) {
			t.Fatalf("room-a's lease = %+v, %v; want run 7 of A until +30 s", l, err)
		}
		must(s.EndRoomRunLease(ctx, "room-a", 7))
		if l, err := s.RoomRunLeaseOf(ctx, "room-a"); err != nil || l.Run != 0 {
			t.Errorf("room-a's lease after its end = %+v, %v; want none", l, err)
		}
	})
}

// TestRoomRunsCountWithTheAddress: a room's run, reserved for a client
// address, counts among the address's runs with its grade runs on every
// instance, both ways; a room has one run leased at a time; a reservation
// given up, or a run's lease ended, frees the address's place.
func TestRoomRunsCountWithTheAddress(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		now := s.now()
		newTestRoom(t, s, "room-a", now, time.Hour)
		newTestRoom(t, s, "room-b", now, time.Hour)
		until := now.Add(testLease)
		claim := claimOf("A", "u1", "10.0.0.1")
		claim.PerAddress = 2
		mustStartOwned(t, s, claim)

		if ok, err := s.ReserveRoomRun(ctx, "room-a", "B", until, "10.0.0.1", 2); err != nil || !ok {
			t.Fatalf("reserve room-a beside one grade run of two: %v, %v", ok, err)
		}
		if ok, err := s.ReserveRoomRun(ctx, "room-a", "A", until, "10.0.0.9", 2); err != nil || ok {
			t.Errorf("a second run of room-a reserved: %v, %v; want refused, one run at a time", ok, err)
		}
		if _, err := s.ReserveRoomRun(ctx, "room-b", "A", until, "10.0.0.1", 2); !errors.Is(err, ErrAddressBusy) {
			t.Errorf("a third run for the address, in room-b: %v; want ErrAddressBusy", err)
		}
		other := claimOf("B", "u2", "10.0.0.1")
		other.PerAddress = 2
		if _, err := startOwned(t, s, other); !errors.Is(err, ErrAddressBusy) {
			t.Errorf("a grade run past the address's grade run and room run: %v; want ErrAddressBusy", err)
		}
		// The reservation becomes the run, then its lease ends.
		if err := s.LeaseRoomRun(ctx, "room-a", 5, "B", until); err != nil {
			t.Fatal(err)
		}
		if _, err := startOwned(t, s, other); !errors.Is(err, ErrAddressBusy) {
			t.Errorf("a grade run while room-a's run is leased: %v; want ErrAddressBusy", err)
		}
		if err := s.EndRoomRunLease(ctx, "room-a", 5); err != nil {
			t.Fatal(err)
		}
		if _, err := startOwned(t, s, other); err != nil {
			t.Errorf("a grade run once room-a's run ended: %v", err)
		}
		if ok, err := s.ReserveRoomRun(ctx, "room-b", "A", until, "10.0.0.9", 2); err != nil || !ok {
			t.Errorf("another address's room run: %v, %v", ok, err)
		}
	})
}
