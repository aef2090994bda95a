package gointerp

import (
	"go/ast"
	"go/types"
	"strings"
)

// A function of the file used as a value (not called) inside a function
// literal, where the function is declared further down the file, ran
// nothing or crashed: yaegi makes the value while it compiles the
// literal, before the function's body is compiled (as for the deferred
// calls of interp_deferlater.go). fs := []func() int{doA} inside a
// closure gave a function that returned 0, and var g func() int = doB
// panicked ("reflect.Set: value of type *interp.node is not assignable").
// The name becomes a literal that calls the function, made at run time,
// when the body is compiled:
//
//	doA  =>  func() int { return doA() }
//
// A generic function is left alone, as is one whose parameter types the
// file cannot name.

// lateFuncValues finds the identifiers above by the syntax alone (for
// mayNeedTypes, before the type check) and, with edit, rewrites them.
func (rw *rewriter) lateFuncValues(edit bool) bool {
	called := map[*ast.Ident]bool{}
	var lits []*ast.FuncLit
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if id, ok := unparen(n.Fun).(*ast.Ident); ok {
				called[id] = true
			}
		case *ast.FuncLit:
			lits = append(lits, n)
		}
		return true
	})
	found := false
	seen := map[*ast.Ident]bool{}
	for _, fl := range lits {
		ast.Inspect(fl.Body, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || seen[id] || called[id] || id.Obj == nil || id.Obj.Kind != ast.Fun {
				return true
			}
			seen[id] = true
			fd, ok := id.Obj.Decl.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Pos() < id.Pos() || fd.Type.TypeParams != nil {
				return true
			}
			found = true
			if edit {
				rw.lateFuncValue(id)
			}
			return true
		})
	}
	return found
}

// lateFuncValue rewrites id, which names a function of the file, to a
// literal calling it.
func (rw *rewriter) lateFuncValue(id *ast.Ident) {
	fn, ok := rw.typesInfo().Uses[id].(*types.Func)
	if !ok || rw.classes.pkg == nil || fn.Pkg() != rw.classes.pkg || fn.Parent() != rw.classes.pkg.Scope() {
		return
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.TypeParams().Len() > 0 {
		return
	}
	var params, args, results []string
	for i := 0; i < sig.Params().Len(); i++ {
		t := sig.Params().At(i).Type()
		dots := ""
		if sig.Variadic() && i == sig.Params().Len()-1 {
			t, dots = t.(*types.Slice).Elem(), "..."
		}
		ts, ok := rw.typeSource(t)
		if !ok {
			return
		}
		p := rw.tmp()
		params = append(params, p+" "+dots+ts)
		args = append(args, p+dots)
	}
	for i := 0; i < sig.Results().Len(); i++ {
		ts, ok := rw.typeSource(sig.Results().At(i).Type())
		if !ok {
			return
		}
		results = append(results, ts)
	}
	res, ret := "", ""
	switch len(results) {
	case 0:
	case 1:
		res, ret = " "+results[0], "return "
	default:
		res, ret = " ("+strings.Join(results, ", ")+")", "return "
	}
	rw.add(rw.off(id.Pos()), rw.off(id.End()), "func("+strings.Join(params, ", ")+")"+res+" { "+ret+id.Name+"("+strings.Join(args, ", ")+") }")
}
