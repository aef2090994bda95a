package gointerp

import (
	"go/ast"
	"go/token"
	"go/types"
)

// new(expr), Go 1.26's pointer to a fresh variable holding a value
// (new(30*time.Second), new(x)), was taken by the interpreter for new of
// a type, and its pointer pointed at a zero. Each call of new with a
// value becomes a call of a function literal of the value's type that
// returns a pointer to its argument's copy, or where the type is not
// known (an import's), of a generic function appended to the file. A value is what the type
// check says is one, or an expression that cannot be a type (a literal,
// an operation, a call, a composite literal).

const newFunc = tmpPrefix + "New"

// newOfValues rewrites new(value) to faultlineTmpNew(value).
func (rw *rewriter) newOfValues(typeOf func(ast.Expr) types.Type, info func() *types.Info) {
	found := false
	ast.Inspect(rw.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		id, ok := call.Fun.(*ast.Ident)
		if !ok || id.Name != "new" || id.Obj != nil {
			return true
		}
		arg := call.Args[0]
		tv, typed := info().Types[arg]
		if typed && tv.IsType() || !typed && !cannotBeType(arg) || typed && !tv.IsValue() && !cannotBeType(arg) {
			return true
		}
		at, end := rw.off(id.Pos()), rw.off(id.End())
		if rw.replaced(at, end) {
			return true
		}
		// With the value's type known, a literal of that type (a generic
		// function instantiated at package level crashed yaegi's
		// compiler); else the generic function.
		if typed && tv.Type != nil {
			if name, ok := rw.typeSource(types.Default(tv.Type)); ok {
				v := rw.tmp()
				rw.add(at, end, "func("+v+" "+name+") *"+name+" { return &"+v+" }")
				return true
			}
		}
		rw.add(at, end, newFunc)
		found = true
		return true
	})
	if found {
		end := len(rw.text)
		rw.add(end, end, "\n\nfunc "+newFunc+"[T any](v T) *T { return &v }\n")
	}
}

// cannotBeType reports whether e is an expression no type is written as.
func cannotBeType(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit, *ast.BinaryExpr, *ast.CallExpr, *ast.CompositeLit, *ast.FuncLit:
		return true
	case *ast.UnaryExpr:
		return e.Op != token.MUL
	case *ast.ParenExpr:
		return cannotBeType(e.X)
	}
	return false
}
