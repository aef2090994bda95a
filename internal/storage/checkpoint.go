package storage

import (
	"context"
	"fmt"
	"os"
	"time"
)

// walSizeLimit is what SQLite truncates the WAL to when a checkpoint
// resets it (journal_size_limit), and the size above which the background
// loop asks for a truncating checkpoint. SQLite's automatic checkpoint
// runs every 1000 pages (4 MiB), so a WAL of that size is ordinary.
const walSizeLimit = 4 << 20

// checkpointEvery is how often the background loop looks at the WAL. A
// burst of writes with readers present can leave the WAL at hundreds of
// MiB (the automatic checkpoint cannot reset a WAL that a reader is still
// using, and nothing shrinks it once it can): measured, 524 MiB after a
// 15 s burst of saves, still there after the burst ended.
const checkpointEvery = 10 * time.Second

// checkpointWait bounds how long a truncating checkpoint waits for readers
// and the writer before giving up until the next tick: while it waits it
// holds back new writers, so it must stay short.
const checkpointWait = 200 * time.Millisecond

// startCheckpoints runs the background checkpoint loop until Close.
func (s *Store) startCheckpoints(every time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopCheckpoints = cancel
	s.checkpointsDone = make(chan struct{})
	go func() {
		defer close(s.checkpointsDone)
		t := time.NewTicker(every)
		defer t.Stop()
		var last int64
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				// Past the limit, or not grown since the last look (the
				// writes have quietened): give the disk back.
				if n := s.walSize(); n > walSizeLimit || n > 0 && n == last {
					s.Checkpoint(ctx) // a failure is retried at the next tick
				}
				last = s.walSize()
			}
		}
	}()
}

func (s *Store) walSize() int64 {
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Checkpoint copies the WAL into the database and truncates it to zero
// bytes, if it can within checkpointWait; done says whether it did (it
// cannot while a reader holds an old snapshot or a writer is busy). On
// Postgres, which recycles its own WAL, there is nothing to do: done.
func (s *Store) Checkpoint(ctx context.Context) (done bool, err error) {
	if s.d == postgresDialect {
		return true, nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("storage: checkpoint: %w", err)
	}
	defer conn.Close()
	// The wait is this connection's busy timeout; the pool's own timeout
	// is put back before the connection returns to the pool.
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", checkpointWait.Milliseconds())); err != nil {
		return false, fmt.Errorf("storage: checkpoint: %w", err)
	}
	defer conn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA busy_timeout = %d", busyTimeout.Milliseconds()))
	var busy, logFrames, checkpointed int
	if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &checkpointed); err != nil {
		return false, fmt.Errorf("storage: checkpoint: %w", err)
	}
	return busy == 0, nil
}
