package gointerp

import (
	"go/ast"
	"go/token"
)

// a, b := x, []int{1} (or var a, b = f(), T{...}, or n, v := 0, <-ch): the
// interpreter lost every value defined beside a composite literal (not
// its address) or a receive, so a was the zero value ([] for a slice, 0
// for an int, nil for an any), silently; the form is common (got, want :=
// f(), []string{"a"}; best, path := start, []string{start}). yaegi writes
// a literal or a received value straight into its variable and then skips
// the statement's assignment, which carried the other values
// (interp/cfg.go, "attempt to optimize"). An assignment with = is right
// (tupleInPlace). Each such literal or receive is parenthesised, which
// the interpreter does not write straight through: (T{...}), (<-ch).

// definedLiterals rewrites the literals and receives of values defined
// beside other values.
func (rw *rewriter) definedLiterals(values []ast.Expr) {
	if len(values) < 2 {
		return
	}
	direct := func(v ast.Expr) bool {
		switch v := v.(type) {
		case *ast.CompositeLit:
			return true
		case *ast.UnaryExpr:
			return v.Op == token.ARROW
		}
		return false
	}
	others := false
	for _, v := range values {
		others = others || !direct(v)
	}
	if !others {
		return // every value is written straight through: all are kept
	}
	for _, v := range values {
		if !direct(v) {
			continue
		}
		at, end := rw.off(v.Pos()), rw.off(v.End())
		if rw.straddles(at) || rw.straddles(end) {
			continue
		}
		// Outermost: before any other insertion at the value's start, after
		// any at its end (wrapArg's and interfaceValues' closing insertions
		// have seq 1 << 30).
		rw.edits = append(rw.edits, edit{at: at, end: at, with: "(", seq: -1<<30 - 1})
		rw.edits = append(rw.edits, edit{at: end, end: end, with: ")", seq: 1<<30 + 1})
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
