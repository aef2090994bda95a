// Package migrations holds the numbered SQL files that build the database
// schema, embedded in the binary so a fresh server creates its own database.
// Files are named NNNN_what.sql and applied in number order, each once.
// The files at the top are SQLite's; postgres/ holds the same migrations,
// numbered and named alike, in Postgres's dialect.
package migrations

import (
	"embed"
	"io/fs"
)

// FS holds every migration file: SQLite's at its top, Postgres's in postgres/.
//
//go:embed *.sql postgres/*.sql
var FS embed.FS

// Postgres is the Postgres set, the postgres/ folder of FS.
var Postgres = mustSub(FS, "postgres")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // dir is embedded above: this cannot fail
	}
	return sub
}
