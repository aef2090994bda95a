package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/faultline-dev/faultline/internal/pgtest"
	"github.com/faultline-dev/faultline/migrations"
)

func TestRebind(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"none", `SELECT 1`, `SELECT 1`},
		{"in order", `WHERE a = ? AND b IN (?, ?)`, `WHERE a = $1 AND b IN ($2, $3)`},
		{"string literal", `SELECT '?', ? FROM t WHERE x = 'it''s ?'`, `SELECT '?', $1 FROM t WHERE x = 'it''s ?'`},
		{"quoted name", `SELECT "why?" FROM t WHERE a = ?`, `SELECT "why?" FROM t WHERE a = $1`},
		{"comment", "SELECT ? -- and why?\nFROM t WHERE a = ?", "SELECT $1 -- and why?\nFROM t WHERE a = $2"},
		{"comment at the end", "SELECT ? -- why?", "SELECT $1 -- why?"},
		{"unclosed literal", `SELECT ? 'abc?`, `SELECT $1 'abc?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := postgresDialect.rebind(tt.in); got != tt.want {
				t.Errorf("rebind(%q) = %q; want %q", tt.in, got, tt.want)
			}
			if got := sqliteDialect.rebind(tt.in); got != tt.in {
				t.Errorf("SQLite's rebind(%q) = %q; want it unchanged", tt.in, got)
			}
		})
	}
}

// TestMigrationSetsMatch: the Postgres set has a file for every SQLite
// migration, with the same number and name, so schema version n means the
// same schema on both databases.
func TestMigrationSetsMatch(t *testing.T) {
	lite, err := Migrations(migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := Migrations(migrations.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	names := func(ms []Migration) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return strings.Join(out, " ")
	}
	if names(lite) != names(pg) {
		t.Fatalf("SQLite's migrations: %s\nPostgres's: %s\nwant the same files in both", names(lite), names(pg))
	}
	for _, m := range pg {
		var code strings.Builder // the SQL without its comments
		for _, line := range strings.Split(m.SQL, "\n") {
			code.WriteString(strings.SplitN(line, "--", 2)[0] + "\n")
		}
		for _, word := range []string{"STRICT", "json_valid", "AUTOINCREMENT", "BLOB", " INTEGER"} {
			if strings.Contains(code.String(), word) {
				t.Errorf("postgres/%s uses SQLite's %s", m.Name, word)
			}
		}
	}
}

func TestIsPostgresURL(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://u@h/db":         true,
		"postgresql://u:p@h:5/db":   true,
		"./data/faultline.db":       false,
		"postgres.db":               false,
		"/var/lib/postgres://x.db":  false,
		"file:postgres://nothing":   false,
		"data/postgresql:/weird.db": false,
	} {
		if got := isPostgresURL(in); got != want {
			t.Errorf("isPostgresURL(%q) = %v; want %v", in, got, want)
		}
	}
	if got := Redacted("postgres://app:s3cret@db:5432/faultline"); strings.Contains(got, "s3cret") {
		t.Errorf("Redacted kept the password: %s", got)
	}
	if got := Redacted("./data/x.db"); got != "./data/x.db" {
		t.Errorf("Redacted(path) = %q", got)
	}
}

// TestPostgresConcurrentMigrate: instances starting at the same moment on
// one empty database apply every migration once between them.
func TestPostgresConcurrentMigrate(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	const instances = 5
	stores := make([]*Store, instances)
	errs := make([]error, instances)
	var wg sync.WaitGroup
	for i := range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(ctx, url)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: Open: %v", i, err)
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	ms, err := Migrations(migrations.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	var rows, distinct int
	if err := stores[0].db.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != len(ms) || distinct != len(ms) {
		t.Fatalf("schema_migrations has %d rows (%d versions); want each of %d once", rows, distinct, len(ms))
	}
	for i, s := range stores {
		if v, err := s.SchemaVersion(ctx); err != nil || v != len(ms) {
			t.Errorf("instance %d: SchemaVersion = %d, %v; want %d", i, v, err, len(ms))
		}
		if n, err := s.Migrate(ctx); err != nil || n != 0 {
			t.Errorf("instance %d: Migrate again = %d, %v; want 0", i, n, err)
		}
	}
	if stores[0].Dialect() != "postgres" {
		t.Errorf("Dialect = %q", stores[0].Dialect())
	}
	// What one instance wrote, another sees, and a restart keeps.
	if _, err := stores[1].EnsureUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	for _, s := range stores {
		s.Close()
	}
	again, err := Open(ctx, url)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer again.Close()
	if _, err := again.User(ctx, "u1"); err != nil {
		t.Fatalf("user lost across reopen: %v", err)
	}
}

func TestPostgresOpenRefusals(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	bad := strings.Replace(url, "://postgres@", "://postgres:hunter2@", 1)
	bad = bad[:strings.LastIndex(bad, "/")] + "/no_such_database?sslmode=disable"
	_, err := Open(ctx, bad)
	if err == nil {
		t.Fatal("Open of a database that does not exist succeeded")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the error shows the password: %v", err)
	}
	if !strings.Contains(err.Error(), "no_such_database") {
		t.Errorf("the error does not name the database: %v", err)
	}
}

func TestBusyMapsLockErrors(t *testing.T) {
	other := errors.New("disk full")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"other", other, false},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, true},
		{"serialization", fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: "40001"}), true},
		{"lock timeout", &pgconn.PgError{Code: "55P03"}, true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"sqlite busy", sqliteCode(5), true},
		{"sqlite busy snapshot", sqliteCode(5 | 2<<8), true},
		{"sqlite constraint", sqliteCode(19), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := busy(tt.err)
			if errors.Is(got, ErrBusy) != tt.want {
				t.Errorf("busy(%v) is ErrBusy: %v; want %v", tt.err, !tt.want, tt.want)
			}
			if tt.err != nil && !errors.Is(got, tt.err) {
				t.Errorf("busy(%v) lost the error it wraps", tt.err)
			}
		})
	}
}

type sqliteCode int

func (c sqliteCode) Error() string { return fmt.Sprintf("sqlite error %d", int(c)) }
func (c sqliteCode) Code() int     { return int(c) }

// TestTextWithNULStored: U+0000, which Postgres's text cannot hold, is
// dropped from what users type on both databases, and the rest is kept.
func TestTextWithNULStored(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		if d, err := s.SaveCodeDraft(ctx, a.ID, "package\x00 p"); err != nil || d.Code != "package p" {
			t.Fatalf("SaveCodeDraft = %q, %v", d.Code, err)
		}
		ts, _, err := s.StartTimedSession(ctx, a.ID, ScopeProblem, ModeTimed, time.Minute, false, timedT0)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.SaveDraft(ctx, ts.ID, 1, "\x00dra\x00ft", false, timedT0); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.TimedSession(ctx, ts.ID); got.Draft != "draft" {
			t.Errorf("draft = %q; want %q", got.Draft, "draft")
		}
		ans, err := submitPlain(ctx, s, a.ID, ScopeProblem, "an\x00swer")
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := s.TimedAnswer(ctx, ans.ID); got.Body != "answer" {
			t.Errorf("answer = %q; want %q", got.Body, "answer")
		}
		run, err := s.StartGradeRun(ctx, a.ID, "p", 1, "package p\x00")
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := s.GradeRun(ctx, run.ID); got.Source != "package p" {
			t.Errorf("source = %q; want %q", got.Source, "package p")
		}
	})
}

// TestPostgresLockWaitIsBusy: a write that waits past lock_timeout for a
// row another transaction holds is ErrBusy, as a SQLite write past its
// busy timeout is. The URL may set lock_timeout; it is short here.
func TestPostgresLockWaitIsBusy(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.URL(t)+"&lock_timeout=200")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.StartAttempt(ctx, "u", KindProblem, "p")
	if err != nil {
		t.Fatal(err)
	}
	holder, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.ExecContext(ctx, `SELECT id FROM attempts WHERE id = $1 FOR UPDATE`, a.ID); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = s.RevealHint(ctx, a.ID, 1, 1)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("RevealHint while another transaction holds the attempt = %v; want ErrBusy", err)
	}
	if waited := time.Since(start); waited > 3*time.Second {
		t.Errorf("waited %v; want about lock_timeout (200ms)", waited)
	}
	holder.Rollback()
	if err := s.RevealHint(ctx, a.ID, 1, 1); err != nil {
		t.Fatalf("RevealHint once the lock is gone: %v", err)
	}
}
