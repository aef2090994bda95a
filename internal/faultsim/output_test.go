package faultsim

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestOutputBufferKeepsCharactersWhole writes multi-byte text past the
// limit: the cut never leaves half a character.
func TestOutputBufferKeepsCharactersWhole(t *testing.T) {
	text := strings.Repeat("é日🙂", 4000) // 9 bytes a round, so the limits fall inside characters
	for _, limit := range []int{1, 2, 3, 10, 100, 1001} {
		b := &OutputBuffer{Limit: limit}
		for _, piece := range []string{text[:5], text[5:30], text[30:]} {
			b.Write([]byte(piece))
		}
		got := b.String()
		if !utf8.ValidString(got) || len(got) > limit || !strings.HasPrefix(text, got) || !b.Truncated() {
			t.Errorf("limit %d: kept %q (truncated %v); want a prefix of whole characters", limit, got, b.Truncated())
		}
		if len(got) < limit-utf8.UTFMax {
			t.Errorf("limit %d: kept only %d bytes", limit, len(got))
		}
	}
}
