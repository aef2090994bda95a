package problems

import (
	"go/scanner"
	"go/token"
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// goTokens splits Go source into chroma tokens with go/scanner. Chroma's own
// Go lexer is a list of backtracking regular expressions and took about
// 3 ms per kilobyte, three quarters of loading the shipped content; the
// standard scanner does the same job in microseconds. The token types follow
// chroma's Go lexer rule for rule, so the output carries the same CSS classes.
// It works on fragments too (a few statements in a Markdown code block),
// since it only lexes and never parses.
func goTokens(src string) []chroma.Token {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	// Errors (an unterminated string in a fragment) are not ours to report
	// here: the text is still shown, as the scanner split it.
	s.Init(file, []byte(src), func(token.Position, string) {}, scanner.ScanComments)

	type lexeme struct {
		tok        token.Token
		start, end int
	}
	var lexemes []lexeme
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit != ";" {
			continue // inserted at a newline or the end, not in the text
		}
		start := file.Offset(pos)
		text := lit
		if text == "" {
			text = tok.String()
		}
		end := min(start+len(text), len(src))
		if tok == token.COMMENT || tok == token.STRING {
			// The scanner drops carriage returns from comment and raw
			// string literals; measure them in the source instead.
			end = literalEnd(src, start, tok)
		}
		lexemes = append(lexemes, lexeme{tok, start, end})
	}

	var out []chroma.Token
	emit := func(typ chroma.TokenType, value string) {
		if value == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].Type == typ {
			out[n-1].Value += value
			return
		}
		out = append(out, chroma.Token{Type: typ, Value: value})
	}
	prev := 0
	for i, lx := range lexemes {
		if lx.start < prev {
			continue
		}
		emit(chroma.TextWhitespace, src[prev:lx.start])
		text := src[lx.start:lx.end]
		var next token.Token = token.EOF
		nextAdjacent := false
		if i+1 < len(lexemes) {
			next = lexemes[i+1].tok
			nextAdjacent = lexemes[i+1].start == lx.end
		}
		emit(goTokenType(lx.tok, text, next, nextAdjacent), text)
		prev = lx.end
	}
	emit(chroma.TextWhitespace, src[prev:])
	return out
}

// literalEnd finds the end of a comment or string literal starting at start.
func literalEnd(src string, start int, tok token.Token) int {
	rest := src[start:]
	switch {
	case tok == token.COMMENT && strings.HasPrefix(rest, "//"):
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			return start + i
		}
		return len(src)
	case tok == token.COMMENT:
		if i := strings.Index(rest[2:], "*/"); i >= 0 {
			return start + 2 + i + 2
		}
		return len(src)
	case strings.HasPrefix(rest, "`"):
		if i := strings.IndexByte(rest[1:], '`'); i >= 0 {
			return start + 1 + i + 1
		}
		return len(src)
	default: // an interpreted string: the scanner's literal is exact
		var s scanner.Scanner
		fset := token.NewFileSet()
		f := fset.AddFile("", fset.Base(), len(rest))
		s.Init(f, []byte(rest), func(token.Position, string) {}, 0)
		_, _, lit := s.Scan()
		return start + len(lit)
	}
}

var (
	goNamespaceKeywords   = map[string]bool{"import": true, "package": true}
	goDeclarationKeywords = map[string]bool{"var": true, "func": true, "struct": true, "map": true, "chan": true, "type": true, "interface": true, "const": true}
	goConstants           = map[string]bool{"true": true, "false": true, "iota": true, "nil": true}
	goBuiltinTypes        = map[string]bool{
		"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
		"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
		"float": true, "float32": true, "float64": true, "complex64": true, "complex128": true,
		"byte": true, "rune": true, "string": true, "bool": true, "error": true, "uintptr": true,
	}
	goBuiltinFuncs = map[string]bool{
		"print": true, "println": true, "panic": true, "recover": true, "close": true,
		"complex": true, "real": true, "imag": true, "len": true, "cap": true, "append": true,
		"copy": true, "delete": true, "new": true, "make": true, "clear": true, "min": true, "max": true,
	}
	// goOperators are the tokens chroma's Go lexer calls operators; the
	// rest of the punctuation (=, <, !, brackets, ...) it calls punctuation.
	goOperators = map[token.Token]bool{
		token.SHL_ASSIGN: true, token.SHR_ASSIGN: true, token.SHL: true, token.SHR: true,
		token.LEQ: true, token.GEQ: true, token.AND_NOT_ASSIGN: true, token.AND_NOT: true,
		token.ADD_ASSIGN: true, token.SUB_ASSIGN: true, token.MUL_ASSIGN: true, token.QUO_ASSIGN: true,
		token.REM_ASSIGN: true, token.AND_ASSIGN: true, token.OR_ASSIGN: true, token.LAND: true,
		token.LOR: true, token.ARROW: true, token.INC: true, token.DEC: true, token.EQL: true,
		token.NEQ: true, token.DEFINE: true, token.ELLIPSIS: true, token.ADD: true, token.SUB: true,
		token.MUL: true, token.QUO: true, token.REM: true, token.AND: true,
	}
)

// goTokenType classifies one lexeme the way chroma's Go lexer does. next is
// the following token and nextAdjacent says whether it follows with no space
// between (chroma marks a builtin as such only when "(" follows at once).
func goTokenType(tok token.Token, text string, next token.Token, nextAdjacent bool) chroma.TokenType {
	switch {
	case tok == token.COMMENT:
		switch {
		case strings.HasPrefix(text, "/*"):
			return chroma.CommentMultiline
		case len(text) > 2 && !strings.ContainsAny(text[2:3], " \t\r\n"):
			return chroma.CommentPreproc // //go:embed and the like
		default:
			return chroma.CommentSingle
		}
	case tok == token.IDENT:
		switch {
		case goConstants[text]:
			return chroma.KeywordConstant
		case (goBuiltinTypes[text] || goBuiltinFuncs[text]) && next == token.LPAREN && nextAdjacent:
			return chroma.NameBuiltin
		case goBuiltinTypes[text] || text == "any":
			return chroma.KeywordType
		case next == token.LPAREN:
			return chroma.NameFunction
		default:
			return chroma.NameOther
		}
	case tok.IsKeyword():
		switch {
		case goNamespaceKeywords[text]:
			return chroma.KeywordNamespace
		case goDeclarationKeywords[text]:
			return chroma.KeywordDeclaration
		default:
			return chroma.Keyword
		}
	case tok == token.INT:
		lower := strings.ToLower(text)
		switch {
		case strings.HasPrefix(lower, "0x"):
			return chroma.LiteralNumberHex
		case strings.HasPrefix(lower, "0b"):
			return chroma.LiteralNumberBin
		case len(text) > 1 && text[0] == '0':
			return chroma.LiteralNumberOct
		default:
			return chroma.LiteralNumberInteger
		}
	case tok == token.FLOAT:
		return chroma.LiteralNumberFloat
	case tok == token.IMAG:
		return chroma.LiteralNumber
	case tok == token.CHAR:
		return chroma.LiteralStringChar
	case tok == token.STRING:
		return chroma.LiteralString
	case goOperators[tok]:
		return chroma.Operator
	case tok == token.ILLEGAL:
		return chroma.Error
	default:
		return chroma.Punctuation
	}
}
