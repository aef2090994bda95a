package storage

import (
	"context"
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
