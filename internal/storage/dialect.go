package storage

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// dialect is what differs between the two databases the store runs on.
// Queries are written once, in the SQL both accept, with ? placeholders;
// the few places that cannot be portable ask the dialect.
type dialect struct {
	name string
	// numbered placeholders: Postgres wants $1, $2, ... where SQLite
	// takes ?.
	numbered bool
	// forUpdate ends a SELECT whose row the transaction goes on to change
	// from what it read. SQLite has no row locks and needs none: its write
	// transactions hold the database's one write lock from BEGIN.
	forUpdate string
	// schemaMigrations creates the table that records applied migrations.
	schemaMigrations string
}

var (
	sqliteDialect = &dialect{
		name: "sqlite",
		schemaMigrations: `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT    NOT NULL,
			applied_at INTEGER NOT NULL
		) STRICT`,
	}
	postgresDialect = &dialect{
		name:      "postgres",
		numbered:  true,
		forUpdate: " FOR UPDATE",
		schemaMigrations: `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    BIGINT PRIMARY KEY,
			name       TEXT   NOT NULL,
			applied_at BIGINT NOT NULL
		)`,
	}
)

// rebind turns the ? placeholders of q into the dialect's. A ? inside a
// string literal, a quoted name or a comment is left alone.
func (d *dialect) rebind(q string) string {
	if !d.numbered || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(q[i+1:], c)
			if end < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+end+2])
			i += end + 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+end+1])
			i += end
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pool is the connection pool; its query methods rebind placeholders, so
// the code above it reads the same for either database.
type pool struct {
	*sql.DB
	d *dialect
}

func (p *pool) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	res, err := p.DB.ExecContext(ctx, p.d.rebind(q), args...)
	return res, busy(err)
}

func (p *pool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return p.DB.QueryContext(ctx, p.d.rebind(q), args...)
}

func (p *pool) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return p.DB.QueryRowContext(ctx, p.d.rebind(q), args...)
}

// txn is a transaction whose query methods rebind placeholders as pool's do.
type txn struct {
	*sql.Tx
	d *dialect
	// userLocked: the transaction holds its user's row (lockUser), so
	// the quota check need not ask for it again.
	userLocked bool
}

func (t *txn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.Tx.ExecContext(ctx, t.d.rebind(q), args...)
}

func (t *txn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.Tx.QueryContext(ctx, t.d.rebind(q), args...)
}

func (t *txn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return t.Tx.QueryRowContext(ctx, t.d.rebind(q), args...)
}

// queryer is what reads one row: the pool or a transaction.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// busyError is a database error that means "try again later", not "broken":
// another writer held a lock past the wait, or Postgres chose this
// transaction as a deadlock's or a serialization conflict's loser.
type busyError struct{ err error }

func (e *busyError) Error() string        { return e.err.Error() }
func (e *busyError) Unwrap() error        { return e.err }
func (e *busyError) Is(target error) bool { return target == ErrBusy }

// Postgres's codes for a transaction that lost to another and may simply
// be run again.
var pgBusyCodes = map[string]bool{
	"40001": true, // serialization_failure
	"40P01": true, // deadlock_detected
	"55P03": true, // lock_not_available: waited lock_timeout
	"53300": true, // too_many_connections
}

// SQLite's primary result codes for a lock another connection holds.
const (
	sqliteBusy   = 5
	sqliteLocked = 6
)

// busy marks err as ErrBusy when it is a lock or conflict error of either
// database; any other error, and nil, it returns as it is.
func busy(err error) error {
	if err == nil || errors.Is(err, ErrBusy) {
		return err
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pgBusyCodes[pg.Code] {
		return &busyError{err}
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		if c := lite.Code() & 0xff; c == sqliteBusy || c == sqliteLocked {
			return &busyError{err}
		}
	}
	return err
}

// storableText is text as the store keeps it: without U+0000. Postgres's
// text cannot hold that character at all (the write fails), and no answer,
// draft or program needs it (Go source may not contain it), so it is
// dropped on both databases alike, and both keep the same text.
func storableText(s string) string {
	if !strings.Contains(s, "\x00") {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "")
}
