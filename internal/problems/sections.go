package problems

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// builder turns the parsed body of one file into model values. Content
// errors go to ds; err keeps the first failure of the renderer itself,
// which is a system error, not the author's.
type builder struct {
	*body
	ds  *diagnostics
	err error

	partLines []int // file line of each part heading, in order
}

// rejectTitleHeadings reports # headings in the body: the page title comes
// from the front matter, and a second one would sit inside the content.
func (bd *builder) rejectTitleHeadings() {
	for _, n := range bd.topLevel() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 1 {
			bd.addf(bd.nodeLine(h), "# heading in the body: the title comes from title: in the front matter; use ## for sections")
		}
	}
}

func (bd *builder) addf(line int, format string, args ...any) {
	bd.ds.add(bd.file.path, line, format, args...)
}

// markdown renders a block of author Markdown.
func (bd *builder) markdown(src string) Markdown {
	md, err := renderMarkdown(src, bd.refs...)
	if err != nil && bd.err == nil {
		bd.err = err
	}
	return md
}

// inline renders a short text such as a list item.
func (bd *builder) inline(src string) Markdown {
	md, err := renderInline(src, bd.refs...)
	if err != nil && bd.err == nil {
		bd.err = err
	}
	return md
}

// listSection returns the items of the lists in a chunk. Anything else in
// the chunk is an error: the page shows only the items, so prose there
// would silently disappear.
func (bd *builder) listSection(c chunk, heading string) []listItem {
	var items []listItem
	for i, n := range c.nodes {
		list, ok := n.(*ast.List)
		if h, isHeading := n.(*ast.Heading); isHeading && isPartHeading(plainText(h, bd.src)) {
			continue // rejectPartHeadings names the mistake
		}
		if !ok {
			bd.addf(bd.nodeLine(n), "%s holds a list; this %s would not be shown (make it a list item or move it)", heading, blockName(n))
			continue
		}
		limit := c.end
		if i+1 < len(c.nodes) {
			limit = bd.lineStart(nodeStart(c.nodes[i+1]))
		}
		items = append(items, bd.listItems(list, limit)...)
	}
	if len(items) == 0 && len(c.nodes) == 0 {
		bd.addf(c.line, "%s is empty: add a list of items", heading)
	}
	return items
}

// items renders list items as model Items.
func (bd *builder) items(lis []listItem) []Item {
	var out []Item
	for _, li := range lis {
		if li.text == "" {
			bd.addf(li.line, "empty list item")
			continue
		}
		if i := hasMatcherLines(li.text); i > 0 {
			bd.addf(li.line+i, "shows: and contradicts: lines belong under a key point (### Key points, ## What a strong answer covers); here they would be shown as text")
		}
		out = append(out, Item{Text: bd.inline(li.text), Line: li.line})
	}
	return out
}

// glossary reads "**Term**: definition" items.
func (bd *builder) glossary(c chunk) []GlossaryEntry {
	var out []GlossaryEntry
	for _, li := range bd.listSection(c, "## Glossary") {
		term, definition, ok := bd.glossaryItem(li)
		if !ok {
			bd.addf(li.line, "a glossary item must start with the term in bold, then a colon: **Term**: definition")
			continue
		}
		out = append(out, GlossaryEntry{Term: term, Definition: bd.inline(definition)})
	}
	return out
}

// glossaryItem splits an item whose text starts with a bold term. The term
// is the bold text; the definition is what follows it, after a colon that
// may sit inside or outside the bold.
func (bd *builder) glossaryItem(li listItem) (term, definition string, ok bool) {
	para := li.node.FirstChild()
	if para == nil {
		return "", "", false
	}
	strong, isStrong := para.FirstChild().(*ast.Emphasis)
	if !isStrong || strong.Level != 2 || nodeStart(para) != li.contentStart {
		return "", "", false
	}
	last := strong.LastChild()
	text, isText := last.(*ast.Text)
	if !isText {
		return "", "", false
	}
	// The closing ** follows the last text of the bold run.
	termEnd := text.Segment.Stop + strong.Level - li.contentStart
	if termEnd <= 0 || termEnd > len(li.text) {
		return "", "", false
	}
	term = plainText(strong, bd.src)
	rest := li.text[termEnd:]
	colonInside := len(term) > 0 && term[len(term)-1] == ':'
	term = strings.TrimRight(term, ": ")
	rest = strings.TrimLeft(rest, " \t\n")
	if !colonInside {
		if rest == "" || rest[0] != ':' {
			return "", "", false
		}
		rest = rest[1:]
	}
	definition = strings.TrimLeft(rest, " \t\n")
	if term == "" || definition == "" {
		return "", "", false
	}
	return term, definition, true
}

// boldLead splits an item whose text starts with a bold run (the first
// child of its first paragraph) into that run's Markdown and the rest, both
// non-empty: a follow-up's question and its answer.
func (bd *builder) boldLead(li listItem) (lead, rest string, ok bool) {
	para := li.node.FirstChild()
	if para == nil {
		return "", "", false
	}
	strong, isStrong := para.FirstChild().(*ast.Emphasis)
	if !isStrong || strong.Level != 2 || nodeStart(para) != li.contentStart {
		return "", "", false
	}
	text, isText := strong.LastChild().(*ast.Text)
	if !isText {
		return "", "", false
	}
	end := text.Segment.Stop + strong.Level - li.contentStart
	if end <= strong.Level*2 || end > len(li.text) {
		return "", "", false
	}
	lead = strings.TrimSpace(li.text[strong.Level : end-strong.Level])
	rest = strings.TrimSpace(li.text[end:])
	if lead == "" || rest == "" {
		return "", "", false
	}
	return lead, rest, true
}

// blockName names a block for an error message.
func blockName(n ast.Node) string {
	switch n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return "paragraph"
	case *ast.Heading:
		return "heading"
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return "code block"
	case *ast.Blockquote:
		return "quote"
	case *ast.HTMLBlock:
		return "HTML"
	case *ast.ThematicBreak:
		return "horizontal rule"
	default:
		return "block"
	}
}
