package gointerp

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// Forms that crashed yaegi's compiler with a message naming no line (a
// raw panic the user could not act on), found by running Go's own tests
// (bench/gotests.sh):
//
//   - an array length written as a constant that is not an integer
//     literal of the source, such as [1e1]int ("10 not an Int"): the
//     length is rewritten as the integer the type check gives it, which
//     means the same array type;
//   - a struct with more than one blank field (struct{ _ [1]byte; a byte;
//     _ [3]byte }), padding written out ("reflect.StructOf: duplicate
//     field X_"): refused at the second blank field;
//   - a call of a function value that is itself computed by a call,
//     given the results of a call of several results (f()(g()),
//     f().m(g()), f()[0](g())): "index out of range [1] with length 1";
//     refused at the call.

// arrayLength rewrites the length of the array type n where it is a
// floating-point or imaginary literal with an integer value.
func (rw *rewriter) arrayLength(n *ast.ArrayType) {
	lit, ok := unparen(n.Len).(*ast.BasicLit)
	if !ok || lit.Kind == token.INT {
		return
	}
	tv, ok := rw.typeInfo().Types[n.Len]
	if !ok || tv.Value == nil {
		return
	}
	v := constant.ToInt(tv.Value)
	if v.Kind() != constant.Int {
		return
	}
	at, end := rw.off(n.Len.Pos()), rw.off(n.Len.End())
	if rw.edited(at, end) || rw.straddles(at) || rw.straddles(end) {
		return
	}
	rw.add(at, end, v.ExactString())
}

// blankFields refuses the struct type n where it declares more than one
// blank field.
func (rw *rewriter) blankFields(n *ast.StructType) {
	blanks := 0
	for _, f := range n.Fields.List {
		for _, name := range f.Names {
			if name.Name != "_" {
				continue
			}
			if blanks++; blanks == 2 {
				rw.refuse(name.Pos(), "the interpreter cannot load a struct with more than one blank (_) field: give each padding field a name of its own (_pad1, _pad2) or leave the padding out")
				return
			}
		}
	}
}

// computedCallOfResults refuses the call n where its function is computed
// by a call and its one argument is a call with several results.
func (rw *rewriter) computedCallOfResults(n *ast.CallExpr) {
	if len(n.Args) != 1 || !callsInside(n.Fun) {
		return
	}
	arg, ok := unparen(n.Args[0]).(*ast.CallExpr)
	if !ok {
		return
	}
	tv, ok := rw.typeInfo().Types[arg]
	if !ok {
		return
	}
	if t, ok := tv.Type.(*types.Tuple); !ok || t.Len() < 2 {
		return
	}
	rw.refuse(n.Pos(), "the interpreter cannot load a call of a function value computed by a call ("+rw.src(n.Fun)+") given the results of another call: assign the function (or the results) to variables first")
}

// callsInside reports whether the expression e (a call's function)
// contains a call that computes it, as f() in f()(x), f().m(x), f()[0](x).
func callsInside(e ast.Expr) bool {
	switch e := unparen(e).(type) {
	case *ast.CallExpr:
		return true
	case *ast.SelectorExpr:
		return callsInside(e.X)
	case *ast.IndexExpr:
		return callsInside(e.X)
	}
	return false
}
