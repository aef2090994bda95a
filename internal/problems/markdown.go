package problems

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// HighlightStyle is the chroma style whose colours the light highlight
// stylesheet (web/static/highlight.css) carries. The rendered HTML holds
// only class names, so the web layer styles code blocks (light and dark)
// without re-rendering content.
const HighlightStyle = "github"

// markdown is the one goldmark instance used for all content. goldmark's
// Markdown is safe for concurrent use once built.
var markdown = goldmark.New(
	goldmark.WithExtensions(
		extension.GFM, // tables, strikethrough, task lists, autolinks
	),
	goldmark.WithRendererOptions(
		// Lower numbers outrank the default HTML renderer (1000), so these
		// replace its raw-HTML and fenced-code handling.
		renderer.WithNodeRenderers(
			util.Prioritized(rawHTMLEscaper{}, 100),
			util.Prioritized(newCodeBlockRenderer(), 200),
		),
	),
)

// codeBlockRenderer highlights fenced code with chroma's CSS classes,
// through lexers of our own: Go (go/scanner), YAML and Python. A block in
// any other language is shown in the same <pre>, as plain text; a block
// with no language, as goldmark writes it. Fence attributes such as
// {hl_lines=[2]} are not interpreted (lint refuses them in content).
type codeBlockRenderer struct {
	html.Config
}

func newCodeBlockRenderer() *codeBlockRenderer {
	return &codeBlockRenderer{Config: html.NewConfig()}
}

// SetOption implements renderer.SetOptioner, so goldmark's HTML options
// (such as the writer) reach the untagged-block path.
func (r *codeBlockRenderer) SetOption(name renderer.OptionName, value any) {
	r.Config.SetOption(name, value)
}

// RegisterFuncs implements renderer.NodeRenderer.
func (r *codeBlockRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, r.render)
}

func (r *codeBlockRenderer) render(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.FencedCodeBlock)
	language := n.Language(source)
	if language == nil {
		// What goldmark (and goldmark-highlighting) write for a fence
		// with no language.
		_, _ = w.WriteString("<pre><code>")
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			r.Writer.RawWrite(w, seg.Value(source))
		}
		_, _ = w.WriteString("</code></pre>\n")
		return ast.WalkContinue, nil
	}
	var code strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		code.Write(seg.Value(source))
	}
	if err := formatCode(w, strings.ToLower(string(language)), code.String()); err != nil {
		return ast.WalkStop, err
	}
	return ast.WalkContinue, nil
}

// formatCode writes code in a language as a <pre class="chroma"> block.
func formatCode(w io.Writer, language, code string) error {
	// chroma's lexers saw LF line ends only; ours do the same.
	code = strings.ReplaceAll(code, "\r\n", "\n")
	return writeCodeHTML(w, codeTokens(language, code))
}

// codeTokens splits code into tokens with the language's lexer; a
// language without one is a single plain-text token.
func codeTokens(language, code string) []chroma.Token {
	switch language {
	case "go", "golang":
		return goTokens(code)
	case "yaml", "yml":
		return yamlTokens(code)
	case "python", "py", "python3", "py3":
		return pythonTokens(code)
	}
	if code == "" {
		return nil
	}
	return []chroma.Token{{Type: chroma.Text, Value: code}}
}

// rawHTMLEscaper renders raw HTML written by an author as visible text. The
// default renderer would drop it silently ("raw HTML omitted"), and passing it
// through would let content inject markup into pages; showing it escaped
// keeps the author's text and tells them it is not interpreted.
type rawHTMLEscaper struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (rawHTMLEscaper) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTMLEscaped)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlockEscaped)
}

func renderRawHTMLEscaped(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	segments := node.(*ast.RawHTML).Segments
	for i := 0; i < segments.Len(); i++ {
		seg := segments.At(i)
		_, _ = w.Write(util.EscapeHTML(seg.Value(source)))
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlockEscaped(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	block := node.(*ast.HTMLBlock)
	var raw bytes.Buffer
	lines := block.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		raw.Write(seg.Value(source))
	}
	if block.HasClosure() {
		raw.Write(block.ClosureLine.Value(source))
	}
	// A <pre> keeps the author's line breaks, so the block reads as the
	// source it is.
	_, _ = w.WriteString(`<pre class="raw-html" tabindex="0"><code>`)
	_, _ = w.Write(util.EscapeHTML(bytes.TrimRight(raw.Bytes(), "\n")))
	_, _ = w.WriteString("\n</code></pre>\n")
	return ast.WalkContinue, nil
}

// renderMarkdown renders author Markdown to HTML. An error here means
// goldmark itself failed (it does not fail on any input text), so callers
// treat it as a system error, not a content error.
func renderMarkdown(src string, refs ...parser.Reference) (Markdown, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return Markdown{}, nil
	}
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf, withReferences(refs)); err != nil {
		return Markdown{}, fmt.Errorf("problems: render markdown: %w", err)
	}
	return Markdown{Source: src, HTML: buf.String()}, nil
}

// renderInline renders a short text such as a list item. When the text is a
// single paragraph it returns the paragraph's content without the <p>
// wrapper, so it sits inside an <li> like plain text; anything longer (two
// paragraphs, a code block) renders as blocks.
func renderInline(src string, refs ...parser.Reference) (Markdown, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return Markdown{}, nil
	}
	source := []byte(src)
	doc := markdown.Parser().Parse(text.NewReader(source), withReferences(refs))
	var buf bytes.Buffer
	if para, ok := doc.FirstChild().(*ast.Paragraph); ok && doc.ChildCount() == 1 {
		for c := para.FirstChild(); c != nil; c = c.NextSibling() {
			if err := markdown.Renderer().Render(&buf, source, c); err != nil {
				return Markdown{}, fmt.Errorf("problems: render markdown: %w", err)
			}
		}
		return Markdown{Source: src, HTML: buf.String()}, nil
	}
	if err := markdown.Renderer().Render(&buf, source, doc); err != nil {
		return Markdown{}, fmt.Errorf("problems: render markdown: %w", err)
	}
	return Markdown{Source: src, HTML: buf.String()}, nil
}

// withReferences makes link reference definitions from elsewhere in a file
// known to a parse of one of its sections.
func withReferences(refs []parser.Reference) parser.ParseOption {
	ctx := parser.NewContext()
	for _, ref := range refs {
		ctx.AddReference(ref)
	}
	return parser.WithContext(ctx)
}

// RenderMarkdown renders Markdown the way content is rendered: GFM, chroma
// classes on code blocks, raw HTML escaped. The web layer uses it for text
// that is not content, such as a candidate's own notes.
func RenderMarkdown(src string) (string, error) {
	md, err := renderMarkdown(src)
	return md.HTML, err
}
