package web

import (
	"bytes"
	"fmt"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
)

// darkHighlightStyle colours the statement's code blocks when the reader's
// system is dark; its comments, the faintest tokens, keep 6:1 on its own
// background.
const darkHighlightStyle = "github-dark"

// themedHighlightCSS is the chroma stylesheet light (the content's own)
// for a light system and darkHighlightStyle's for a dark one. Content
// carries class names only, so one file serves both; each style sits in
// its own query because the light one colours tokens the dark one leaves
// to inherit.
func themedHighlightCSS(light string) (string, error) {
	var buf bytes.Buffer
	buf.WriteString("@media not all and (prefers-color-scheme: dark) {\n")
	buf.WriteString(light)
	buf.WriteString("}\n@media (prefers-color-scheme: dark) {\n")
	if err := chromahtml.New(chromahtml.WithClasses(true)).WriteCSS(&buf, styles.Get(darkHighlightStyle)); err != nil {
		return "", fmt.Errorf("web: dark highlight CSS: %w", err)
	}
	buf.WriteString("}\n")
	return buf.String(), nil
}
