package faultsim

// What a call of the submission prints, which the report shows.

import (
	"bytes"
	"sync"

	"github.com/faultline-dev/faultline/internal/textclip"
)

// OutputLimit is how much a scenario's report keeps of what the
// submission printed before its output is cut off and flagged as
// truncated (a call keeps a quarter of it).
const OutputLimit = 64 << 10

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
