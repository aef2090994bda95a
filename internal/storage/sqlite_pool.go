package storage

import (
	"database/sql"
	"time"
)

// maxSQLiteConns bounds the SQLite pool as maxPostgresConns bounds
// Postgres's. Unbounded, every request waiting on the database opened a
// connection of its own (a file descriptor, and SQLite's page cache) and
// the pool kept them: at 10,000 room streams the server ran out of
// descriptors, answered 500 ("unable to open database file") and still
// held 7,603 descriptors 30 s after every client left (issue 26). Writes
// go one at a time anyway (Store.writer), and WAL readers do not block
// each other, so a few connections serve two cores; a request past the
// bound waits for a free one in database/sql.
const maxSQLiteConns = 20

// sqliteIdleTime is how long a connection past the first few may sit
// idle before it is closed: a burst's connections go back soon after it.
const sqliteIdleTime = time.Minute

// boundSQLitePool applies the bounds to a SQLite pool.
func boundSQLitePool(db *sql.DB) {
	db.SetMaxOpenConns(maxSQLiteConns)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(sqliteIdleTime)
}
