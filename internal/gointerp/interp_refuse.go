//go:build !nointerp

package gointerp

import (
	"fmt"
	"go/ast"
	"go/token"
)

// Forms that crashed yaegi's compiler with a message naming no line
// ("reflect.Type is nil", "nil type"), refused here at their line with
// what to write instead:
//
//   - a type that refers to itself other than through a struct or an
//     interface: type F func(string) F, type P *P, type L []L;
//   - a package-level var of two names given by one comma-ok value:
//     var v, ok = m["k"] (or x.(T), <-ch).
func (rw *rewriter) unsupportedDecls() {
	for _, d := range rw.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.Obj != nil && refersTo(s.Type, s.Name.Obj) {
					rw.refuse(s.Pos(), fmt.Sprintf("the type %s refers to itself other than through a struct, which the interpreter cannot load: wrap it in a struct (type %s struct{ f func(...) *%s }) or use an interface", s.Name.Name, s.Name.Name, s.Name.Name))
				}
			case *ast.ValueSpec:
				if gd.Tok == token.VAR && len(s.Names) == 2 && len(s.Values) == 1 && commaOK(s.Values[0]) {
					rw.refuse(s.Pos(), "a package-level var given two values by one comma-ok expression (var v, ok = m[k]) is not loaded by the interpreter: declare the two variables and assign them in func init()")
				}
			}
		}
	}
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
