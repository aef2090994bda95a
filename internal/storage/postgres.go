package storage

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// maxPostgresConns bounds one instance's connections. Postgres allows 100
// by default (max_connections), and several instances share them; a
// request past the bound waits for a free connection in database/sql.
const maxPostgresConns = 20

// openPostgres opens the Postgres database at the postgres:// URL rawURL
// through pgx and applies pending migrations, under an advisory lock so
// that instances starting at the same moment apply each one once. Every
// connection waits at most busyTimeout for a row lock (lock_timeout), the
// bound SQLite's busy timeout gives, and the wait's end is ErrBusy.
func openPostgres(ctx context.Context, rawURL string) (*Store, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", redactURL(rawURL), err)
	}
	if _, set := cfg.RuntimeParams["lock_timeout"]; !set {
		cfg.RuntimeParams["lock_timeout"] = strconv.FormatInt(busyTimeout.Milliseconds(), 10)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(maxPostgresConns)
	db.SetMaxIdleConns(maxPostgresConns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("storage: open %s: %w", redactURL(rawURL), err)
	}
	s := newStore(db, postgresDialect)
	if _, err := s.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Redacted is the -db value as a log may show it: a Postgres URL without
// its password; a file path as it is.
func Redacted(db string) string {
	if !isPostgresURL(db) {
		return db
	}
	return redactURL(db)
}

// redactURL is rawURL without its password, for error messages and logs.
func redactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "the postgres URL (unparsable)"
	}
	return u.Redacted()
}
