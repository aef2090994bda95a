package storage

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/faultline-dev/faultline/internal/pgtest"
	"github.com/faultline-dev/faultline/migrations"
)

// submitPlain stores an answer sent without the timer, as a plain form does.
func submitPlain(ctx context.Context, s *Store, attemptID int64, scope, body string) (TimedAnswer, error) {
	return s.SubmitTimedAnswer(ctx, attemptID, scope, body, 0, AnswerTiming{}, s.now())
}

// openTestStore opens a SQLite store in a fresh file: for the tests of
// what only SQLite has (its WAL, its one writer).
func openTestStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "test.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openPostgresTestStore opens a store on a fresh Postgres database
// (pgtest: skipped without Postgres, failed under CI=true).
func openPostgresTestStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openOldStore opens a store on a fresh database of the named dialect with
// only the first n of its migrations applied, as an older binary left it,
// and returns it with what Open takes to open the database again.
func openOldStore(t *testing.T, dialect string, n int) (*Store, string) {
	t.Helper()
	ctx := context.Background()
	var (
		s  *Store
		db string
	)
	switch dialect {
	case "sqlite":
		db = filepath.Join(t.TempDir(), "old.db")
		raw, err := sql.Open("sqlite", dsn(db))
		if err != nil {
			t.Fatal(err)
		}
		s = newStore(raw, sqliteDialect)
		s.path = db
	case "postgres":
		db = pgtest.URL(t)
		cfg, err := pgx.ParseConfig(db)
		if err != nil {
			t.Fatal(err)
		}
		s = newStore(stdlib.OpenDB(*cfg), postgresDialect)
	default:
		t.Fatalf("no dialect %q", dialect)
	}
	t.Cleanup(func() { s.Close() })
	ms, err := Migrations(migrationsOf(s.d))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.apply(ctx, ms[:n]); err != nil {
		t.Fatal(err)
	}
	return s, db
}

// forEachDialect runs f once per database, by name, for the tests that
// build a database by hand.
func forEachDialect(t *testing.T, f func(t *testing.T, dialect string)) {
	t.Helper()
	for _, db := range testStores {
		t.Run(db.name, func(t *testing.T) { f(t, db.name) })
	}
}

// testStores are the databases of the conformance suite: every test that
// is not about one database's own machinery runs on each, as a subtest
// named after it.
var testStores = []struct {
	name string
	open func(t testing.TB) *Store
}{
	{"sqlite", openTestStore},
	{"postgres", openPostgresTestStore},
}

// forEachStore runs f on a fresh store of each database.
func forEachStore(t *testing.T, f func(t *testing.T, s *Store)) {
	t.Helper()
	for _, db := range testStores {
		t.Run(db.name, func(t *testing.T) { f(t, db.open(t)) })
	}
}

func TestOpenFreshAndReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "faultline.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open fresh: %v", err)
	}
	ms, err := Migrations(migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != len(ms) {
		t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, len(ms))
	}
	if _, err := s.EnsureUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	// Running the migrations again applies nothing and keeps the data.
	if n, err := s.Migrate(ctx); err != nil || n != 0 {
		t.Fatalf("second Migrate = %d, %v; want 0, nil", n, err)
	}
	s.Close()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if _, err := s.User(ctx, "u1"); err != nil {
		t.Fatalf("user lost across reopen: %v", err)
	}
	var journal string
	var fk int
	if err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&journal); err != nil || journal != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", journal, err)
	}
	if err := s.db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
	}
}

// TestOpenPathsWithURISyntax: a database path is a file name, not a URI. A
// "%", "?" or "#" in it once opened another file or cut the name short.
func TestOpenPathsWithURISyntax(t *testing.T) {
	for _, name := range []string{"a%20b.db", "100%.db", "why?.db", "no#1.db", "with space.db"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(context.Background(), filepath.Join(dir, name))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			s.Close()
			got, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || got[0].Name() != name {
				t.Fatalf("files in the directory = %v; want %q first", got, name)
			}
		})
	}
}

func TestMigrationNumbering(t *testing.T) {
	tests := []struct {
		name    string
		files   fstest.MapFS
		wantErr string // empty: valid
	}{
		{"shipped", nil, ""},
		{"in order", fstest.MapFS{"0001_a.sql": {}, "0002_b.sql": {}}, ""},
		{"duplicate number", fstest.MapFS{"0001_a.sql": {}, "0001_b.sql": {}}, "share number 1"},
		{"missing number", fstest.MapFS{"0001_a.sql": {}, "0003_c.sql": {}}, "number 2 is missing"},
		{"not starting at one", fstest.MapFS{"0002_b.sql": {}}, "number 1 is missing"},
		{"bad name", fstest.MapFS{"1_a.sql": {}}, "name must be NNNN_lower_snake.sql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.files == nil {
				_, err = Migrations(migrations.FS)
			} else {
				_, err = Migrations(tt.files)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error = %v; want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestMigrationFailureRollsBack(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		base, err := Migrations(migrationsOf(s.d))
		if err != nil {
			t.Fatal(err)
		}
		broken := append(base, Migration{Version: len(base) + 1, Name: "broken.sql",
			SQL: "CREATE TABLE half_done (x INTEGER); THIS IS NOT SQL;"})
		if _, err := s.apply(ctx, broken); err == nil {
			t.Fatal("apply of a broken migration succeeded")
		}
		if v, _ := s.SchemaVersion(ctx); v != len(base) {
			t.Errorf("version after failed migration = %d; want %d", v, len(base))
		}
		tables := `SELECT count(*) FROM sqlite_master WHERE name = 'half_done'`
		if s.d == postgresDialect {
			tables = `SELECT count(*) FROM information_schema.tables WHERE table_name = 'half_done'`
		}
		n := -1
		if err := s.db.QueryRowContext(ctx, tables).Scan(&n); err != nil || n != 0 {
			t.Errorf("tables named half_done: %d, %v; want none: the whole file rolled back", n, err)
		}
	})
}

func TestUsers(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		if _, err := s.User(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("User(unknown) err = %v; want ErrNotFound", err)
		}
		u, err := s.EnsureUser(ctx, "abc")
		if err != nil || u.ID != "abc" || u.CreatedAt.IsZero() || u.DisplayName != "" {
			t.Fatalf("EnsureUser = %+v, %v", u, err)
		}
		again, err := s.EnsureUser(ctx, "abc")
		if err != nil || !again.CreatedAt.Equal(u.CreatedAt) {
			t.Fatalf("second EnsureUser = %+v, %v; want the same user", again, err)
		}
		if _, err := s.EnsureUser(ctx, ""); err == nil {
			t.Error("EnsureUser(\"\") succeeded")
		}
	})
}

func TestAttempts(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		if _, err := s.Attempt(ctx, "u", KindProblem, "p"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Attempt before start err = %v; want ErrNotFound", err)
		}
		a, err := s.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil || b.ID != a.ID {
			t.Fatalf("second StartAttempt = %+v, %v; want attempt %d", b, err, a.ID)
		}
		c, err := s.StartAttempt(ctx, "u", KindSet, "p")
		if err != nil || c.ID == a.ID {
			t.Fatalf("set attempt with the problem's slug = %+v, %v; want a separate attempt", c, err)
		}
		got, err := s.Attempt(ctx, "u", KindProblem, "p")
		if err != nil || got.ID != a.ID || got.Kind != KindProblem || got.Slug != "p" || got.UserID != "u" {
			t.Fatalf("Attempt = %+v, %v", got, err)
		}
		if _, err := s.StartAttempt(ctx, "u", Kind("essay"), "p"); err == nil {
			t.Error("StartAttempt with an unknown kind succeeded")
		}
	})
}

func TestHintRevealOrder(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindProblem, "p")
		if err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			name       string
			part, hint int
			wantErr    error
		}{
			{"second before first", 1, 2, ErrHintOrder},
			{"first", 1, 1, nil},
			{"third before second", 1, 3, ErrHintOrder},
			{"second", 1, 2, nil},
			{"first again is a no-op", 1, 1, nil},
			{"other part starts at one", 2, 1, nil},
			{"other part in order too", 2, 3, ErrHintOrder},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				err := s.RevealHint(ctx, a.ID, st.part, st.hint)
				if !errors.Is(err, st.wantErr) {
					t.Fatalf("RevealHint(%d, %d) = %v; want %v", st.part, st.hint, err, st.wantErr)
				}
			})
		}
		got, err := s.HintReveals(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := [][2]int{{1, 1}, {1, 2}, {2, 1}}
		if len(got) != len(want) {
			t.Fatalf("HintReveals = %+v; want parts/indexes %v", got, want)
		}
		for i, h := range got {
			if h.Part != want[i][0] || h.Index != want[i][1] || h.RevealedAt.IsZero() {
				t.Errorf("reveal %d = %+v; want part %d hint %d", i, h, want[i][0], want[i][1])
			}
		}
		if err := s.RevealHint(ctx, a.ID, 0, 1); err == nil {
			t.Error("RevealHint part 0 succeeded")
		}
		if err := s.RevealHint(ctx, 9999, 1, 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("RevealHint on a missing attempt = %v; want ErrNotFound", err)
		}
	})
}

func TestAnswerRevealsAndAnswers(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		s.now = func() time.Time { clock = clock.Add(time.Second); return clock }
		a, err := s.StartAttempt(ctx, "u", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		q1, q2 := ScopeQuestion("q1"), ScopeQuestion("q2")

		// q1: answered, then answered again. q2: revealed, then answered.
		if _, err := submitPlain(ctx, s, a.ID, q1, "first try"); err != nil {
			t.Fatal(err)
		}
		if _, err := submitPlain(ctx, s, a.ID, q1, "second try"); err != nil {
			t.Fatal(err)
		}
		if err := s.RevealAnswer(ctx, a.ID, q2, ReasonChoseToReveal); err != nil {
			t.Fatal(err)
		}
		if _, err := submitPlain(ctx, s, a.ID, q2, "after looking"); err != nil {
			t.Fatal(err)
		}
		reveals, err := s.AnswerReveals(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantReasons := map[string]Reason{q1: ReasonSubmitted, q2: ReasonChoseToReveal}
		if len(reveals) != 2 {
			t.Fatalf("AnswerReveals = %+v; want 2", reveals)
		}
		for _, r := range reveals {
			if wantReasons[r.Scope] != r.Reason {
				t.Errorf("scope %s reason = %s; want %s", r.Scope, r.Reason, wantReasons[r.Scope])
			}
		}
		latest, err := s.LatestTimedAnswers(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if latest[q1].Body != "second try" || latest[q2].Body != "after looking" || len(latest) != 2 {
			t.Errorf("LatestTimedAnswers = %+v", latest)
		}
		if err := s.RevealAnswer(ctx, a.ID, q1, Reason("bored")); err == nil {
			t.Error("RevealAnswer with an unknown reason succeeded")
		}
		if _, err := submitPlain(ctx, s, 9999, q1, "x"); !errors.Is(err, ErrNotFound) {
			t.Errorf("a plain answer on a missing attempt = %v; want ErrNotFound", err)
		}
		empty, err := s.AnswerReveals(ctx, 9999)
		if err != nil || len(empty) != 0 {
			t.Errorf("AnswerReveals(missing) = %v, %v; want none", empty, err)
		}
	})
}

func TestConcurrentWritersWait(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindSet, "s")
		if err != nil {
			t.Fatal(err)
		}
		const writers = 8
		errs := make(chan error, writers)
		for i := range writers {
			go func() {
				_, err := submitPlain(ctx, s, a.ID, ScopeQuestion("q"), string(rune('a'+i)))
				errs <- err
			}()
		}
		for range writers {
			if err := <-errs; err != nil {
				t.Errorf("concurrent plain answers: %v", err)
			}
		}
	})
}
