package collab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A ChangeSet's JSON (CodeMirror's ChangeSet.toJSON) is an array of parts
// that walk the old document from its start: a number n keeps the next n
// UTF-16 code units; an array [n] deletes the next n; [n, line1, line2, ...]
// replaces the next n with the lines joined by "\n". The lengths of all
// parts add up to the old document's length.

// part is one decoded section of a change set.
type part struct {
	length int      // code units of the old document it covers
	keep   bool     // a plain number: keep them
	lines  []string // the inserted text's lines; none for a keep or a pure deletion
}

// Changes is a decoded change set, checked for shape but not yet against a
// document.
type Changes struct{ parts []part }

// Len is the length, in UTF-16 code units, of the document the changes
// apply to.
func (c Changes) Len() int {
	n := 0
	for _, p := range c.parts {
		n += p.length
	}
	return n
}

// NewLen is the length of the document the changes produce.
func (c Changes) NewLen() int {
	n := 0
	for _, p := range c.parts {
		if p.keep {
			n += p.length
			continue
		}
		n += insertedLen(p.lines)
	}
	return n
}

// Empty reports whether the changes leave every document as it was.
func (c Changes) Empty() bool {
	for _, p := range c.parts {
		if !p.keep && (p.length > 0 || insertedLen(p.lines) > 0) {
			return false
		}
	}
	return true
}

func insertedLen(lines []string) int {
	if len(lines) == 0 {
		return 0
	}
	n := len(lines) - 1 // the "\n" between lines
	for _, l := range lines {
		n += utf16Len(l)
	}
	return n
}

// ParseChanges decodes a change set's JSON. It refuses what CodeMirror's
// ChangeSet.fromJSON refuses, and also negative or fractional lengths,
// inserted lines holding a line break (CodeMirror splits inserted text into
// lines, so a real client never sends one, and a document holding one
// would count its lines differently from the editors), text that is not
// valid UTF-8 and lone UTF-16 surrogates (which Go's JSON decoder would
// silently turn into U+FFFD, making the server's text differ from the
// editors').
func ParseChanges(raw json.RawMessage) (Changes, error) {
	if !utf8.Valid(raw) {
		return Changes{}, fmt.Errorf("collab: changes are not valid UTF-8")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return Changes{}, fmt.Errorf("collab: changes must be a JSON array of parts: %s", shortJSON(raw))
	}
	c := Changes{parts: make([]part, 0, len(items))}
	for i, item := range items {
		p, err := parsePart(item)
		if err != nil {
			return Changes{}, fmt.Errorf("collab: changes part %d: %w", i, err)
		}
		c.parts = append(c.parts, p)
	}
	return c, nil
}

func parsePart(item json.RawMessage) (part, error) {
	item = bytes.TrimSpace(item)
	if len(item) > 0 && item[0] != '[' {
		n, err := parseLength(item)
		if err != nil {
			return part{}, err
		}
		return part{length: n, keep: true}, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(item, &elems); err != nil || len(elems) == 0 {
		return part{}, fmt.Errorf("want a length or [length, lines...], got %s", shortJSON(item))
	}
	n, err := parseLength(elems[0])
	if err != nil {
		return part{}, err
	}
	p := part{length: n}
	for j, e := range elems[1:] {
		line, err := parseLine(e)
		if err != nil {
			return part{}, fmt.Errorf("inserted line %d: %w", j, err)
		}
		p.lines = append(p.lines, line)
	}
	return p, nil
}

// parseLength accepts a non-negative integer that fits in an int.
func parseLength(raw json.RawMessage) (int, error) {
	var f json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return 0, fmt.Errorf("want a length (a number), got %s", shortJSON(raw))
	}
	n, err := f.Int64()
	if err != nil || n < 0 || n > maxLength {
		return 0, fmt.Errorf("want a length from 0 to %d, got %s", maxLength, shortJSON(raw))
	}
	return int(n), nil
}

// maxLength bounds a single length so that sums of a few of them cannot
// overflow; real lengths are far below MaxDocLength anyway.
const maxLength = 1 << 40

func parseLine(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", fmt.Errorf("want a string, got %s", shortJSON(raw))
	}
	if err := checkSurrogates(raw); err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("want a string, got %s", shortJSON(raw))
	}
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return "", fmt.Errorf("holds a line break at byte %d (lines are separate strings)", i)
	}
	return s, nil
}

// checkSurrogates refuses \u escapes of UTF-16 surrogates that do not form
// a pair. raw is a JSON string literal, quotes included.
func checkSurrogates(raw []byte) error {
	isHigh := func(v int) bool { return v >= 0xD800 && v <= 0xDBFF }
	isLow := func(v int) bool { return v >= 0xDC00 && v <= 0xDFFF }
	escape := func(i int) (int, bool) { // the value of a \uXXXX at raw[i:]
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		v := 0
		for _, c := range raw[i+2 : i+6] {
			switch {
			case c >= '0' && c <= '9':
				v = v*16 + int(c-'0')
			case c >= 'a' && c <= 'f':
				v = v*16 + int(c-'a') + 10
			case c >= 'A' && c <= 'F':
				v = v*16 + int(c-'A') + 10
			default:
				return 0, false
			}
		}
		return v, true
	}
	for i := 1; i < len(raw)-1; i++ {
		if raw[i] != '\\' {
			continue
		}
		v, ok := escape(i)
		if !ok {
			i++ // another escape: skip the escaped character
			continue
		}
		switch {
		case isHigh(v):
			if w, ok := escape(i + 6); ok && isLow(w) {
				i += 11
				continue
			}
			return fmt.Errorf("holds a lone UTF-16 surrogate \\u%04x", v)
		case isLow(v):
			return fmt.Errorf("holds a lone UTF-16 surrogate \\u%04x", v)
		}
		i += 5
	}
	return nil
}

// ApplyChanges applies a CodeMirror change set, as JSON, to doc and returns
// the new document. Positions and lengths count UTF-16 code units, as in
// the editor; the change set must cover exactly the document's length, and
// no part may end inside a character that takes two code units. doc is in
// CodeMirror's form: lines joined by "\n" (see NormalizeNewlines).
func ApplyChanges(doc string, changes json.RawMessage) (string, error) {
	c, err := ParseChanges(changes)
	if err != nil {
		return "", err
	}
	return c.Apply(doc)
}

// Apply applies the changes to doc; see ApplyChanges.
func (c Changes) Apply(doc string) (string, error) {
	var out strings.Builder
	out.Grow(len(doc))
	at, pos := 0, 0 // byte offset in doc, and the same place in code units
	for i, p := range c.parts {
		end, ok := advance(doc, at, p.length)
		if !ok {
			if end < 0 {
				return "", fmt.Errorf("collab: changes part %d ends inside a character of two UTF-16 code units, at %d", i, pos+p.length)
			}
			return "", fmt.Errorf("collab: changes are for a document of %d UTF-16 code units, but this one has %d", c.Len(), utf16Len(doc))
		}
		if p.keep {
			out.WriteString(doc[at:end])
		} else {
			for j, line := range p.lines {
				if j > 0 {
					out.WriteByte('\n')
				}
				out.WriteString(line)
			}
		}
		at, pos = end, pos+p.length
	}
	if at != len(doc) {
		return "", fmt.Errorf("collab: changes are for a document of %d UTF-16 code units, but this one has %d", c.Len(), utf16Len(doc))
	}
	return out.String(), nil
}

// advance moves n UTF-16 code units forward from byte offset at. It
// returns the new byte offset and true, or false with -1 when the end falls
// between the two halves of a surrogate pair, or false with 0 when doc ends
// first.
func advance(doc string, at, n int) (int, bool) {
	for n > 0 {
		if at >= len(doc) {
			return 0, false
		}
		if doc[at] < utf8.RuneSelf { // ASCII, most of any Go source
			n--
			at++
			continue
		}
		r, size := utf8.DecodeRuneInString(doc[at:])
		units := 1
		if r >= 0x10000 {
			units = 2
		}
		if units > n {
			return -1, false
		}
		n -= units
		at += size
	}
	return at, true
}

// utf16Len is the length of s in UTF-16 code units, as JavaScript counts
// it. Invalid UTF-8 counts one unit a byte, as U+FFFD would.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// Length is the length of doc as CodeMirror counts it: UTF-16 code units.
func Length(doc string) int { return utf16Len(doc) }

// NormalizeNewlines turns "\r\n" and lone "\r" into "\n", as CodeMirror
// does when it splits a document into lines: the server's text must count
// the same code units as the editors' text.
func NormalizeNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// shortJSON quotes the start of raw for an error message.
func shortJSON(raw []byte) string {
	const max = 40
	if len(raw) > max {
		return string(raw[:max]) + "..."
	}
	if len(raw) == 0 {
		return "nothing"
	}
	return string(raw)
}

// MapPos maps a position of the document the changes apply to into the
// document they produce, as CodeMirror's ChangeSet.mapPos(pos) (its
// default, assoc -1): a position where text is inserted stays before it,
// one inside a replaced range goes to the range's start, and one at the
// end of a replaced range goes after its replacement. A position outside
// the document is clamped to it. Replay uses it to carry a participant's
// cursor from the version it was reported at to a later one.
func (c Changes) MapPos(pos int) int {
	pos = min(max(pos, 0), c.Len())
	a, b := 0, 0 // where the part starts in the old document and the new
	for _, p := range c.parts {
		end := a + p.length
		if p.keep {
			if end > pos {
				return b + pos - a
			}
			b += p.length
		} else {
			if end > pos || end == pos && p.length == 0 {
				return b
			}
			b += insertedLen(p.lines)
		}
		a = end
	}
	return b
}
