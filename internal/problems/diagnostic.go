package problems

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Diagnostic is one problem found in content, with the file (relative to the
// content root, e.g. "problems/async-refund/problem.md") and the 1-based line
// it is on. Line 0 means the problem concerns the whole file.
type Diagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
	// Warning: the content works, but something in it is likely not what
	// its author meant (a scripted fault that never fires); lint prints
	// it and still passes.
	Warning bool `json:"warning,omitempty"`
}

// String formats the diagnostic as "file:line: message", the form editors and
// terminals recognise as a location.
func (d Diagnostic) String() string {
	msg := d.Message
	if d.Warning {
		msg = "warning: " + msg
	}
	if d.Line <= 0 {
		return d.File + ": " + msg
	}
	return fmt.Sprintf("%s:%d: %s", d.File, d.Line, msg)
}

// ContentError is the error Load returns when content is invalid. It holds
// every diagnostic from every file, sorted by file and line, so an author can
// fix them all in one pass.
type ContentError struct {
	Diagnostics []Diagnostic
}

// Error lists every diagnostic, one a line.
func (e *ContentError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "problems: %d content error", len(e.Diagnostics))
	if len(e.Diagnostics) != 1 {
		b.WriteString("s")
	}
	b.WriteString(":")
	for _, d := range e.Diagnostics {
		b.WriteString("\n")
		b.WriteString(d.String())
	}
	return b.String()
}

// diagnostics collects content errors while loading.
type diagnostics struct {
	list []Diagnostic
}

func (ds *diagnostics) add(file string, line int, format string, args ...any) {
	ds.list = append(ds.list, Diagnostic{File: file, Line: line, Message: fmt.Sprintf(format, args...)})
}

// sorted returns the diagnostics ordered by file, then line; diagnostics on
// the same line keep the order they were found in.
func (ds *diagnostics) sorted() []Diagnostic {
	out := slices.Clone(ds.list)
	slices.SortStableFunc(out, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return out
}
