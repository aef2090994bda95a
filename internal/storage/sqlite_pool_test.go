package storage

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestSQLitePoolIsBounded: a burst of readers far past the bound all get
// their answer, through at most maxSQLiteConns connections, and the pool
// keeps only a few of them once the burst is over.
func TestSQLitePoolIsBounded(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "pool.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.UnixMilli(1_800_000_000_000).UTC()
	newTestRoom(t, s, "r1", t0, time.Hour)
	if got := s.db.Stats().MaxOpenConnections; got != maxSQLiteConns {
		t.Fatalf("the SQLite pool's bound is %d; want %d", got, maxSQLiteConns)
	}

	const readers = 400
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	var mu sync.Mutex
	most := 0
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each holds its rows open a moment, as a slow stream's
			// reader would, so the readers overlap.
			rows, err := s.db.QueryContext(ctx, "SELECT seq FROM room_events WHERE room_id = ?", "r1")
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			most = max(most, s.db.Stats().OpenConnections)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			for rows.Next() {
			}
			if err := rows.Close(); err != nil {
				errs <- err
			}
			if _, err := s.RoomEvents(ctx, "r1", 0, 10); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a reader failed: %v", err)
	}
	if most > maxSQLiteConns {
		t.Fatalf("%d connections were open at once; want at most %d", most, maxSQLiteConns)
	}
	if idle := s.db.Stats().Idle; idle > 4 {
		t.Fatalf("%d idle connections kept after the burst; want at most 4", idle)
	}
	t.Logf("%d readers through at most %d connections", readers, most)
}
