package sandbox

// What submitted code produces that the grader reports, kept apart from the
// interpreter (internal/gointerp) so that the parent side and a native
// build of the grader's scenario engine (-tags nointerp, for the go-build
// benchmark) link no yaegi.

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/faultline-dev/faultline/internal/textclip"
)

// OutputLimit is how much a submission may print per interpreter before its
// output is cut off and flagged as truncated.
const OutputLimit = 64 << 10

// Diagnostic is a problem with submitted source, at a line and column (1-based; 0
// when unknown).
type Diagnostic struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

func (d Diagnostic) String() string {
	if d.Line == 0 {
		return d.Message
	}
	return fmt.Sprintf("line %d:%d: %s", d.Line, d.Column, d.Message)
}

// OutputBuffer keeps the first Limit bytes written to it and notes that the
// rest was cut off. It is safe for concurrent writers.
type OutputBuffer struct {
	Limit     int
	mu        sync.Mutex
	buf       bytes.Buffer
	truncated bool
}

// Write implements io.Writer; it never fails, so a flood of output cannot
// turn into an error path in the submission.
func (b *OutputBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	limit := b.Limit
	if limit <= 0 {
		limit = OutputLimit
	}
	room := limit - b.buf.Len()
	if room < len(p) {
		if room > 0 && !b.truncated {
			// A character the cut would split goes whole.
			b.buf.Write(textclip.WholeRunesHead(p[:room]))
		}
		b.truncated = true
		return len(p), nil
	}
	b.buf.Write(p)
	return len(p), nil
}

// String returns what was kept.
func (b *OutputBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Truncated reports whether output was cut off.
func (b *OutputBuffer) Truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.truncated
}
