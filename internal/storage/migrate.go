package storage

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"

	"github.com/faultline-dev/faultline/migrations"
)

// Migration is one numbered SQL file.
type Migration struct {
	Version int
	Name    string // file name, e.g. 0001_identity_and_reveals.sql
	SQL     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_[a-z0-9_]+\.sql$`)

// Migrations reads the migration files from fsys in version order. It fails
// on a badly named file, a duplicate number or a gap in the numbering, so a
// mistake is caught by a test instead of half-applying a schema.
func Migrations(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("storage: read migrations: %w", err)
	}
	var ms []Migration
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("storage: migration %s: name must be NNNN_lower_snake.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("storage: migrations %s and %s share number %d", other, e.Name(), v)
		}
		seen[v] = e.Name()
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("storage: read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, Migration{Version: v, Name: e.Name(), SQL: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("storage: migration number %d is missing (next file is %s)", i+1, m.Name)
		}
	}
	return ms, nil
}

// Migrate applies the embedded migrations of the store's dialect that are
// not applied yet, each in its own transaction together with its row in
// schema_migrations. It returns how many it applied; running it again
// applies none.
func (s *Store) Migrate(ctx context.Context) (int, error) {
	ms, err := Migrations(migrationsOf(s.d))
	if err != nil {
		return 0, err
	}
	return s.apply(ctx, ms)
}

// migrationsOf is the dialect's set of migration files. The two sets build
// the same schema and number their files alike (a test holds them to it),
// so a schema version means the same on both databases.
func migrationsOf(d *dialect) fs.FS {
	if d == postgresDialect {
		return migrations.Postgres
	}
	return migrations.FS
}

// migrationLock is the Postgres advisory lock that instances take around
// Migrate; any number serves that no other program on the database uses.
const migrationLock = 0x6661756c746c696e // "faultlin"

func (s *Store) apply(ctx context.Context, ms []Migration) (int, error) {
	if s.d == postgresDialect {
		// Several instances starting at once: without the lock two could
		// both create schema_migrations (CREATE TABLE IF NOT EXISTS races
		// on Postgres's catalogue) or run a migration's DDL side by side.
		// The lock is the session's, so it is held on one connection.
		conn, err := s.db.Conn(ctx)
		if err != nil {
			return 0, fmt.Errorf("storage: migrate: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
			return 0, fmt.Errorf("storage: migrate: take the migration lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLock))
	}
	if _, err := s.db.ExecContext(ctx, s.d.schemaMigrations); err != nil {
		return 0, fmt.Errorf("storage: create schema_migrations: %w", err)
	}
	applied := 0
	for _, m := range ms {
		done := false
		err := s.inTx(ctx, func(tx *txn) error {
			// Checked inside the transaction: two servers starting on one
			// file must not both apply the same migration.
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
				return fmt.Errorf("storage: check migration %s: %w", m.Name, err)
			}
			if n > 0 {
				done = true
				return nil
			}
			// Not rebound: a migration has no parameters, and a ? in one
			// of its comments is prose.
			if _, err := tx.Tx.ExecContext(ctx, m.SQL); err != nil {
				return fmt.Errorf("storage: apply migration %s: %w", m.Name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.Version, m.Name, millis(s.now())); err != nil {
				return fmt.Errorf("storage: record migration %s: %w", m.Name, err)
			}
			return nil
		})
		if err != nil {
			return applied, err
		}
		if !done {
			applied++
		}
	}
	return applied, nil
}

// SchemaVersion is the highest applied migration number (0 for none).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("storage: schema version: %w", err)
	}
	return int(v.Int64), nil
}
