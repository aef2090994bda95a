package gointerp

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A shift whose count is not constant and whose left operand is an
// untyped constant (1<<n, 1<<(bit&31)) gives the constant the type the
// context would give it alone: uint32 in v := uint32(b) | 1<<(bit&31),
// uint in var u uint = 1 << n. yaegi gave it int, so the shift was done
// as an int and the program then panicked ("reflect: call of
// reflect.Value.SetUint on int Value") or got another value (an int
// shifted by 64 or more is 0 or -1 where a uint64's bits go).
// Rewritten to the conversion Go makes implicitly: uint32(1)<<(bit&31),
// with the type go/types gave the operand.

// untypedShift reports a shift the syntax shows may need shiftOperands:
// a literal shifted by something that is not one.
func untypedShift(b *ast.BinaryExpr) bool {
	if b.Op != token.SHL && b.Op != token.SHR {
		return false
	}
	_, lit := unparen(b.Y).(*ast.BasicLit)
	return !lit && constantLooking(b.X)
}

// constantLooking reports an expression made of literals and names only
// (1, 1.0, one, 'a', -1, (k+1)): what may be an untyped constant.
func constantLooking(e ast.Expr) bool {
	switch e := unparen(e).(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return e.Obj == nil || e.Obj.Kind == ast.Con
	case *ast.UnaryExpr:
		return constantLooking(e.X)
	case *ast.BinaryExpr:
		return constantLooking(e.X) && constantLooking(e.Y)
	}
	return false
}

// markCounts marks the operands of e that give it its untyped value: e
// and, through arithmetic, the operands it is made of.
func markCounts(e ast.Expr, counts map[ast.Expr]bool) {
	counts[e] = true
	switch b := e.(type) {
	case *ast.ParenExpr:
		markCounts(unparen(b), counts)
	case *ast.BinaryExpr:
		switch b.Op {
		case token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.AND, token.OR, token.XOR, token.AND_NOT:
			markCounts(unparen(b.X), counts)
			markCounts(unparen(b.Y), counts)
		}
	}
}

// shiftOperands converts the untyped constant operands of non-constant
// shifts to their types. One that is itself a shift's count (1 << (1 <<
// n)) stays untyped for go/types; it is converted to uint, the type the
// interpreter reads a count as.
func (rw *rewriter) shiftOperands() {
	info := rw.typesInfo()
	counts := map[ast.Expr]bool{}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != token.SHL && b.Op != token.SHR {
			return true
		}
		markCounts(unparen(b.Y), counts)
		if !untypedShift(b) {
			return true
		}
		if tv, ok := info.Types[b]; !ok || tv.Value != nil {
			return true // a constant shift, which the interpreter folds as Go does
		}
		tx, ok := info.Types[b.X]
		if !ok || tx.Value == nil || tx.Type == nil {
			return true
		}
		var t string
		switch {
		case isUntyped(tx.Type) && counts[b]:
			t = "uint"
		case isUntyped(tx.Type):
			return true
		default:
			if _, basic := tx.Type.Underlying().(*types.Basic); !basic {
				return true
			}
			if t, ok = rw.typeSource(tx.Type); !ok {
				return true
			}
		}
		at, end := rw.off(b.X.Pos()), rw.off(b.X.End())
		rw.add(at, at, t+"(")
		rw.add(end, end, ")")
		return true
	})
}
