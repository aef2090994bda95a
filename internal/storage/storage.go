// Package storage keeps what users do: anonymous users, their attempts at
// problems and question sets, the hints they revealed, the answers they
// wrote and the answer material they chose to see, their code and grade
// runs, and the live rooms' logs. All SQL of the application lives here.
//
// One Store runs on either of two databases: SQLite (modernc.org/sqlite, no
// cgo; the default, a file beside the server) or Postgres (through pgx),
// shared by several server instances. The queries are written once, in
// SQL both accept (dialect.go says what differs), and every write that
// reads before it decides is safe with many writers at once: it is a
// conditional statement whose rows-affected count is checked, or it locks
// the row it read (FOR UPDATE), so Postgres's READ COMMITTED cannot let two
// writers decide on the same old state. SQLite gets the same guarantee
// from its one writer at a time.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("storage: not found")

// ErrHintOrder is returned when a hint is revealed before the ones before it.
var ErrHintOrder = errors.New("storage: hints are revealed in order")

// ErrBusy is matched (errors.Is) by a write that waited busyTimeout for
// the others to finish: the server is overloaded, nothing is broken, and
// the same request may succeed a moment later.
var ErrBusy = errors.New("storage: the database is busy")

// busyTimeout is how long a writer waits for another writer's lock before
// SQLite gives up with SQLITE_BUSY.
const busyTimeout = 5 * time.Second

// Store is the application's database. It is safe for concurrent use.
type Store struct {
	db   *pool
	d    *dialect
	path string // the SQLite file; "" on Postgres
	now  func() time.Time
	// The quotas: MaxUserBytes, FullRunsKept and RunsKept; tests lower them.
	maxUserBytes           int64
	fullRunsKept, runsKept int

	stopCheckpoints context.CancelFunc
	checkpointsDone chan struct{}

	// writer is the one write transaction this process runs at a time
	// (see inTx); made on first use, so a Store built in a test works.
	writerOnce sync.Once
	writer     chan struct{}
}

// Open opens the database that db names and applies pending migrations. A
// postgres:// or postgresql:// URL opens that Postgres database (see
// openPostgres); anything else is the path of a SQLite file, created if
// needed with the directory holding it, and opened with WAL, a busy timeout
// and foreign keys on.
func Open(ctx context.Context, db string) (*Store, error) {
	if isPostgresURL(db) {
		return openPostgres(ctx, db)
	}
	return openSQLite(ctx, db)
}

// isPostgresURL reports whether the -db value names a Postgres database
// rather than a SQLite file.
func isPostgresURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// Dialect names the database the store runs on: "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.d.name }

func openSQLite(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("storage: create database directory: %w", err)
		}
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	boundSQLitePool(db)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	s := newStore(db, sqliteDialect)
	s.path = path
	if _, err := s.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	s.startCheckpoints(checkpointEvery)
	return s, nil
}

// newStore wraps an open database with the default quotas; the caller
// migrates it.
func newStore(db *sql.DB, d *dialect) *Store {
	return &Store{db: &pool{DB: db, d: d}, d: d, now: time.Now, maxUserBytes: MaxUserBytes,
		fullRunsKept: FullRunsKept, runsKept: RunsKept}
}

// dsn builds the connection string. Pragmas go in the DSN so that every
// pooled connection gets them, not only the first one. _txlock=immediate
// makes write transactions take the write lock at BEGIN, so two of them wait
// on busy_timeout instead of failing on lock upgrade.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
	q.Set("_txlock", "immediate")
	return "file:" + uriPath.Replace(path) + "?" + q.Encode()
}

// uriPath escapes what a "file:" URI would otherwise read as syntax: a
// database path holding "%", "?" or "#" opened another file (or cut the name
// short) before.
var uriPath = strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23")

// Close stops the checkpoints and closes the database.
func (s *Store) Close() error {
	if s.stopCheckpoints != nil {
		s.stopCheckpoints()
		<-s.checkpointsDone
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("storage: close: %w", err)
	}
	return nil
}

// inTx runs f in a transaction, committing when f returns nil. A lock
// waited on past busyTimeout, a deadlock or a conflict comes back as
// ErrBusy.
//
// On SQLite every transaction here takes SQLite's write lock at BEGIN (see dsn), and
// this process runs one at a time: the others queue on s.writer, in
// order, rather than each on its own connection in SQLite's busy handler,
// which polls with sleeps of up to 100 ms and serves no one first. With
// 100 writers at once (50 live rooms, a push and a cursor report per
// keystroke) that polling starved some past busy_timeout and kept the
// rest's delay in seconds (bench/rooms.sh). The wait is bounded by
// busyTimeout as SQLite's was; another process's writer still meets the
// busy handler.
//
// On Postgres transactions run side by side (READ COMMITTED): each one
// that decides from what it read locks that row or writes conditionally,
// so there is no queue; a lock wait ends at lock_timeout (busyTimeout).
func (s *Store) inTx(ctx context.Context, f func(tx *txn) error) error {
	if s.d == postgresDialect {
		return busy(s.runTx(ctx, f))
	}
	s.writerOnce.Do(func() { s.writer = make(chan struct{}, 1) })
	wait := time.NewTimer(busyTimeout)
	select {
	case s.writer <- struct{}{}:
		wait.Stop()
	case <-wait.C:
		return fmt.Errorf("storage: begin: no write transaction free within %s: %w", busyTimeout, ErrBusy)
	case <-ctx.Done():
		wait.Stop()
		return fmt.Errorf("storage: begin: %w", ctx.Err())
	}
	defer func() { <-s.writer }()
	return busy(s.runTx(ctx, f))
}

func (s *Store) runTx(ctx context.Context, f func(tx *txn) error) error {
	sqlTx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("storage: begin: %w", err)
	}
	tx := &txn{Tx: sqlTx, d: s.d}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("storage: commit: %w", err)
	}
	return nil
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
