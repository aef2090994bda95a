package problems

import (
	"html"
	"io"
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// writeCodeHTML writes tokens as a code block, byte for byte what chroma's
// HTML formatter writes with classes and focusablePre: a <pre> that takes
// keyboard focus (a long line makes the block scroll sideways, and a region
// that scrolls must be reachable without a mouse: axe's
// scrollable-region-focusable), one <span class="line"><span class="cl">
// per line, and a span with the token type's class around each token that
// has one. The classes are chroma's, so its stylesheets colour the block.
// Only chroma's core package is used: its lexer and style registries cost
// every process that links them about 15 ms of start-up.
func writeCodeHTML(w io.Writer, tokens []chroma.Token) error {
	var b strings.Builder
	b.WriteString(`<pre tabindex="0" class="chroma"><code>`)
	for _, line := range chroma.SplitTokensIntoLines(tokens) {
		b.WriteString(`<span class="line"><span class="cl">`)
		for _, t := range line {
			text := html.EscapeString(t.Value)
			if cls := tokenClass(t.Type); cls != "" {
				b.WriteString(`<span class="`)
				b.WriteString(cls)
				b.WriteString(`">`)
				b.WriteString(text)
				b.WriteString(`</span>`)
			} else {
				b.WriteString(text)
			}
		}
		b.WriteString(`</span></span>`)
	}
	b.WriteString(`</code></pre>`)
	_, err := io.WriteString(w, b.String())
	return err
}

// tokenClass is the CSS class chroma's formatter gives a token type: the
// type's own class, or its nearest ancestor's (a subcategory, then a
// category) when the type has none listed.
func tokenClass(t chroma.TokenType) string {
	for t != 0 {
		if cls, ok := chroma.StandardTypes[t]; ok {
			return cls
		}
		t = t.Parent()
	}
	return chroma.StandardTypes[t]
}

// tokenList collects tokens, joining a token to the one before it when the
// types are the same, as chroma's Coalesce does for its lexers.
type tokenList []chroma.Token

func (l *tokenList) emit(typ chroma.TokenType, value string) {
	if value == "" {
		return
	}
	if n := len(*l); n > 0 && (*l)[n-1].Type == typ {
		(*l)[n-1].Value += value
		return
	}
	*l = append(*l, chroma.Token{Type: typ, Value: value})
}
