package sandbox

import (
	"bytes"
	"sync"

	"github.com/faultline-dev/faultline/internal/textclip"
)

// tailBytes is how much of the end of a capped stream is kept besides its
// head: a crash message printed after a flood of output is still seen.
const tailBytes = 4 << 10

// cappedBuffer keeps the first limit bytes written to it and the last
// tailBytes, and counts the rest. Writes never fail, so a child flooding
// its output never blocks on us or sees an error it could react to.
type cappedBuffer struct {
	mu    sync.Mutex
	limit int
	head  []byte
	tail  []byte // ring of the most recent bytes once head is full
	total int64
}

func newCappedBuffer(limit int) *cappedBuffer {
	return &cappedBuffer{limit: limit}
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	rest := p
	if room := b.limit - len(b.head); room > 0 {
		n := min(room, len(rest))
		b.head = append(b.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		b.tail = append(b.tail, rest...)
		if over := len(b.tail) - tailBytes; over > 0 {
			b.tail = append(b.tail[:0], b.tail[over:]...)
		}
	}
	return len(p), nil
}

// Truncated reports whether more was written than was kept.
func (b *cappedBuffer) Truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total > int64(len(b.head)+len(b.tail))
}

// Bytes returns what was kept: the head, and when more was written, a
// marker and the tail.
func (b *cappedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out bytes.Buffer
	if b.total == int64(len(b.head)+len(b.tail)) {
		// Nothing was dropped: the tail goes on where the head stops.
		out.Write(b.head)
		out.Write(b.tail)
		return out.Bytes()
	}
	// The cuts fall wherever the byte counts do; a character they split
	// would show as garbage, so its pieces go.
	out.Write(textclip.WholeRunesHead(b.head))
	out.WriteString("\n[... output truncated ...]\n")
	out.Write(textclip.WholeRunesTail(b.tail))
	return out.Bytes()
}
