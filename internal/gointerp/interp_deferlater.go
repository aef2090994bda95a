package gointerp

import (
	"go/ast"
	"go/types"
)

// A deferred call, in a function literal, of a function or method the
// file declares below the literal's function, never ran (each deferred
// call of the file's functions and methods in a literal is rewritten): yaegi makes the
// deferred call's function value while it compiles the literal, before
// the callee's body is compiled, and the value it makes runs nothing
// (interp/run.go, call: genFunctionWrapper for a deferStmt). So
// go func() { defer s.cleanup(); ... }() skipped cleanup, and a method of
// the file deferred in a closure's body was lost wherever the rewrites
// append its forwarding method after the file's last line
// (directMethodCalls). A call made at run time finds the compiled body:
// the deferred call becomes a literal that makes it, with its receiver and
// arguments evaluated at the defer as Go evaluates them (deferArgs):
//
//	defer t.M(a)  =>  { t1 := t; t2 := a; defer func() { t1.M(t2) }() }
//
// with &t for a method with a pointer receiver of an addressable t. A
// generic function and a method of an interface are left alone. A callee
// that calls recover is refused: called from the literal, its recover
// would stop no panic (Go's rule), and deferred as it is it never runs.

// deferredLater reports whether d, a defer in a function literal, calls
// a function or a method the file declares; recv is the receiver's
// expression to evaluate at the defer, for a method.
func (rw *rewriter) deferredLater(d *ast.DeferStmt) (late bool, recv string) {
	if !rw.inFuncLit(d) {
		return false, ""
	}
	info := rw.typesInfo()
	if info == nil || rw.classes.pkg == nil {
		return false, ""
	}
	switch f := d.Call.Fun.(type) {
	case *ast.Ident:
		fn, ok := info.Uses[f].(*types.Func)
		if !ok || fn.Pkg() != rw.classes.pkg || fn.Parent() != rw.classes.pkg.Scope() {
			return false, ""
		}
		if sig, ok := fn.Type().(*types.Signature); !ok || sig.TypeParams().Len() > 0 {
			return false, ""
		}
		return !rw.deferredRecovers(d, fn), ""
	case *ast.SelectorExpr:
		fn, ok := info.Uses[f.Sel].(*types.Func)
		if !ok || fn.Pkg() != rw.classes.pkg {
			return false, ""
		}
		xt := rw.typeOf(f.X)
		if xt == nil || isInterface(xt) {
			return false, ""
		}
		if named, ok := derefType(xt).(*types.Named); ok && named.TypeArgs().Len() > 0 {
			return false, ""
		}
		sig, ok := fn.Type().(*types.Signature)
		if !ok || sig.Recv() == nil {
			return false, ""
		}
		if rw.deferredRecovers(d, fn) {
			return false, ""
		}
		recv = rw.src(f.X)
		_, ptrRecv := sig.Recv().Type().(*types.Pointer)
		if _, ptrX := xt.Underlying().(*types.Pointer); ptrRecv && !ptrX {
			recv = "&" + "(" + recv + ")"
		}
		return true, recv
	}
	return false, ""
}

// inFuncLit reports whether n is in a function literal's body.
func (rw *rewriter) inFuncLit(n ast.Node) bool {
	if rw.funcLits == nil {
		rw.funcLits = [][2]int{}
		ast.Inspect(rw.file, func(m ast.Node) bool {
			if fl, ok := m.(*ast.FuncLit); ok {
				rw.funcLits = append(rw.funcLits, [2]int{rw.off(fl.Body.Pos()), rw.off(fl.Body.End())})
			}
			return true
		})
	}
	at := rw.off(n.Pos())
	for _, r := range rw.funcLits {
		if r[0] < at && at < r[1] {
			return true
		}
	}
	return false
}

// exprText is e's source, or the name of an identifier the rewrites made
// (with no position).
func (rw *rewriter) exprText(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok && !id.Pos().IsValid() {
		return id.Name
	}
	return rw.src(e)
}

func derefType(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// deferredRecovers refuses d, and reports true, where fn (the file's)
// calls recover itself.
func (rw *rewriter) deferredRecovers(d *ast.DeferStmt, fn *types.Func) bool {
	var body *ast.BlockStmt
	for _, decl := range rw.file.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok && fd.Name.Pos() == fn.Pos() {
			body = fd.Body
		}
	}
	if body == nil {
		return false
	}
	calls := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "recover" && id.Obj == nil && len(n.Args) == 0 {
				calls = true
			}
		}
		return !calls
	})
	if calls {
		rw.refuse(d.Pos(), "the interpreter does not run a deferred call of "+fn.Name()+", which calls recover, from a function literal: defer a function literal that calls recover itself (defer func() { if r := recover(); r != nil { ... } }())")
	}
	return calls
}
