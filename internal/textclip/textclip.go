// Package textclip shortens text for messages and reports without breaking
// it: a cut never lands inside a UTF-8 sequence, nor between a character
// and the marks, joiners or modifiers that belong to it, and what comes out
// is always valid UTF-8 (a value quoted in a message may come from anyone).
package textclip

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxBackOff bounds how many runes a cut steps back to keep a character
// whole: a real character with its marks is a few runes; a run of
// hundreds of combining marks is abuse, and is cut at a rune boundary.
const maxBackOff = 16

// Bytes returns s when it is at most maxBytes long, else its longest
// prefix of at most maxBytes bytes that ends between two characters,
// followed by more (such as "…"). Invalid UTF-8 in s becomes U+FFFD
// first, so the result is always valid.
func Bytes(s string, maxBytes int, more string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxBytes {
		return s
	}
	return s[:cutAt(s, max(maxBytes, 0))] + more
}

// cutAt is the end of the prefix Bytes keeps: at most n, at a rune
// boundary, and not splitting a character from what extends it.
func cutAt(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	boundary := n
	for i := 0; n > 0 && i < maxBackOff; i++ {
		next, _ := utf8.DecodeRuneInString(s[n:])
		last, size := utf8.DecodeLastRuneInString(s[:n])
		if !extends(next) && last != zeroWidthJoiner {
			break
		}
		n -= size
	}
	if n == 0 || utf8.RuneCountInString(s[n:boundary]) >= maxBackOff {
		n = boundary
	}
	// A flag is a pair of regional indicators; half of one shows as a
	// stray letter.
	if pairs := trailingRegionalIndicators(s[:n]); pairs%2 == 1 {
		_, size := utf8.DecodeLastRuneInString(s[:n])
		n -= size
	}
	return n
}

const zeroWidthJoiner = '\u200d'

// extends reports whether r belongs to the character before it.
func extends(r rune) bool {
	return r == zeroWidthJoiner ||
		unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc, unicode.Variation_Selector) ||
		(r >= 0x1F3FB && r <= 0x1F3FF) // skin-tone modifiers
}

func trailingRegionalIndicators(s string) int {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if r < 0x1F1E6 || r > 0x1F1FF {
			break
		}
		n++
		s = s[:len(s)-size]
	}
	return n
}

// WholeRunesHead is b less a UTF-8 sequence cut short at its end: what is
// left of a byte stream kept up to a byte count.
func WholeRunesHead(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// WholeRunesTail is b less the continuation bytes at its start: what is
// left of a byte stream kept from a byte count on.
func WholeRunesTail(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}
