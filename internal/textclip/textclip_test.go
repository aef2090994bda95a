package textclip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBytes(t *testing.T) {
	tests := []struct {
		name string
		s    string
		max  int
		want string
	}{
		{"short enough", "seq", 10, "seq"},
		{"exactly", "abcde", 5, "abcde"},
		{"ASCII", "abcdef", 4, "abcd…"},
		{"inside a two-byte rune", "aéé", 2, "a…"}, // é is 2 bytes: a|é|é
		{"after a two-byte rune", "aéé", 3, "aé…"},
		{"inside a four-byte rune", "ab🙂c", 4, "ab…"},
		{"inside CJK", "日本語", 7, "日本…"},
		{"before a combining mark", "xe\u0301e\u0301", 2, "x…"}, // e + combining acute stays whole
		{"after the combining mark", "xe\u0301e\u0301", 4, "xe\u0301…"},
		{"skin tone kept with its hand", "a👋🏽b", 5, "a…"},
		{"joiner sequence kept whole", "a👩\u200d💻", 8, "a…"},
		{"flag not halved", "a🇫🇷🇩🇪", 9, "a🇫🇷…"},
		{"invalid UTF-8 made valid", "a\xffb", 10, "a\ufffdb"},
		{"invalid UTF-8 then cut", "\xff\xff\xffabc", 4, "\ufffda…"}, // one U+FFFD per run of bad bytes
		{"zero", "abc", 0, "…"},
		{"a flood of marks is still cut", "a" + strings.Repeat("\u0301", 100), 11, "a" + strings.Repeat("\u0301", 5) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Bytes(tt.s, tt.max, "…")
			if got != tt.want {
				t.Errorf("Bytes(%q, %d) = %q; want %q", tt.s, tt.max, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Bytes(%q, %d) = %q: not valid UTF-8", tt.s, tt.max, got)
			}
		})
	}
}

// TestBytesNeverBreaksUTF8 cuts mixed text at every length.
func TestBytesNeverBreaksUTF8(t *testing.T) {
	s := "héllo 日本 🙂 e\u0301 👩\u200d💻 🇫🇷 \xff end"
	for n := 0; n <= len(s)+1; n++ {
		got := Bytes(s, n, "")
		if !utf8.ValidString(got) {
			t.Fatalf("Bytes(s, %d) = %q: not valid UTF-8", n, got)
		}
		if len(got) > n && n < len(strings.ToValidUTF8(s, "\uFFFD")) {
			t.Fatalf("Bytes(s, %d) = %q: %d bytes, over the limit", n, got, len(got))
		}
	}
}

func TestWholeRunes(t *testing.T) {
	tests := []struct{ b, head, tail string }{
		{"", "", ""},
		{"abc", "abc", "abc"},
		{"aé", "aé", "aé"},
		{"a\xc3", "a", "a\xc3"},                 // é cut after its first byte
		{"\xa9b", "\xa9b", "b"},                 // é's second byte left at the start
		{"x\xf0\x9f\x99", "x", "x\xf0\x9f\x99"}, // 🙂 missing its last byte
		{"\x9f\x99\x82y", "\x9f\x99\x82y", "y"},
		{"\xff", "\xff", "\xff"}, // not a piece of a character: left alone
	}
	for _, tt := range tests {
		if got := string(WholeRunesHead([]byte(tt.b))); got != tt.head {
			t.Errorf("WholeRunesHead(%q) = %q; want %q", tt.b, got, tt.head)
		}
		if got := string(WholeRunesTail([]byte(tt.b))); got != tt.tail {
			t.Errorf("WholeRunesTail(%q) = %q; want %q", tt.b, got, tt.tail)
		}
	}
}
