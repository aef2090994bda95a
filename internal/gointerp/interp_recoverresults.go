package gointerp

import (
	"go/ast"
	"strings"
)

// A function with named results that recovers from a panic (a deferred
// call of recover) returned, when it panicked, what its results held at
// the end of its previous call from the same place: the interpreter
// reuses the frame of a call site and does not zero the named results
// when the function is entered again. In a loop, r, err := process(id)
// after a recovered panic gave r the last iteration's value where Go
// gives "". Each named result is set to its zero value first thing in
// the body: var t T; res = t (on the body's first line).

// zeroNamedResults rewrites the functions above.
func (rw *rewriter) zeroNamedResults() {
	ast.Inspect(rw.file, func(n ast.Node) bool {
		var ft *ast.FuncType
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			ft, body = n.Type, n.Body
		case *ast.FuncLit:
			ft, body = n.Type, n.Body
		}
		if body == nil || ft.Results == nil || !defersRecover(body) {
			return true
		}
		var zero []string
		for _, f := range ft.Results.List {
			t := rw.src(f.Type)
			if strings.Contains(t, "\n") {
				return true
			}
			for _, name := range f.Names {
				if name.Name == "_" {
					continue
				}
				z := rw.tmp()
				zero = append(zero, "var "+z+" "+t+"; "+name.Name+" = "+z+";")
			}
		}
		if len(zero) == 0 {
			return true
		}
		lb := rw.off(body.Lbrace) + 1
		rw.add(lb, lb, " "+strings.Join(zero, " "))
		return true
	})
}

// defersRecover reports whether body (not the literals in it, other
// than deferred ones) defers a function literal that calls recover.
func defersRecover(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			lit, ok := n.Call.Fun.(*ast.FuncLit)
			if !ok {
				return true
			}
			ast.Inspect(lit.Body, func(m ast.Node) bool {
				if c, ok := m.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "recover" && id.Obj == nil {
						found = true
					}
				}
				return !found
			})
			return false
		}
		return !found
	})
	return found
}
