package problems

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// highlightStyle is the chroma style whose colours HighlightCSS returns. The
// rendered HTML carries only class names, so the web layer can swap the
// stylesheet without re-rendering content.
const highlightStyle = "github"

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

// codeBlockRenderer highlights fenced code with chroma CSS classes. Go
// blocks take a fast path through goTokens; every other language, and Go
// blocks with goldmark-highlighting attributes such as {hl_lines=[2]}, go
// to goldmark-highlighting unchanged.
type codeBlockRenderer struct {
	highlighter renderer.NodeRenderer
	fallback    renderer.NodeRendererFunc
}

func newCodeBlockRenderer() *codeBlockRenderer {
	return &codeBlockRenderer{highlighter: highlighting.NewHTMLRenderer(
		highlighting.WithStyle(highlightStyle),
		highlighting.WithFormatOptions(formatOptions()...),
	)}
}

// SetOption passes goldmark's renderer options on to goldmark-highlighting,
// which would receive them if it were registered itself.
func (r *codeBlockRenderer) SetOption(name renderer.OptionName, value any) {
	if so, ok := r.highlighter.(renderer.SetOptioner); ok {
		so.SetOption(name, value)
	}
}

// RegisterFuncs implements renderer.NodeRenderer.
func (r *codeBlockRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	r.highlighter.RegisterFuncs(funcCapture(func(kind ast.NodeKind, f renderer.NodeRendererFunc) {
		if kind == ast.KindFencedCodeBlock {
			r.fallback = f
		}
	}))
	reg.Register(ast.KindFencedCodeBlock, r.render)
}

// funcCapture receives the functions a NodeRenderer registers.
type funcCapture func(ast.NodeKind, renderer.NodeRendererFunc)

func (c funcCapture) Register(kind ast.NodeKind, f renderer.NodeRendererFunc) { c(kind, f) }

func (r *codeBlockRenderer) render(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.FencedCodeBlock)
	language := string(n.Language(source))
	info := ""
	if n.Info != nil {
		info = string(n.Info.Segment.Value(source))
	}
	if !entering || (language != "go" && language != "golang") || strings.Contains(info, "{") {
		return r.fallback(w, source, node, entering)
	}
	var code strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		code.Write(seg.Value(source))
	}
	if err := formatGo(w, code.String()); err != nil {
		return ast.WalkStop, err
	}
	return ast.WalkContinue, nil
}

// formatOptions are chroma's HTML options for every code block: CSS
// classes rather than inline styles, and a <pre> that takes keyboard focus,
// since a long line makes the block scroll sideways and a region that
// scrolls must be reachable without a mouse (axe: scrollable-region-focusable).
func formatOptions() []chromahtml.Option {
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

// formatGo writes Go code as a <pre class="chroma"> block, the same HTML
// goldmark-highlighting writes with chroma's own Go lexer.
func formatGo(w io.Writer, code string) error {
	// chroma's lexers see LF line ends only; do the same.
	code = strings.ReplaceAll(code, "\r\n", "\n")
	formatter := chromahtml.New(formatOptions()...)
	return formatter.Format(w, styles.Get(highlightStyle), chroma.Literator(goTokens(code)...))
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

var highlightCSS = sync.OnceValue(func() string {
	var buf bytes.Buffer
	formatter := chromahtml.New(chromahtml.WithClasses(true))
	if err := formatter.WriteCSS(&buf, styles.Get(highlightStyle)); err != nil {
		// WriteCSS only fails when the writer fails; a bytes.Buffer does not.
		panic(fmt.Sprintf("problems: write highlight CSS: %v", err))
	}
	return buf.String()
})

// HighlightCSS returns the stylesheet for the chroma classes in rendered code
// blocks, for the web layer to serve (for example as /static/highlight.css).
func HighlightCSS() string {
	return highlightCSS()
}
