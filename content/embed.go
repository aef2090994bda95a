// Package content embeds Faultline's interview content (problems, question
// sets, screens and the format guide) so the server binary carries it. The
// format is described in README.md; internal/problems loads it.
package content

import "embed"

// FS holds README.md and the problems, sets and screens folders, with the
// Go starter and reference files of code problems. Paths are relative to
// this folder, e.g. "problems/async-refund/problem.md".
//
//go:embed README.md problems sets screens
var FS embed.FS
