package gointerp

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A function literal assigning a composite literal of a struct type to a
// variable it captures (var res settled; f := func() { res =
// settled{out: "done"} }; f()) lost the write: res was still its zero
// value after f returned. yaegi stores such a literal straight into the
// variable's slot of the frame the closure reads (its compositeLit
// action), not into the variable the closure shares; a value that is not
// a bare composite literal is set through it (res = v worked). The
// literal is put in parentheses, which yaegi evaluates as any other
// value: res = (settled{out: "done"}).

// capturedLiteralWrites rewrites the assignments above.
func (rw *rewriter) capturedLiteralWrites() {
	info := rw.typeInfo()
	done := map[*ast.CompositeLit]bool{}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		lit, ok := n.(*ast.FuncLit)
		if !ok {
			return true
		}
		ast.Inspect(lit.Body, func(m ast.Node) bool {
			a, ok := m.(*ast.AssignStmt)
			if !ok || a.Tok != token.ASSIGN || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
				// (a parallel assignment goes through temporaries already)
				return true
			}
			for k, l := range a.Lhs {
				id, ok := unparen(l).(*ast.Ident)
				if !ok {
					continue
				}
				v, ok := info.Uses[id].(*types.Var)
				if !ok || v.Pos() >= lit.Pos() && v.Pos() < lit.End() {
					continue // not captured by this literal
				}
				cl, ok := a.Rhs[k].(*ast.CompositeLit)
				if !ok || done[cl] {
					continue
				}
				done[cl] = true
				if _, ok := v.Type().Underlying().(*types.Struct); !ok {
					continue
				}
				at, end := rw.off(cl.Pos()), rw.off(cl.End())
				if rw.replaced(at, end) || rw.straddles(at) || rw.straddles(end) {
					continue
				}
				rw.add(at, at, "(")
				rw.edits = append(rw.edits, edit{at: end, end: end, with: ")", seq: 1 << 30})
			}
			return true
		})
		return true
	})
}
