package gointerp

import (
	"go/ast"
	"go/token"
)

// a, b := f(), []int{1} (or var a, b = f(), T{...}): the interpreter
// lost the call's value where a composite literal (not its address) is
// defined beside it, so a was the zero value ([] for a slice, 0 for an
// int), silently; the form is common in tests (got, want := f(),
// []string{"a"}). An assignment with = is right. Each such literal is
// made a function's result, func() T { return T{...} }(), which the
// interpreter defines beside a call faithfully.

// definedLiterals rewrites the literals of values, defined beside a call.
func (rw *rewriter) definedLiterals(values []ast.Expr) {
	if len(values) < 2 {
		return
	}
	calls := false
	for _, v := range values {
		if _, ok := unparen(v).(*ast.CallExpr); ok {
			calls = true
		}
	}
	if !calls {
		return
	}
	for _, v := range values {
		lit, ok := v.(*ast.CompositeLit)
		if !ok || lit.Type == nil {
			continue
		}
		t := rw.typeOf(lit)
		if t == nil {
			continue
		}
		ts, ok := rw.typeSource(t)
		if !ok {
			continue
		}
		at, end := rw.off(lit.Pos()), rw.off(lit.End())
		if rw.replaced(at, end) || rw.straddles(at) || rw.straddles(end) {
			continue
		}
		rw.add(at, at, "func() "+ts+" { return ")
		rw.edits = append(rw.edits, edit{at: end, end: end, with: " }()", seq: 1 << 30})
	}
}

// definesValues gives the values n defines, for a := or a var spec.
func definesValues(n ast.Node) []ast.Expr {
	switch n := n.(type) {
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
			return n.Rhs
		}
	case *ast.ValueSpec:
		if len(n.Names) == len(n.Values) {
			return n.Values
		}
	}
	return nil
}
