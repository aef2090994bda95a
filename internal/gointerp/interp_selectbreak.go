package gointerp

import (
	"go/ast"
	"go/token"
	"go/types"
)

// break L and continue L in a case of a select, L labelling a loop (or a
// switch) around the select: the interpreter does not leave the select's
// loop (break) or goes on with the rest of its body (continue), where a
// goto out of the select it runs right. The commonest form of a worker's
// loop (for { select { case <-done: break loop; ... } }) is rewritten:
//
//   - break L => goto t, with t: labelling an empty statement right after
//     the labelled statement (no variable comes into scope between);
//   - continue L => goto t, with the loop's body a block of its own and t:
//     after it, at the body's end, so that the goto jumps over no
//     declaration of the body: for { { ...; goto t; ... }; t: ; }, after
//     which the loop's post statement runs, as continue does.
//
// A loop the rewrites turn into a function (a range over a function) is
// left to the refusal (breakFromSelect).

// selectBranch rewrites b, a break or continue with a label in a case of
// a select, and reports whether it did.
func (rw *rewriter) selectBranch(b *ast.BranchStmt) bool {
	if b.Label == nil || b.Label.Obj == nil {
		return false
	}
	ls, ok := b.Label.Obj.Decl.(*ast.LabeledStmt)
	if !ok {
		return false
	}
	at, end := rw.off(b.Pos()), rw.off(b.End())
	if rw.edited(at, end) || rw.straddles(at) || rw.straddles(end) {
		return false
	}
	if r, ok := ls.Stmt.(*ast.RangeStmt); ok && rw.classes.done[r] {
		// Rewritten in interp_classes.go: over an integer, to a loop of
		// three clauses (which a goto leaves as it does any loop); over a
		// function, to a call of it with the body in a function literal,
		// which no goto leaves.
		t := rw.typeOf(r.X)
		if t == nil {
			return false
		}
		if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
			return false
		}
	}
	if rw.selectLabels == nil {
		rw.selectLabels = map[ast.Stmt]string{}
	}
	var key ast.Stmt
	switch b.Tok {
	case token.BREAK:
		key = ls
	case token.CONTINUE:
		key = ls.Stmt
	default:
		return false
	}
	name, ok := rw.selectLabels[key]
	if !ok {
		var body *ast.BlockStmt
		switch s := ls.Stmt.(type) {
		case *ast.ForStmt:
			body = s.Body
		case *ast.RangeStmt:
			body = s.Body
		}
		name = rw.tmp()
		switch {
		case b.Tok == token.BREAK:
			p := rw.off(ls.End())
			if rw.straddles(p) {
				return false
			}
			rw.add(p, p, "; "+name+": ;")
		case body != nil:
			// Outermost: before every other insertion at the body's start
			// (a loop variable's copy goes inside), after every other at
			// its end.
			lb, rb := rw.off(body.Lbrace)+1, rw.off(body.Rbrace)
			if rw.straddles(lb) || rw.straddles(rb) {
				return false
			}
			rw.edits = append(rw.edits, edit{at: lb, end: lb, with: " {", seq: -1<<30 - 1})
			rw.edits = append(rw.edits, edit{at: rb, end: rb, with: "}; " + name + ": ;", seq: 1<<30 + 1})
		default:
			return false
		}
		rw.selectLabels[key] = name
	}
	rw.add(at, end, "goto "+name)
	return true
}
