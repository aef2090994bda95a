package problems

import (
	"io/fs"
	"regexp"
	"testing"

	"github.com/alecthomas/chroma/v2"

	"github.com/faultline-dev/faultline/content"
)

// pythonSample has one of each thing pythonTokens knows.
const pythonSample = `"""Module docstring."""
import os.path as p, sys
from collections import abc

@dataclass
class Refund(Base):
    def __init__(self, amount: int = 0x1F) -> None:
        '''Doc.'''
        self.amount = amount * 1.5e3  # a comment
        x = rb'raw\n' + f"{amount!r} and {{braces}}" + "esc\"aped"
        if x is not None and len(x) != 0:
            raise ValueError("bad")
        return [i for i in range(3)] @ y
`

func TestPythonTokens(t *testing.T) {
	type tok = chroma.Token
	tests := []struct {
		name, code string
		want       []tok
	}{
		{"def and builtin", "def f(x: str):", []tok{
			{Type: chroma.Keyword, Value: "def"}, {Type: chroma.Text, Value: " "}, {Type: chroma.NameFunction, Value: "f"},
			{Type: chroma.Punctuation, Value: "("}, {Type: chroma.Name, Value: "x"}, {Type: chroma.Punctuation, Value: ":"},
			{Type: chroma.Text, Value: " "}, {Type: chroma.NameBuiltin, Value: "str"}, {Type: chroma.Punctuation, Value: "):"}}},
		{"class", "class A:", []tok{
			{Type: chroma.Keyword, Value: "class"}, {Type: chroma.Text, Value: " "}, {Type: chroma.NameClass, Value: "A"},
			{Type: chroma.Punctuation, Value: ":"}}},
		{"magic method", "def __init__", []tok{
			{Type: chroma.Keyword, Value: "def"}, {Type: chroma.Text, Value: " "}, {Type: chroma.NameFunctionMagic, Value: "__init__"}}},
		{"attribute is not a builtin", "x.list", []tok{
			{Type: chroma.Name, Value: "x"}, {Type: chroma.Operator, Value: "."}, {Type: chroma.Name, Value: "list"}}},
		{"constants and operator words", "None is not True", []tok{
			{Type: chroma.KeywordConstant, Value: "None"}, {Type: chroma.Text, Value: " "}, {Type: chroma.OperatorWord, Value: "is"},
			{Type: chroma.Text, Value: " "}, {Type: chroma.OperatorWord, Value: "not"}, {Type: chroma.Text, Value: " "},
			{Type: chroma.KeywordConstant, Value: "True"}}},
		{"comment", "x  # note", []tok{
			{Type: chroma.Name, Value: "x"}, {Type: chroma.Text, Value: "  "}, {Type: chroma.CommentSingle, Value: "# note"}}},
		{"strings", `'a' "b\n" r"\d"`, []tok{
			{Type: chroma.LiteralStringSingle, Value: "'a'"}, {Type: chroma.Text, Value: " "},
			{Type: chroma.LiteralStringDouble, Value: `"b`}, {Type: chroma.LiteralStringEscape, Value: `\n`},
			{Type: chroma.LiteralStringDouble, Value: `"`}, {Type: chroma.Text, Value: " "},
			{Type: chroma.LiteralStringAffix, Value: "r"}, {Type: chroma.LiteralStringDouble, Value: `"\d"`}}},
		{"f-string field", `f"{x}!"`, []tok{
			{Type: chroma.LiteralStringAffix, Value: "f"}, {Type: chroma.LiteralStringDouble, Value: `"`},
			{Type: chroma.LiteralStringInterpol, Value: "{x}"}, {Type: chroma.LiteralStringDouble, Value: `!"`}}},
		{"docstring", "    \"\"\"a\nb\"\"\"\n", []tok{
			{Type: chroma.Text, Value: "    "}, {Type: chroma.LiteralStringDouble, Value: "\"\"\"a\nb\"\"\""}, {Type: chroma.Text, Value: "\n"}}},
		{"triple-quoted value", "x = '''a\nb'''", []tok{
			{Type: chroma.Name, Value: "x"}, {Type: chroma.Text, Value: " "}, {Type: chroma.Operator, Value: "="},
			{Type: chroma.Text, Value: " "}, {Type: chroma.LiteralStringSingle, Value: "'''a\nb'''"}}},
		{"numbers", "1 2.5 0x1f 1e9 3j", []tok{
			{Type: chroma.LiteralNumberInteger, Value: "1"}, {Type: chroma.Text, Value: " "},
			{Type: chroma.LiteralNumberFloat, Value: "2.5"}, {Type: chroma.Text, Value: " "},
			{Type: chroma.LiteralNumberHex, Value: "0x1f"}, {Type: chroma.Text, Value: " "},
			{Type: chroma.LiteralNumberFloat, Value: "1e9"}, {Type: chroma.Text, Value: " "},
			{Type: chroma.LiteralNumberInteger, Value: "3j"}}},
		{"decorator", "@app.route\n", []tok{
			{Type: chroma.NameDecorator, Value: "@app.route"}, {Type: chroma.Text, Value: "\n"}}},
		{"import", "from a.b import c\nimport d as e", []tok{
			{Type: chroma.KeywordNamespace, Value: "from"}, {Type: chroma.Text, Value: " "}, {Type: chroma.NameNamespace, Value: "a.b"},
			{Type: chroma.Text, Value: " "}, {Type: chroma.KeywordNamespace, Value: "import"}, {Type: chroma.Text, Value: " "},
			{Type: chroma.Name, Value: "c"}, {Type: chroma.Text, Value: "\n"},
			{Type: chroma.KeywordNamespace, Value: "import"}, {Type: chroma.Text, Value: " "}, {Type: chroma.NameNamespace, Value: "d"},
			{Type: chroma.Text, Value: " "}, {Type: chroma.Keyword, Value: "as"}, {Type: chroma.Text, Value: " "},
			{Type: chroma.NameNamespace, Value: "e"}}},
		{"exception and pseudo", "raise KeyError(self)", []tok{
			{Type: chroma.Keyword, Value: "raise"}, {Type: chroma.Text, Value: " "}, {Type: chroma.NameException, Value: "KeyError"},
			{Type: chroma.Punctuation, Value: "("}, {Type: chroma.NameBuiltinPseudo, Value: "self"}, {Type: chroma.Punctuation, Value: ")"}}},
		{"unknown characters are text", "a $ b", []tok{
			{Type: chroma.Name, Value: "a"}, {Type: chroma.Text, Value: " $ "}, {Type: chroma.Name, Value: "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pythonTokens(tt.code)
			if !tokensEqual(got, tt.want) {
				t.Errorf("pythonTokens(%q) =\n%v\nwant\n%v", tt.code, got, tt.want)
			}
		})
	}
}

// TestPythonTokensMatchChroma: on the Python the content ships, and on a
// sample of common forms, our lexer gives chroma's Python lexer's tokens,
// so those blocks look as they did.
func TestPythonTokensMatchChroma(t *testing.T) {
	tests := map[string]string{
		"imports": "from a.b import c\nimport d as e, f\nfrom . import g\n",
		"sample":  "import os\n\n@decorator\ndef f(a, b=2):\n    \"\"\"Doc.\"\"\"\n    # comment\n    for i in range(10):\n        if a == 'x' or not b:\n            return None\n    raise ValueError(\"no\")\n\nclass C(object):\n    pass\n",
	}
	fence := regexp.MustCompile("(?s)```python\n(.*?)```")
	files, err := fs.Glob(content.FS, "problems/*/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		data, err := fs.ReadFile(content.FS, file)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range fence.FindAllStringSubmatch(string(data), -1) {
			tests[file+"#"+string(rune('0'+i))] = m[1]
		}
	}
	for name, code := range tests {
		t.Run(name, func(t *testing.T) {
			got, want := pythonTokens(code), chromaLexed(t, "python", code)
			if !tokensEqual(got, want) {
				t.Errorf("pythonTokens differs from chroma's Python lexer:\n got %v\nwant %v", got, want)
			}
		})
	}
}

func TestLexersKeepTheText(t *testing.T) {
	inputs := []string{pythonSample, yamlSample, "", "\n", "'open", `"""open`, "@", "a: 'open", "- ", "x: |\n", "世界: ü # ß", "a\r\nb: c\r\n", "\\", "0x", "1e", "f'{'"}
	for _, code := range inputs {
		if got := tokensText(pythonTokens(code)); got != code {
			t.Errorf("pythonTokens(%q) text = %q", code, got)
		}
		if got := tokensText(yamlTokens(code)); got != code {
			t.Errorf("yamlTokens(%q) text = %q", code, got)
		}
	}
}

func tokensEqual(a, b []chroma.Token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || a[i].Value != b[i].Value {
			return false
		}
	}
	return true
}
