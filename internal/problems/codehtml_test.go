package problems

import (
	"bytes"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// chromaFormatOptions are the options of chroma's HTML formatter whose
// output writeCodeHTML reproduces: classes, and a focusable <pre>. Tests
// may link chroma's registries; the server must not.
func chromaFormatOptions() []chromahtml.Option {
	return []chromahtml.Option{chromahtml.WithClasses(true), chromahtml.WithPreWrapper(focusablePre{})}
}

// focusablePre writes chroma's <pre> (and <code>) with tabindex="0".
type focusablePre struct{}

func (focusablePre) Start(code bool, styleAttr string) string {
	if code {
		return `<pre tabindex="0"` + styleAttr + `><code>`
	}
	return `<pre tabindex="0"` + styleAttr + `>`
}

func (focusablePre) End(code bool) string {
	if code {
		return `</code></pre>`
	}
	return `</pre>`
}

// chromaHTML formats tokens with chroma's own HTML formatter.
func chromaHTML(t testing.TB, tokens []chroma.Token) string {
	t.Helper()
	var buf bytes.Buffer
	if err := chromahtml.New(chromaFormatOptions()...).Format(&buf, styles.Get(HighlightStyle), chroma.Literator(tokens...)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// chromaLexed tokenises code with chroma's own lexer for language,
// coalesced as goldmark-highlighting did.
func chromaLexed(t testing.TB, language, code string) []chroma.Token {
	t.Helper()
	it, err := chroma.Coalesce(lexers.Get(language)).Tokenise(nil, code)
	if err != nil {
		t.Fatal(err)
	}
	return it.Tokens()
}

// TestCodeHTMLMatchesChromaFormatter: our formatter writes what chroma's
// HTML formatter writes for the same tokens, whatever the token types,
// line ends and characters to escape.
func TestCodeHTMLMatchesChromaFormatter(t *testing.T) {
	var every []chroma.Token
	for typ := range chroma.StandardTypes {
		every = append(every, chroma.Token{Type: typ, Value: "x<&>\"'"}, chroma.Token{Type: chroma.Text, Value: " "})
	}
	tests := map[string][]chroma.Token{
		"empty":               nil,
		"every type":          every,
		"unlisted subtype":    {{Type: chroma.LiteralStringDouble + 7, Value: "s"}, {Type: chroma.Keyword + 55, Value: "k"}},
		"multi-line tokens":   {{Type: chroma.Comment, Value: "a\nb\n\n"}, {Type: chroma.Name, Value: "c"}},
		"no trailing newline": {{Type: chroma.Name, Value: "x"}},
		"only newlines":       {{Type: chroma.Text, Value: "\n\n"}},
		"go":                  goTokens(goSample),
		"yaml":                yamlTokens(yamlSample),
		"python":              pythonTokens(pythonSample),
	}
	for name, tokens := range tests {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeCodeHTML(&buf, tokens); err != nil {
				t.Fatal(err)
			}
			if got, want := buf.String(), chromaHTML(t, tokens); got != want {
				t.Errorf("writeCodeHTML differs from chroma's formatter:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestCodeBlocksRender: each fence renders through its lexer in the
// chroma <pre>; other languages are plain text in it; an untagged fence
// is goldmark's plain <pre><code>.
func TestCodeBlocksRender(t *testing.T) {
	tests := []struct {
		name, markdown, want string
	}{
		{"go", "```go\nx := 1\n```", `<pre tabindex="0" class="chroma"><code><span class="line"><span class="cl"><span class="nx">x</span><span class="w"> </span><span class="o">:=</span><span class="w"> </span><span class="mi">1</span><span class="w">
</span></span></span></code></pre>`},
		{"yaml", "```yaml\nkit: refund # the kit\n```", `<pre tabindex="0" class="chroma"><code><span class="line"><span class="cl"><span class="nt">kit</span><span class="p">:</span><span class="w"> </span><span class="l">refund</span><span class="w"> </span><span class="c"># the kit</span><span class="w">
</span></span></span></code></pre>`},
		{"python", "```python\ndef f(): pass\n```", `<pre tabindex="0" class="chroma"><code><span class="line"><span class="cl"><span class="k">def</span> <span class="nf">f</span><span class="p">():</span> <span class="k">pass</span>
</span></span></code></pre>`},
		{"text", "```text\na <b>\n```", `<pre tabindex="0" class="chroma"><code><span class="line"><span class="cl">a &lt;b&gt;
</span></span></code></pre>`},
		{"markdown is plain", "```markdown\n# a\n```", `<pre tabindex="0" class="chroma"><code><span class="line"><span class="cl"># a
</span></span></code></pre>`},
		{"untagged", "```\na <b>\n```", "<pre><code>a &lt;b&gt;\n</code></pre>\n"},
		{"empty", "```python\n```", `<pre tabindex="0" class="chroma"><code></code></pre>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderMarkdown(tt.markdown)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("RenderMarkdown(%q) =\n%s\nwant\n%s", tt.markdown, got, tt.want)
			}
		})
	}
}

// tokensText joins the tokens' text: a lexer must keep every byte.
func tokensText(tokens []chroma.Token) string {
	var sb strings.Builder
	for _, tok := range tokens {
		sb.WriteString(tok.Value)
	}
	return sb.String()
}
