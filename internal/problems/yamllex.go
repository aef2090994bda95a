package problems

import (
	"regexp"
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// yamlNumber is a plain scalar YAML reads as a number.
var yamlNumber = regexp.MustCompile(`^[-+]?(0x[0-9a-fA-F]+|0o[0-7]+|(\d[\d_]*\.?\d*|\.\d+)([eE][-+]?\d+)?|\.inf|\.Inf|\.nan|\.NaN)$`)

// yamlConstants are the plain scalars YAML 1.1 reads as booleans or null.
var yamlConstants = wordSet("true True TRUE false False FALSE yes Yes YES no No NO on On ON off Off OFF null Null NULL ~")

// yamlTokens splits YAML into chroma tokens line by line: comments, keys
// (name tags), quoted strings, numbers, booleans and null, anchors, aliases
// and tags, document markers, and the text of block scalars (| and >).
// Other values are plain literals. It never fails; what it does not know
// is text.
func yamlTokens(src string) []chroma.Token {
	var out tokenList
	blockIndent := -1 // inside a block scalar: the indent of the line that opened it
	for len(src) > 0 {
		end := strings.IndexByte(src, '\n') + 1
		if end == 0 {
			end = len(src)
		}
		line := src[:end]
		src = src[end:]
		body := strings.TrimRight(line, "\r\n")
		indent := len(body) - len(strings.TrimLeft(body, " \t"))
		if blockIndent >= 0 {
			if strings.TrimSpace(body) == "" || indent > blockIndent {
				out.emit(chroma.TextWhitespace, body[:indent])
				out.emit(chroma.LiteralStringDoc, body[indent:])
				out.emit(chroma.TextWhitespace, line[len(body):])
				continue
			}
			blockIndent = -1
		}
		if body == "---" || body == "..." || strings.HasPrefix(body, "--- ") {
			out.emit(chroma.NameNamespace, body[:3])
			yamlValue(&out, body[3:])
		} else if yamlLine(&out, body, indent) {
			blockIndent = indent
		}
		out.emit(chroma.TextWhitespace, line[len(body):])
	}
	return out
}

// yamlLine emits one line (without its line end) of block YAML: indent,
// sequence dashes, a key, then its value. It reports whether the value
// opens a block scalar.
func yamlLine(out *tokenList, line string, indent int) bool {
	out.emit(chroma.TextWhitespace, line[:indent])
	rest := line[indent:]
	for strings.HasPrefix(rest, "- ") || rest == "-" {
		out.emit(chroma.Punctuation, "-")
		rest = rest[1:]
		n := len(rest) - len(strings.TrimLeft(rest, " \t"))
		out.emit(chroma.TextWhitespace, rest[:n])
		rest = rest[n:]
	}
	if key, colon := yamlKey(rest); colon > 0 {
		out.emit(chroma.NameTag, key)
		out.emit(chroma.Punctuation, ":")
		rest = rest[colon+1:]
	}
	return yamlValue(out, rest)
}

// yamlKey finds a mapping key at the start of s: a plain or quoted scalar
// followed by ':' and a space or the end. It returns the key and the
// colon's offset, or 0 when s holds no key.
func yamlKey(s string) (string, int) {
	if s == "" || strings.ContainsRune("#[{&*!|>%@`", rune(s[0])) {
		return "", 0
	}
	i := 0
	if s[0] == '"' || s[0] == '\'' {
		i = yamlQuotedEnd(s, 0)
	}
	for ; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') {
			return s[:i], i
		}
		if s[i] == '#' && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
			return "", 0
		}
	}
	return "", 0
}

// yamlValue emits the value part of a line: scalars, flow collections
// ([a, b], {k: v}), and a trailing comment. It reports whether the value
// is a block scalar indicator (|, >-, ...).
func yamlValue(out *tokenList, s string) bool {
	block := false
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			out.emit(chroma.TextWhitespace, s[i:j])
			i = j
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			out.emit(chroma.Comment, s[i:])
			i = len(s)
		case strings.IndexByte("[]{},:?", c) >= 0:
			out.emit(chroma.Punctuation, s[i:i+1])
			i++
		case c == '"' || c == '\'':
			j := yamlQuotedEnd(s, i)
			typ := chroma.LiteralStringDouble
			if c == '\'' {
				typ = chroma.LiteralStringSingle
			}
			if j < len(s) && s[j] == ':' {
				typ = chroma.NameTag
			}
			out.emit(typ, s[i:j])
			i = j
		case c == '&' || c == '*' || c == '!':
			j := i
			for j < len(s) && strings.IndexByte(" \t,]}", s[j]) < 0 {
				j++
			}
			out.emit(chroma.CommentPreproc, s[i:j])
			i = j
		case (c == '|' || c == '>') && yamlBlockIndicator(s[i:]):
			out.emit(chroma.Punctuation, s[i:i+yamlIndicatorLen(s[i:])])
			i += yamlIndicatorLen(s[i:])
			block = true
		default:
			j := yamlPlainEnd(s, i)
			word := strings.TrimRight(s[i:j], " \t")
			typ := chroma.Literal
			switch {
			case j < len(s) && s[j] == ':' && len(word) == j-i:
				typ = chroma.NameTag
			case yamlConstants[word]:
				typ = chroma.KeywordConstant
			case yamlNumber.MatchString(word):
				typ = chroma.LiteralNumber
			}
			out.emit(typ, word)
			i += len(word)
		}
	}
	return block
}

// yamlPlainEnd is the end of the plain scalar at i: the end of the value,
// a ": " or ":" at the end, a " #" comment, or in a flow collection one of
// ",]}".
func yamlPlainEnd(s string, i int) int {
	flow := strings.ContainsAny(s[:i], "[{")
	for j := i; j < len(s); j++ {
		switch {
		case s[j] == ':' && (j+1 == len(s) || s[j+1] == ' ' || s[j+1] == '\t' || (flow && strings.IndexByte(",]}", s[j+1]) >= 0)):
			return j
		case s[j] == '#' && j > i && (s[j-1] == ' ' || s[j-1] == '\t'):
			return j
		case flow && strings.IndexByte(",]}", s[j]) >= 0:
			return j
		}
	}
	return len(s)
}

// yamlQuotedEnd is the offset just after the quoted scalar at i (or the
// end of s when it is not closed on this line). In a double-quoted scalar
// a backslash escapes; in a single-quoted one ” is a quote.
func yamlQuotedEnd(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case q == '"' && s[j] == '\\':
			j++
		case q == '\'' && s[j] == '\'' && j+1 < len(s) && s[j+1] == '\'':
			j++
		case s[j] == q:
			return j + 1
		}
	}
	return len(s)
}

// yamlBlockIndicator reports whether s is a block scalar's header: | or >,
// an optional chomping sign and indent digit, then nothing but a comment.
func yamlBlockIndicator(s string) bool {
	rest := strings.TrimSpace(s[yamlIndicatorLen(s):])
	return rest == "" || strings.HasPrefix(rest, "#")
}

func yamlIndicatorLen(s string) int {
	n := 1
	for n < len(s) && n < 3 && strings.IndexByte("+-123456789", s[n]) >= 0 {
		n++
	}
	return n
}
