package web

import (
	"bytes"
	"os"
	"testing"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"

	"github.com/faultline-dev/faultline/internal/problems"
)

// darkHighlightStyle colours the statement's code blocks when the reader's
// system is dark; its comments, the faintest tokens, keep 6:1 on its own
// background.
const darkHighlightStyle = "github-dark"

// highlightCSSFile is the committed stylesheet, relative to this package.
const highlightCSSFile = "../../web/static/highlight.css"

// themedHighlightCSS is chroma's stylesheet for the content's style
// (problems.HighlightStyle) on a light system and darkHighlightStyle's on
// a dark one. Content carries class names only, so one file serves both;
// each style sits in its own query because the light one colours tokens
// the dark one leaves to inherit.
func themedHighlightCSS() (string, error) {
	var buf bytes.Buffer
	formatter := chromahtml.New(chromahtml.WithClasses(true))
	buf.WriteString("@media not all and (prefers-color-scheme: dark) {\n")
	if err := formatter.WriteCSS(&buf, styles.Get(problems.HighlightStyle)); err != nil {
		return "", err
	}
	buf.WriteString("}\n@media (prefers-color-scheme: dark) {\n")
	if err := formatter.WriteCSS(&buf, styles.Get(darkHighlightStyle)); err != nil {
		return "", err
	}
	buf.WriteString("}\n")
	return buf.String(), nil
}

// TestHighlightCSSCurrent: web/static/highlight.css is what chroma writes
// for the two styles today, so a change of style (or of chroma's colours
// in an upgrade) is noticed. The server serves the file as it is; only
// this test links chroma's styles. After -update, run go generate ./web
// for its brotli form.
func TestHighlightCSSCurrent(t *testing.T) {
	want, err := themedHighlightCSS()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(highlightCSSFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(highlightCSSFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("web/static/highlight.css is not what chroma writes for %s and %s: run go test -run TestHighlightCSSCurrent ./internal/web -update, then go generate ./web", problems.HighlightStyle, darkHighlightStyle)
	}
	for _, class := range []string{".chroma {", ".chroma .kd {", ".chroma .nt {", ".chroma .s2 {", ".chroma .c1 {"} {
		if bytes.Count(got, []byte(class)) != 2 {
			t.Errorf("highlight.css has no light and dark rule for %s", class)
		}
	}
	ts := newTestServer(t, testCatalog())
	rec := serve(ts.app, "GET", ts.app.assets.url(highlightCSSName), nil)
	if rec.Code != 200 || rec.Body.String() != want {
		t.Errorf("GET %s = %d, %d bytes; want the stylesheet", ts.app.assets.url(highlightCSSName), rec.Code, rec.Body.Len())
	}
}
