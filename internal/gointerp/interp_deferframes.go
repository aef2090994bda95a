package gointerp

import (
	"go/ast"
	"go/types"
	"strings"
)

// A function literal made in a function that defers, and called while
// that function runs its deferred calls, never returned: the program hung
// to the grading child's wall-clock limit. yaegi runs a function's
// deferred calls holding the lock of the function's frame (interp/run.go,
// runCfg), and a closure, when it returns, takes the lock of the frame it
// was made in to write its own value back (getFunc). So
//
//	h := func() { ... }
//	defer h()
//
// (or defer func() { h() }(), or defer cleanup(h) where cleanup calls h)
// waited for a lock its own caller held. Each function literal made in
// such a function, other than one called where it stands (func() {...}()
// or deferred as it is, whose frames are their own), is made in a frame of
// its own instead, which no deferred call holds:
//
//	h := func() { ... }  =>  h := func() func() { return func() { ... } }()
//
// The literal is the same closure of the same variables; only the frame
// that made it changes.

// deferFrameLiterals rewrites the literals above.
func (rw *rewriter) deferFrameLiterals() {
	called := map[*ast.FuncLit]bool{} // literals called, deferred or started where they stand
	ast.Inspect(rw.file, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if fl, ok := unparen(c.Fun).(*ast.FuncLit); ok {
				called[fl] = true
			}
		}
		return true
	})
	ast.Inspect(rw.file, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body == nil || !defersOwn(body) {
			return true
		}
		ast.Inspect(body, func(m ast.Node) bool {
			fl, ok := m.(*ast.FuncLit)
			if !ok {
				return true
			}
			if !called[fl] {
				rw.ownFrame(fl)
			}
			return false // its body is a function of its own, visited by the outer walk
		})
		return true
	})
}

// defersOwn reports whether body has a defer statement of its own (not
// one of a function literal inside it).
func defersOwn(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			found = true
		}
		return !found
	})
	return found
}

// ownFrame makes the literal fl in a function call of its own. The
// literal's type is written again as the call's result type, on the same
// line; a type written over several lines or with a comment is left
// alone, as is a literal another rewrite replaces.
func (rw *rewriter) ownFrame(fl *ast.FuncLit) {
	at, end := rw.off(fl.Pos()), rw.off(fl.End())
	ft := rw.text[rw.off(fl.Type.Pos()):rw.off(fl.Type.End())]
	if strings.ContainsAny(ft, "\n") || strings.Contains(ft, "/*") || strings.Contains(ft, "//") {
		return
	}
	if rw.straddles(at) || rw.straddles(end) {
		return
	}
	rw.edits = append(rw.edits,
		edit{at: at, end: at, with: "func() " + ft + " { return ", seq: 1 << 29},
		edit{at: end, end: end, with: " }()", seq: -1})
}

// deferredRecoverVar refuses d where it defers a call of a variable
// assigned a function literal that calls recover: the interpreter's
// recover, in the literal called so, stops no panic, where Go's does (the
// literal is the deferred function).
func (rw *rewriter) deferredRecoverVar(d *ast.DeferStmt, info *types.Info) {
	id, ok := unparen(d.Call.Fun).(*ast.Ident)
	if !ok {
		return
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok {
		return
	}
	if rw.classes.recoverVars == nil {
		rw.classes.recoverVars = map[*types.Var]bool{}
		mark := func(lhs ast.Expr, rhs ast.Expr) {
			fl, ok := unparen(rhs).(*ast.FuncLit)
			if !ok || !callsRecover(fl.Body) {
				return
			}
			if lid, ok := unparen(lhs).(*ast.Ident); ok {
				obj := info.Defs[lid]
				if obj == nil {
					obj = info.Uses[lid]
				}
				if lv, ok := obj.(*types.Var); ok {
					rw.classes.recoverVars[lv] = true
				}
			}
		}
		ast.Inspect(rw.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for k := range n.Lhs {
						mark(n.Lhs[k], n.Rhs[k])
					}
				}
			case *ast.ValueSpec:
				if len(n.Names) == len(n.Values) {
					for k := range n.Names {
						mark(n.Names[k], n.Values[k])
					}
				}
			}
			return true
		})
	}
	if rw.classes.recoverVars[v] {
		rw.refuse(d.Pos(), "the interpreter's recover, in the function "+id.Name+" deferred as a variable, does not stop the panic as Go's does: defer a function literal that calls recover itself (defer func() { if r := recover(); r != nil { ... } }())")
	}
}

// callsRecover reports whether body calls recover itself (not in a
// function literal inside it).
func callsRecover(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "recover" && id.Obj == nil && len(n.Args) == 0 {
				found = true
			}
		}
		return !found
	})
	return found
}
