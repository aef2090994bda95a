package problems

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"

	"github.com/faultline-dev/faultline/content"
)

// chromaGoHTML highlights with chroma's own Go lexer, the reference the fast
// path must match.
func chromaGoHTML(t testing.TB, code string) string {
	t.Helper()
	// goldmark-highlighting coalesces the lexer; so does this reference.
	it, err := chroma.Coalesce(lexers.Get("go")).Tokenise(nil, code)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := chromahtml.New(chromaFormatOptions()...).Format(&buf, styles.Get(HighlightStyle), it); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// goSample covers each rule of chroma's Go lexer. It leaves out the two
// places where the fast path knowingly differs: 0o17 (chroma splits it into
// 0 and a name) and an unterminated string (chroma marks the quote as an
// error; the fast path shows the rest of the line as the string).
const goSample = "//go:build linux\n\n// Package x is a sample.\npackage x\n\nimport (\n\t\"context\"\n\tfmt \"fmt\"\n)\n\n/* block\n   comment */\nconst (\n\tA = iota\n\tB = 0x1F + 0b101 + 017 + 1_000\n\tC = 1.5e3 + .5 + 2i\n)\n\ntype T struct {\n\tm   map[string]chan<- int\n\tany any\n}\n\nfunc (t *T) Do(ctx context.Context, xs ...int) (n int, err error) {\n\tdefer func() { recover() }()\n\tfor i := range xs {\n\t\tn += xs[i] << 2\n\t\tn &^= 1\n\t\tif n >= 10 && !false || n != 3 {\n\t\t\tcontinue\n\t\t}\n\t}\n\tvar r rune = 'x' + '\\n'\n\ts := `raw\nstring` + \"esc\\\"aped\"\n\tb := []byte(s)\n\t_ = len (b)\n\tswitch v := any(r).(type) {\n\tcase int:\n\t\tgo fmt.Println(v, nil, true)\n\t}\n\treturn int(r) % 2, error(nil)\n}\n"

func TestGoTokensMatchChroma(t *testing.T) {
	tests := map[string]string{
		"sample":              goSample,
		"fragment":            "for i := 0; i < 3; i++ {\n\tif err != nil {\n\t\tcontinue\n\t}\n}\n",
		"carriage returns":    "// a\r\nx := 1\r\n",
		"no trailing newline": "return nil",
	}
	// The shipped code files are the text this path highlights in practice.
	files, err := fs.Glob(content.FS, "problems/*/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		data, err := fs.ReadFile(content.FS, file)
		if err != nil {
			t.Fatal(err)
		}
		tests[file] = string(data)
	}
	for name, code := range tests {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := formatCode(&buf, "go", code); err != nil {
				t.Fatal(err)
			}
			if got, want := buf.String(), chromaGoHTML(t, code); got != want {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("fast Go highlighting differs from chroma's Go lexer at byte %d:\n got …%s\nwant …%s", i, got[max(i-60, 0):min(i+60, len(got))], want[max(i-60, 0):min(i+60, len(want))])
			}
		})
	}
}

// TestGoTokensKeepTheText checks that highlighting never loses or adds a
// byte, whatever the input.
func TestGoTokensKeepTheText(t *testing.T) {
	for _, code := range []string{goSample, "", "\n", "`unterminated", "/* open", "x := '", "@#$ 世界 ü", "a\r\nb"} {
		var sb strings.Builder
		for _, tok := range goTokens(code) {
			sb.WriteString(tok.Value)
		}
		if sb.String() != code {
			t.Errorf("tokens of %q join to %q", code, sb.String())
		}
	}
}
