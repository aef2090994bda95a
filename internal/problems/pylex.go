package problems

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// Python words by the token type chroma's Python lexer gives them, so a
// Python block keeps the classes (and colours) it had with that lexer.
var (
	pyKeywords = wordSet("async await assert break case continue del elif else except finally for " +
		"global if lambda match nonlocal pass raise return try while with yield as")
	pyConstants = wordSet("True False None")
	pyOpWords   = wordSet("in is and or not")
	pyBuiltins  = wordSet("staticmethod classmethod memoryview __import__ issubclass isinstance frozenset " +
		"bytearray enumerate reversed property compile complex delattr hasattr setattr globals getattr " +
		"divmod filter locals format object sorted slice print bytes range input tuple round super float " +
		"eval list dict repr type vars hash next bool open iter oct pow min zip max map bin len set any " +
		"dir all abs str sum chr int hex ord id")
	pyPseudo     = wordSet("self cls Ellipsis NotImplemented")
	pyExceptions = wordSet("ArithmeticError AssertionError AttributeError BaseException BlockingIOError " +
		"BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError " +
		"ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError EnvironmentError Exception " +
		"FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ImportError " +
		"ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError " +
		"KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError " +
		"NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError " +
		"ProcessLookupError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning " +
		"StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError " +
		"TimeoutError TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError " +
		"UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError")
)

func wordSet(words string) map[string]bool {
	set := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}

// pythonTokens splits Python source into chroma tokens: keywords,
// builtins, strings (prefixed, triple-quoted), comments,
// numbers, decorators, and the names after def, class, import and from.
// Anything it does not know is plain text; it never fails.
func pythonTokens(src string) []chroma.Token {
	var out tokenList
	next := "" // "def", "class", "import" or "from": what the next name is
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			out.emit(chroma.Text, "\n")
			i++
			next = ""
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			j := i
			for j < len(src) && strings.IndexByte(" \t\r\f", src[j]) >= 0 {
				j++
			}
			out.emit(chroma.Text, src[i:j])
			i = j
			continue
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			out.emit(chroma.Text, "\\\n")
			i += 2
			continue
		case c == '#':
			j := lineEnd(src, i)
			out.emit(chroma.CommentSingle, src[i:j])
			i = j
			continue
		}
		if n, prefix, quote := pyStringStart(src[i:]); n > 0 {
			j := pyStringEnd(src, i+len(prefix), quote)
			out.emit(chroma.LiteralStringAffix, prefix)
			// A docstring is a string like any other: chroma's Python
			// lexer never matched its docstring rule, and it is how the
			// blocks looked.
			pyStringBody(&out, src[i+len(prefix):j], quote, prefix)
			i = j
			continue
		}
		if isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])) {
			j, typ := pyNumber(src, i)
			out.emit(typ, src[i:j])
			i = j
			continue
		}
		if r, _ := utf8.DecodeRuneInString(src[i:]); r == '_' || unicode.IsLetter(r) {
			j := identEnd(src, i)
			word := src[i:j]
			afterDot := pyAfterDot(src, i)
			switch {
			case next == "def":
				if strings.HasPrefix(word, "__") && strings.HasSuffix(word, "__") {
					out.emit(chroma.NameFunctionMagic, word)
				} else {
					out.emit(chroma.NameFunction, word)
				}
				next = ""
			case next == "class":
				out.emit(chroma.NameClass, word)
				next = ""
			case next == "import" && word == "as":
				out.emit(chroma.Keyword, word)
			case next == "import" || (next == "from" && word != "import"):
				out.emit(chroma.NameNamespace, word)
			case word == "def" || word == "class":
				out.emit(chroma.Keyword, word)
				next = word
			case word == "import" && next == "from":
				// from a import b: b is a plain name, as chroma has it.
				out.emit(chroma.KeywordNamespace, word)
				next = ""
			case word == "import" || word == "from":
				out.emit(chroma.KeywordNamespace, word)
				next = word
			case pyKeywords[word]:
				out.emit(chroma.Keyword, word)
			case pyConstants[word]:
				out.emit(chroma.KeywordConstant, word)
			case pyOpWords[word]:
				out.emit(chroma.OperatorWord, word)
			case afterDot:
				out.emit(chroma.Name, word)
			case pyBuiltins[word]:
				out.emit(chroma.NameBuiltin, word)
			case pyPseudo[word]:
				out.emit(chroma.NameBuiltinPseudo, word)
			case pyExceptions[word]:
				out.emit(chroma.NameException, word)
			default:
				out.emit(chroma.Name, word)
			}
			i = j
			continue
		}
		if c == '@' {
			j := i + 1
			for j < len(src) {
				r, _ := utf8.DecodeRuneInString(src[j:])
				if r != '_' && r != '.' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				j = identEnd(src, j)
				if j < len(src) && src[j] == '.' {
					j++
				}
			}
			if j > i+1 {
				out.emit(chroma.NameDecorator, src[i:j])
			} else {
				out.emit(chroma.Operator, "@")
			}
			i = j
			continue
		}
		if len(src)-i >= 2 {
			switch src[i : i+2] {
			case "!=", "==", "<<", ">>", ":=":
				out.emit(chroma.Operator, src[i:i+2])
				i += 2
				continue
			}
		}
		switch {
		case strings.IndexByte("-~+/*%=<>&^|.", c) >= 0:
			if next == "import" && c == '.' {
				out.emit(chroma.NameNamespace, ".")
			} else if next == "from" && c == '.' {
				out.emit(chroma.NameNamespace, ".")
			} else {
				out.emit(chroma.Operator, src[i:i+1])
			}
			i++
		case strings.IndexByte("[]{}:(),;", c) >= 0:
			if next == "import" && c == ',' {
				out.emit(chroma.Operator, ",")
			} else {
				out.emit(chroma.Punctuation, src[i:i+1])
			}
			i++
		default:
			_, size := utf8.DecodeRuneInString(src[i:])
			out.emit(chroma.Text, src[i:i+size])
			i += size
		}
	}
	return out
}

// pyStringStart reports whether s starts a string literal, with its
// prefix (r, b, f, u, or two of them) and its quote (one or three of ' or
// "); n is the length of both, 0 when s starts no string.
func pyStringStart(s string) (n int, prefix, quote string) {
	p := 0
	for p < len(s) && p < 2 && strings.IndexByte("rRbBuUfF", s[p]) >= 0 {
		p++
	}
	if p >= len(s) || (s[p] != '"' && s[p] != '\'') {
		return 0, "", ""
	}
	q := s[p : p+1]
	if strings.HasPrefix(s[p:], q+q+q) {
		q = q + q + q
	}
	return p + len(q), s[:p], q
}

// pyStringEnd is the offset just after the string whose opening quote is
// at start, or the end of the line (or text, for a triple quote) when it
// is not closed. A backslash keeps the next character in the string, in a
// raw string too.
func pyStringEnd(src string, start int, quote string) int {
	i := start + len(quote)
	for i < len(src) {
		switch {
		case src[i] == '\\' && i+1 < len(src):
			i += 2
			continue
		case strings.HasPrefix(src[i:], quote):
			return i + len(quote)
		case src[i] == '\n' && len(quote) == 1:
			return i
		}
		i++
	}
	return len(src)
}

// pyStringBody emits a string's quotes and text as the quote's type, its
// escapes (not in a raw string) as escapes, and an f-string's {fields} as
// interpolation.
func pyStringBody(out *tokenList, body, quote, prefix string) {
	typ := chroma.LiteralStringDouble
	if quote[0] == '\'' {
		typ = chroma.LiteralStringSingle
	}
	raw := strings.ContainsAny(prefix, "rR")
	format := strings.ContainsAny(prefix, "fF")
	i, from := 0, 0
	for i < len(body) {
		switch {
		case body[i] == '\\' && !raw && i+1 < len(body):
			out.emit(typ, body[from:i])
			out.emit(chroma.LiteralStringEscape, body[i:i+2])
			i += 2
			from = i
		case format && (strings.HasPrefix(body[i:], "{{") || strings.HasPrefix(body[i:], "}}")):
			i += 2
		case format && body[i] == '{':
			end := strings.IndexByte(body[i:], '}')
			if end < 0 {
				i++
				continue
			}
			out.emit(typ, body[from:i])
			out.emit(chroma.LiteralStringInterpol, body[i:i+end+1])
			i += end + 1
			from = i
		default:
			i++
		}
	}
	out.emit(typ, body[from:])
}

// pyNumber is the end of the number at start and its token type.
func pyNumber(src string, start int) (int, chroma.TokenType) {
	i := start
	if src[i] == '0' && i+1 < len(src) {
		switch src[i+1] {
		case 'x', 'X':
			return digitsEnd(src, i+2, "0123456789abcdefABCDEF_"), chroma.LiteralNumberHex
		case 'o', 'O':
			return digitsEnd(src, i+2, "01234567_"), chroma.LiteralNumberOct
		case 'b', 'B':
			return digitsEnd(src, i+2, "01_"), chroma.LiteralNumberBin
		}
	}
	typ := chroma.LiteralNumberInteger
	i = digitsEnd(src, i, "0123456789_")
	if i < len(src) && src[i] == '.' {
		typ = chroma.LiteralNumberFloat
		i = digitsEnd(src, i+1, "0123456789_")
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			typ = chroma.LiteralNumberFloat
			i = digitsEnd(src, j, "0123456789_")
		}
	}
	if i < len(src) && (src[i] == 'j' || src[i] == 'J' || (typ == chroma.LiteralNumberInteger && (src[i] == 'l' || src[i] == 'L'))) {
		i++
	}
	return i, typ
}

func digitsEnd(src string, i int, digits string) int {
	for i < len(src) && strings.IndexByte(digits, src[i]) >= 0 {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// identEnd is the end of the identifier (letters, digits, _) at start.
func identEnd(src string, start int) int {
	i := start
	for i < len(src) {
		r, size := utf8.DecodeRuneInString(src[i:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i += size
	}
	return i
}

// pyAfterDot reports whether the name at i follows a '.', an attribute
// (obj.list is not the builtin list).
func pyAfterDot(src string, i int) bool {
	return i > 0 && src[i-1] == '.'
}

// lineEnd is the offset of the newline ending the line that holds i, or
// the end of src.
func lineEnd(src string, i int) int {
	if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(src)
}
