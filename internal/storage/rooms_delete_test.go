package storage

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

func countRoomEvents(t *testing.T, s *Store, roomID string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRowContext(context.Background(), `SELECT count(*) FROM room_events WHERE room_id = ?`, roomID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDeleteRoomsExpiredBy: a room goes, log and all, once its expiry is
// at or before the cutoff, and not a moment before; an ended room counts
// by its expiry too; a second sweep finds nothing; limit bounds a sweep,
// which takes the oldest expiries first, by id between equals.
func TestDeleteRoomsExpiredBy(t *testing.T) {
	ctx := context.Background()
	t0 := time.UnixMilli(1_800_000_000_000).UTC()
	tests := []struct {
		name    string
		cutoff  time.Time
		limit   int
		deleted []string
	}{
		{"before every expiry", t0.Add(59 * time.Minute), 10, nil},
		{"at the first expiry", t0.Add(time.Hour), 10, []string{"ended", "old"}},
		{"past both", t0.Add(3 * time.Hour), 10, []string{"ended", "old", "newer"}},
		{"limit", t0.Add(3 * time.Hour), 2, []string{"ended", "old"}},
		{"no limit is nothing", t0.Add(3 * time.Hour), 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forEachStore(t, func(t *testing.T, s *Store) {
				newTestRoom(t, s, "old", t0, time.Hour)
				newTestRoom(t, s, "ended", t0.Add(time.Second), time.Hour-time.Second)
				newTestRoom(t, s, "newer", t0, 2*time.Hour)
				newTestRoom(t, s, "open", t0, 24*time.Hour)
				for _, id := range []string{"old", "ended", "newer", "open"} {
					if _, err := s.AppendRoomEvents(ctx, id, t0.Add(time.Minute),
						ev(ActorInterviewer, "note.saved", VisibleToInterviewer, `{"text":"n"}`),
						ev(ActorCandidate, "answer.text", VisibleToEveryone, `{"item":0,"text":"a"}`)); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := s.EndRoom(ctx, "ended", t0.Add(2*time.Minute), ev(ActorInterviewer, "room.ended", VisibleToEveryone, `{}`)); err != nil {
					t.Fatal(err)
				}
				got, err := s.DeleteRoomsExpiredBy(ctx, tt.cutoff, tt.limit)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, tt.deleted) {
					t.Fatalf("deleted %v; want %v", got, tt.deleted)
				}
				for _, id := range []string{"old", "ended", "newer", "open"} {
					_, err := s.Room(ctx, id)
					gone := slices.Contains(tt.deleted, id)
					switch {
					case gone && err != ErrNotFound:
						t.Errorf("Room(%s) after its deletion = %v; want ErrNotFound", id, err)
					case !gone && err != nil:
						t.Errorf("Room(%s), which is kept, = %v", id, err)
					}
					if n := countRoomEvents(t, s, id); gone != (n == 0) {
						t.Errorf("room %s (deleted: %v) has %d events left", id, gone, n)
					}
				}
				again, err := s.DeleteRoomsExpiredBy(ctx, tt.cutoff, tt.limit)
				if err != nil {
					t.Fatal(err)
				}
				if tt.limit >= 3 && len(again) != 0 {
					t.Fatalf("a second sweep deleted %v; want nothing", again)
				}
			})
		})
	}
}

// TestDeleteRoomsExpiredByTwoInstances: two stores on one database file
// (two server instances), on each database, sweeping at once delete each room exactly once
// between them.
func TestDeleteRoomsExpiredByTwoInstances(t *testing.T) {
	ctx := context.Background()
	forEachStorePair(t, func(t *testing.T, a, b *Store) {
		t0 := time.UnixMilli(1_800_000_000_000).UTC()
		const rooms = 40
		for i := range rooms {
			newTestRoom(t, a, "r"+string(rune('A'+i)), t0, time.Hour)
		}
		var wg sync.WaitGroup
		got := make([][]string, 2)
		errs := make([]error, 2)
		for i, s := range []*Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					ids, err := s.DeleteRoomsExpiredBy(ctx, t0.Add(2*time.Hour), 8)
					if err != nil {
						errs[i] = err
						return
					}
					got[i] = append(got[i], ids...)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		all := append(slices.Clone(got[0]), got[1]...)
		slices.Sort(all)
		if len(all) != rooms || len(slices.Compact(slices.Clone(all))) != rooms {
			t.Fatalf("the two sweeps deleted %d rooms between them (%d distinct); want each of %d once", len(all), len(slices.Compact(all)), rooms)
		}
	})
}
