package gointerp

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// Forms that may crash yaegi's compiler with a message naming no line
// ("reflect.Type is nil", "nil type"). Not every use of them crashes it
// (a type F func(string) F that is only declared loads), so they are not
// refused before loading; where the compiler crashed, the crash is put
// on the first of them, with what to write instead (crashCause, called by
// compilerPanic):
//
//   - a type that refers to itself other than through a struct or an
//     interface: type F func(string) F, type P *P, type L []L;
//   - a package-level var of two names given by one comma-ok value:
//     var v, ok = m["k"] (or x.(T), <-ch).
func crashCause(src *Source) *gradewire.Diagnostic {
	for _, d := range src.File.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			var msg string
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.Obj != nil && refersTo(s.Type, s.Name.Obj) {
					msg = fmt.Sprintf("the interpreter failed on this code, and the type %s refers to itself other than through a struct, which it cannot always load: wrap it in a struct (type %s struct{ f func(...) *%s }) or use an interface", s.Name.Name, s.Name.Name, s.Name.Name)
				}
			case *ast.ValueSpec:
				if gd.Tok == token.VAR && len(s.Names) == 2 && len(s.Values) == 1 && commaOK(s.Values[0]) {
					msg = "the interpreter failed on this code, and cannot load a package-level var given two values by one comma-ok expression (var v, ok = m[k]): declare the two variables and assign them in func init()"
				}
			}
			if msg != "" {
				pos := src.Fset.Position(spec.Pos())
				return &gradewire.Diagnostic{Line: pos.Line, Column: pos.Column, Message: msg}
			}
		}
	}
	return nil
}

// refersTo reports whether the type expression e names obj other than
// inside a struct or an interface type.
func refersTo(e ast.Expr, obj *ast.Object) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.StructType, *ast.InterfaceType:
			return false
		case *ast.Ident:
			found = found || n.Obj == obj
		}
		return !found
	})
	return found
}

func commaOK(e ast.Expr) bool {
	switch v := unparen(e).(type) {
	case *ast.IndexExpr, *ast.TypeAssertExpr:
		return true
	case *ast.UnaryExpr:
		return v.Op == token.ARROW
	}
	return false
}

// errorsAsTarget refuses errors.As(err, target) where target points to a
// value the interpreter cannot find in a chain of errors:
//   - a struct type the file declares, used as an error by value (its
//     Error method has a value receiver): yaegi hands such a value to
//     host code (fmt.Errorf's %w, errors.As itself) holding one of its
//     fields instead of the struct, so errors.As answered false, or its
//     fields were wrong;
//   - an interface type the file declares: the target is the
//     interpreter's own box, which errors.As cannot fill.
//
// A pointer to a struct type (the usual form, Error on *T) is found (see
// errorsAs in interp_fmt.go).
func (rw *rewriter) errorsAsTarget(call *ast.CallExpr, typeOf func(ast.Expr) types.Type) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "As" || len(call.Args) != 2 {
		return
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || rw.imports[pkg.Name] != "errors" {
		return
	}
	t := typeOf(call.Args[1])
	if t == nil {
		return
	}
	p, ok := t.(*types.Pointer)
	if !ok {
		return
	}
	named, ok := p.Elem().(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Name() != rw.file.Name.Name {
		return
	}
	name := named.Obj().Name()
	switch named.Underlying().(type) {
	case *types.Struct:
		rw.refuse(call.Args[1].Pos(), fmt.Sprintf("errors.As with a target of the struct type %s is not run faithfully by the interpreter when %s is used as an error by value: give its Error method a pointer receiver, return &%s{...}, and pass a *%s target (var e *%s; errors.As(err, &e))", name, name, name, name, name))
	case *types.Interface:
		rw.refuse(call.Args[1].Pos(), fmt.Sprintf("errors.As with a target of the interface type %s is not run faithfully by the interpreter: pass a pointer to a concrete error type (var e *MyError; errors.As(err, &e))", name))
	}
}
