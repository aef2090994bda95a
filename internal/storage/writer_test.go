package storage

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestWritersQueue: write transactions run one at a time in this process,
// and those waiting for their turn hold no database connection (in
// SQLite's busy handler each would hold one, polling); one whose request
// has gone stops waiting without running.
func TestWritersQueue(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	holding, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.inTx(ctx, func(*txn) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding

	gone, cancel := context.WithCancel(ctx)
	ran := false
	waited := make(chan error, 1)
	go func() { waited <- s.inTx(gone, func(*txn) error { ran = true; return nil }) }()
	cancel()
	select {
	case err := <-waited:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled writer's wait ended with %v; want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled writer still waits for the one holding the lock")
	}

	// Ten more queue behind the first and all run once it commits, none
	// while another is inside its transaction.
	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.inTx(ctx, func(*txn) error {
				mu.Lock()
				inside++
				most = max(most, inside)
				mu.Unlock()
				time.Sleep(time.Millisecond)
				mu.Lock()
				inside--
				mu.Unlock()
				return nil
			})
		}()
	}
	// Give the ten time to reach their wait. Were they waiting in SQLite,
	// each would hold a connection by now; waiting here, none does.
	time.Sleep(200 * time.Millisecond)
	if n := s.db.Stats().InUse; n != 1 {
		t.Errorf("%d connections in use with one writer in its transaction and ten waiting; want 1", n)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a queued writer failed: %v", err)
		}
	}
	if ran {
		t.Error("the cancelled writer's transaction ran")
	}
	if most != 1 {
		t.Errorf("%d write transactions ran at once; want 1", most)
	}
}
