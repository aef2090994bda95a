// Package storagetest opens a store for the tests of the packages built on
// internal/storage (rooms, practice, the web handlers), so that their
// suites can run on either database: SQLite in the test's temporary
// folder by default, a fresh Postgres database (internal/pgtest) when
// FAULTLINE_TEST_STORE=postgres. .ci/run runs those packages both ways.
package storagetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/internal/pgtest"
	"github.com/faultline-dev/faultline/internal/storage"
)

// EnvStore chooses the database: "postgres", or "" (or "sqlite") for SQLite.
const EnvStore = "FAULTLINE_TEST_STORE"

// Open returns a fresh, migrated store that is closed when the test ends.
func Open(t testing.TB) *storage.Store {
	t.Helper()
	var db string
	switch v := os.Getenv(EnvStore); v {
	case "", "sqlite":
		db = filepath.Join(t.TempDir(), "test.db")
	case "postgres":
		db = pgtest.URL(t)
	default:
		t.Fatalf("storagetest: %s=%q: want postgres, sqlite or nothing", EnvStore, v)
	}
	s, err := storage.Open(context.Background(), db)
	if err != nil {
		t.Fatalf("storagetest: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
