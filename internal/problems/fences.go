package problems

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// rejectFenceAttributes reports code fences with attributes, such as
// ```go {hl_lines=[2]}: code blocks are highlighted by our own lexers,
// which do not mark lines, number them or switch styles, so the
// attributes would be silently ignored.
func (bd *builder) rejectFenceAttributes() {
	_ = ast.Walk(bd.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fence, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok || fence.Info == nil {
			return ast.WalkContinue, nil
		}
		info := string(fence.Info.Segment.Value(bd.src))
		if i := strings.IndexByte(info, '{'); i >= 0 {
			bd.addf(bd.line(fence.Info.Segment.Start), "code fence attributes %s are not supported: write the fence as ```%s and point at lines in the text",
				strings.TrimSpace(info[i:]), strings.TrimSpace(info[:i]))
		}
		return ast.WalkContinue, nil
	})
}
