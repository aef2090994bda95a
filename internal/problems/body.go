package problems

import (
	"bytes"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// body is the Markdown after the front matter, parsed once by goldmark.
// Sections are cut from it by the top-level headings; each section's
// Markdown is the source between two headings, so authors see their own text
// again and line numbers map back to the file.
type body struct {
	file       *contentFile
	src        []byte
	doc        ast.Node
	lineStarts []int // byte offset of each line of src

	// refs are the file's link reference definitions ([name]: url). Each
	// section is rendered on its own, so they are passed to every render
	// for [text][name] links to resolve wherever the definition is.
	refs []parser.Reference
}

func parseBody(f *contentFile) *body {
	b := &body{file: f, src: f.body, lineStarts: []int{0}}
	for i, c := range b.src {
		if c == '\n' && i+1 < len(b.src) {
			b.lineStarts = append(b.lineStarts, i+1)
		}
	}
	ctx := parser.NewContext()
	b.doc = markdown.Parser().Parse(text.NewReader(b.src), parser.WithContext(ctx))
	b.refs = ctx.References()
	return b
}

// line is the file line of a byte offset in the body.
func (b *body) line(offset int) int {
	i := sort.Search(len(b.lineStarts), func(i int) bool { return b.lineStarts[i] > offset }) - 1
	return b.file.bodyStartLine + max(i, 0)
}

// lineStart is the offset of the start of the line holding offset.
func (b *body) lineStart(offset int) int {
	i := sort.Search(len(b.lineStarts), func(i int) bool { return b.lineStarts[i] > offset }) - 1
	return b.lineStarts[max(i, 0)]
}

// nodeStart is where a block node starts in the source. Nodes made by a
// transformer (a GFM table) may carry no position; their first child with
// lines does.
func nodeStart(n ast.Node) int {
	for ; n != nil; n = n.FirstChild() {
		if p := n.Pos(); p >= 0 {
			return p
		}
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return n.Lines().At(0).Start
		}
	}
	return -1
}

// nodeLine is the file line a block node starts on.
func (b *body) nodeLine(n ast.Node) int {
	if p := nodeStart(n); p >= 0 {
		return b.line(p)
	}
	return b.file.bodyStartLine
}

// chunk is a run of blocks: either the blocks before the first heading of
// some level, or a heading and the blocks under it up to the next heading of
// that level.
type chunk struct {
	heading *ast.Heading // nil for the text before the first heading
	title   string       // the heading as plain text
	line    int          // file line of the heading (or of the first block)
	nodes   []ast.Node   // the blocks under the heading
	start   int          // source offset of the first block under the heading
	end     int          // source offset where the chunk ends
}

// source is the author's Markdown of the blocks under the heading.
func (b *body) source(c chunk) string {
	return strings.TrimSpace(string(b.src[c.start:c.end]))
}

// fullSource is the chunk's Markdown including its heading line, for a
// heading kept as part of a larger text.
func (b *body) fullSource(c chunk) string {
	if c.heading == nil {
		return b.source(c)
	}
	return strings.TrimSpace(string(b.src[b.lineStart(nodeStart(c.heading)):c.end]))
}

// split cuts nodes (which span the source range start..end) at headings of
// the given level. Headings of other levels stay inside the chunks as text.
func (b *body) split(nodes []ast.Node, level, start, end int) (lead chunk, subs []chunk) {
	lead = chunk{start: start, end: end, line: b.line(start)}
	current := func() *chunk { // the chunk blocks are being added to
		if len(subs) == 0 {
			return &lead
		}
		return &subs[len(subs)-1]
	}
	for _, n := range nodes {
		h, ok := n.(*ast.Heading)
		if !ok || h.Level != level {
			cur := current()
			cur.nodes = append(cur.nodes, n)
			continue
		}
		current().end = b.lineStart(nodeStart(h))
		next := h.NextSibling()
		bodyStart := end
		if next != nil && contains(nodes, next) {
			bodyStart = b.lineStart(nodeStart(next))
		}
		subs = append(subs, chunk{
			heading: h,
			title:   plainText(h, b.src),
			line:    b.line(nodeStart(h)),
			start:   bodyStart,
			end:     end,
		})
	}
	if lead.end < lead.start {
		lead.end = lead.start
	}
	for i := range subs {
		if subs[i].end < subs[i].start {
			subs[i].start = subs[i].end
		}
	}
	return lead, subs
}

func contains(nodes []ast.Node, n ast.Node) bool {
	for _, m := range nodes {
		if m == n {
			return true
		}
	}
	return false
}

// topLevel returns the document's top-level blocks.
func (b *body) topLevel() []ast.Node {
	var nodes []ast.Node
	for n := b.doc.FirstChild(); n != nil; n = n.NextSibling() {
		nodes = append(nodes, n)
	}
	return nodes
}

// plainText is the text of a node with Markdown markup removed: what a
// heading says, for titles and question texts.
func plainText(n ast.Node, src []byte) string {
	var sb strings.Builder
	_ = ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			sb.Write(n.Value(src))
			if n.SoftLineBreak() || n.HardLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(n.Value)
		case *ast.AutoLink:
			sb.Write(n.Label(src))
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				sb.Write(seg.Value(src))
			}
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(sb.String()), " ")
}

// listItem is one item of a Markdown list, with its text dedented so it
// renders on its own as it did inside the list.
type listItem struct {
	node         *ast.ListItem
	line         int
	contentStart int    // offset of the item's text on its first line
	text         string // the item's Markdown, marker removed, dedented
}

// listItems returns the items of a list. Each item runs from its marker to
// the next item's marker (or limit, for the last item).
func (b *body) listItems(list *ast.List, limit int) []listItem {
	var items []listItem
	for n := list.FirstChild(); n != nil; n = n.NextSibling() {
		li, ok := n.(*ast.ListItem)
		if !ok {
			continue
		}
		start := nodeStart(li)
		end := limit
		if next := li.NextSibling(); next != nil {
			end = b.lineStart(nodeStart(next))
		}
		// The text starts where the item's first block starts when that is on
		// the marker's line. ListItem.Offset counts columns, not bytes, so it
		// is only the fallback (for an item with no blocks).
		lineEnd := end
		if i := bytes.IndexByte(b.src[start:end], '\n'); i >= 0 {
			lineEnd = start + i
		}
		contentStart := min(start+li.Offset, lineEnd)
		if first := nodeStart(li.FirstChild()); first >= start && first <= lineEnd {
			contentStart = first
		} else if li.FirstChild() != nil {
			contentStart = lineEnd // the text begins on the next line
		}
		indent := contentStart - b.lineStart(start)
		items = append(items, listItem{
			node:         li,
			line:         b.line(start),
			contentStart: contentStart,
			text:         dedent(string(b.src[contentStart:end]), indent),
		})
	}
	return items
}

// dedent removes up to indent leading spaces from every line after the
// first: the indentation that made those lines part of a list item.
func dedent(s string, indent int) string {
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		line := lines[i]
		n := 0
		for n < len(line) && n < indent && line[n] == ' ' {
			n++
		}
		lines[i] = line[n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// normalizeHeading folds the spellings an author may use for a recognised
// heading: any case, hyphens or dashes for spaces, a trailing colon.
func normalizeHeading(title string) string {
	t := strings.ToLower(title)
	t = strings.NewReplacer("-", " ", "—", " ", "–", " ").Replace(t)
	t = strings.TrimRight(strings.TrimSpace(t), ":.")
	return strings.Join(strings.Fields(t), " ")
}

// partHeading matches "Part 1: Title", "Part 1 — Title", "Part 1 - Title",
// "Part 1. Title" and a bare "Part 1".
var partHeading = regexp.MustCompile(`(?i)^part\s+(\d+)\s*(?:[:.—–-]\s*(.*))?$`)

// parsePartHeading returns the part number and title of a part heading.
func parsePartHeading(title string) (number int, partTitle string, ok bool) {
	m := partHeading.FindStringSubmatch(strings.TrimSpace(title))
	if m == nil {
		return 0, "", false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, "", false
	}
	return n, strings.TrimSpace(m[2]), true
}
