package gointerp

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A local variable of an empty interface type (any) given a value of a
// type the file declares with methods, from a variable (var a any = l,
// b := a), read by a function literal that captures it: the interpreter
// read <nil> there (fmt.Println(a) printed "<nil>"), or a value its
// method panicked on, and in a goroutine the read crashed the program
// ("reflect: call of reflect.Value.Type on zero Value"). The same value
// passed to the function literal as an argument is read right. Such a
// capture is refused at its first read in each function literal, with
// that advice. (An interface with methods, error or fmt.Stringer, is read
// right, and so is any given a value of another type.)

// capturedAnyValues refuses the captures above.
func (rw *rewriter) capturedAnyValues() {
	info := rw.typeInfo()
	holds := map[*types.Var]bool{}
	var mark func(lhs ast.Expr, rhs ast.Expr)
	mark = func(lhs ast.Expr, rhs ast.Expr) {
		id, ok := unparen(lhs).(*ast.Ident)
		if !ok {
			return
		}
		obj := info.Defs[id]
		if obj == nil {
			obj = info.Uses[id]
		}
		v, ok := obj.(*types.Var)
		if !ok || v.Parent() == nil || v.Parent() == rw.classes.pkg.Scope() || !isInterface(v.Type()) || nonEmptyInterface(v.Type()) {
			return
		}
		t := rw.typeOf(rhs)
		if t == nil || info.Types[rhs].Value != nil {
			return // a constant (level(3)) is read right
		}
		if rw.hasOwnMethods(t) {
			holds[v] = true
			return
		}
		if src, ok := unparen(rhs).(*ast.Ident); ok {
			if sv, ok := info.Uses[src].(*types.Var); ok && holds[sv] {
				holds[v] = true
			}
		}
	}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if (n.Tok == token.DEFINE || n.Tok == token.ASSIGN) && len(n.Lhs) == len(n.Rhs) {
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
	if len(holds) == 0 {
		return
	}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		lit, ok := n.(*ast.FuncLit)
		if !ok {
			return true
		}
		seen := map[*types.Var]bool{}
		ast.Inspect(lit.Body, func(m ast.Node) bool {
			id, ok := m.(*ast.Ident)
			if !ok {
				return true
			}
			v, ok := info.Uses[id].(*types.Var)
			if !ok || !holds[v] || seen[v] || (v.Pos() >= lit.Pos() && v.Pos() < lit.End()) {
				return true
			}
			seen[v] = true
			rw.refuse(id.Pos(), "the interpreter reads the variable "+id.Name+" of type any, holding a value with methods, wrongly inside a function literal that captures it (<nil>, or a crash in a goroutine): pass "+id.Name+" to the function literal as an argument (func("+id.Name+" any) { ... }("+id.Name+")), or give it an interface type with methods")
			return true
		})
		return true
	})
}
