// Package migrations holds the numbered SQL files that build the database
// schema, embedded in the binary so a fresh server creates its own database.
// Files are named NNNN_what.sql and applied in number order, each once.
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS
