package storage

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// burst writes about mib MiB of drafts under fresh users while a reader
// holds a snapshot open, so no automatic checkpoint can reset the WAL and
// it grows past its limit, as it did under the save flood.
func burst(t *testing.T, s *Store, mib int) {
	t.Helper()
	ctx := context.Background()
	end := holdSnapshot(t, s)
	code := strings.Repeat("x", 256<<10)
	for i := range mib * 4 {
		a, err := s.StartAttempt(ctx, fmt.Sprintf("burst-%d-%d", mib, i), KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveCodeDraft(ctx, a.ID, code); err != nil {
			t.Fatal(err)
		}
	}
	end()
}

// holdSnapshot opens a read transaction, as a slow page does, until the
// returned func ends it.
func holdSnapshot(t *testing.T, s *Store) func() {
	t.Helper()
	ctx := context.Background()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// BeginTx would take the write lock (_txlock=immediate): a reader
	// begins deferred, and its snapshot starts at its first read.
	if _, err := conn.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM users`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(ctx, "ROLLBACK")
		conn.Close()
	}
}

func TestCheckpointShrinksTheWAL(t *testing.T) {
	tests := []struct {
		name string
		// shrink brings the WAL down after the burst.
		shrink func(t *testing.T, s *Store)
	}{
		{"Checkpoint", func(t *testing.T, s *Store) {
			done, err := s.Checkpoint(context.Background())
			if err != nil || !done {
				t.Fatalf("Checkpoint = %v, %v; want done", done, err)
			}
		}},
		{"background loop", func(t *testing.T, s *Store) {
			s.stopCheckpoints()
			<-s.checkpointsDone
			s.startCheckpoints(20 * time.Millisecond)
			for deadline := time.Now().Add(5 * time.Second); s.walSize() > 0 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTestStore(t)
			burst(t, s, 5)
			peak := s.walSize()
			if peak <= walSizeLimit {
				t.Fatalf("WAL after the burst = %d bytes; the test needs it past the %d limit", peak, walSizeLimit)
			}
			tt.shrink(t, s)
			if n := s.walSize(); n != 0 {
				t.Errorf("WAL = %d bytes after the checkpoint (peak %d); want it truncated", n, peak)
			}
			// Nothing was lost by it.
			if d, err := s.CodeDraftOf(context.Background(), 1); err != nil || len(d.Code) != 256<<10 {
				t.Errorf("a draft after the checkpoint: %d bytes, %v", len(d.Code), err)
			}
		})
	}
}

func TestCheckpointGivesWayToAReader(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t)
	burst(t, s, 2)
	end := holdSnapshot(t, s)
	defer end()
	if _, err := s.StartAttempt(ctx, "after", KindProblem, "p"); err != nil { // a write the reader does not see
		t.Fatal(err)
	}
	start := time.Now()
	done, err := s.Checkpoint(ctx)
	if err != nil || done {
		t.Errorf("Checkpoint with a reader on an old snapshot = %v, %v; want not done, no error", done, err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Checkpoint waited %v; want about %v", took, checkpointWait)
	}
	// The pool's connections keep their own busy timeout.
	var timeout int
	s.db.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&timeout)
	if timeout != int(busyTimeout.Milliseconds()) {
		t.Errorf("busy_timeout after a checkpoint = %d ms; want %d", timeout, busyTimeout.Milliseconds())
	}
}
