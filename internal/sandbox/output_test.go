package sandbox

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCappedOutputKeepsCharactersWhole writes multi-byte text past the
// caps: the cuts never leave half a character, and output that fits is
// kept byte for byte.
func TestCappedOutputKeepsCharactersWhole(t *testing.T) {
	text := strings.Repeat("é日🙂", 4000) // 9 bytes a round, so the caps fall inside characters
	t.Run("cappedBuffer", func(t *testing.T) {
		for _, limit := range []int{1, 1000, 1001, 1002} {
			b := newCappedBuffer(limit)
			for i := 0; i < len(text); i += 7 { // writes split characters too
				b.Write([]byte(text[i:min(i+7, len(text))]))
			}
			got := string(b.Bytes())
			head, tail, ok := strings.Cut(got, "\n[... output truncated ...]\n")
			if !ok || !utf8.ValidString(head) || !utf8.ValidString(tail) || !strings.HasPrefix(text, head) || !strings.HasSuffix(text, tail) {
				t.Errorf("limit %d: kept head %q and tail of %d bytes (valid %v); want whole characters", limit, head, len(tail), utf8.ValidString(tail))
			}
		}
	})
	t.Run("cappedBuffer that is not full", func(t *testing.T) {
		b := newCappedBuffer(3)
		b.Write([]byte("aé🙂"))
		if got := string(b.Bytes()); got != "aé🙂" {
			t.Errorf("kept %q; want it all", got)
		}
	})
}
