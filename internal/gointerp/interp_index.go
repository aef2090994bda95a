package gointerp

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"math"
	"reflect"
	"strings"
)

// An index out of range panicked with reflect's words, which Recovered
// turns into Go's "runtime error: index out of range" without the
// details Go gives ("index out of range [5] with length 3"), the words a
// candidate reads in a report. An index expression of a slice or a
// string, or one whose index is not a constant of an array or a pointer
// to one (a constant one the compiler checks), gets its index checked by
// the runtime's Index, which panics with Go's runtime error and its
// words:
//
//	xs[k]  =>  xs[faultlineRT.Index(int(k), len(xs))]
//
// The indexed operand is read twice, so only one that reading cannot
// change is rewritten (a variable, a field, an index of those, a
// dereference); others keep the shorter message. An index the loop
// around it keeps in range is left alone: the key of a range over the
// same operand, and i of for i := ...; i < len(xs); ... .

// indexChecks rewrites the index expressions above.
func (rw *rewriter) indexChecks() {
	info := rw.typesInfo()
	if info == nil || rw.classes.pkg == nil {
		return
	}
	inRange := map[string]bool{} // "i\x00xs" for each loop keeping xs[i] in range
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.RangeStmt:
			if id, ok := n.Key.(*ast.Ident); ok && n.Tok == token.DEFINE && pureOperand(n.X) {
				k := id.Name + "\x00" + rw.src(n.X)
				if !inRange[k] {
					inRange[k] = true
					ast.Inspect(n.Body, visit)
					delete(inRange, k)
					return false
				}
			}
		case *ast.ForStmt:
			if k, ok := rw.lenBound(n); ok && !inRange[k] {
				inRange[k] = true
				ast.Inspect(n.Body, visit)
				delete(inRange, k)
				return false
			}
		case *ast.IndexExpr:
			rw.indexCheck(n, info, inRange)
		}
		return true
	}
	ast.Inspect(rw.file, visit)
}

// lenBound is "i\x00xs" for for i := ...; i < len(xs); i++ {...}.
func (rw *rewriter) lenBound(f *ast.ForStmt) (string, bool) {
	init, ok := f.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 {
		return "", false
	}
	i, ok := init.Lhs[0].(*ast.Ident)
	if !ok {
		return "", false
	}
	if c, ok := init.Rhs[0].(*ast.BasicLit); !ok || c.Value != "0" {
		return "", false
	}
	cond, ok := f.Cond.(*ast.BinaryExpr)
	if !ok || cond.Op != token.LSS {
		return "", false
	}
	if x, ok := cond.X.(*ast.Ident); !ok || x.Name != i.Name {
		return "", false
	}
	call, ok := cond.Y.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || !pureOperand(call.Args[0]) {
		return "", false
	}
	if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "len" || fn.Obj != nil {
		return "", false
	}
	if post, ok := f.Post.(*ast.IncDecStmt); !ok || post.Tok != token.INC {
		return "", false
	}
	return i.Name + "\x00" + rw.src(call.Args[0]), true
}

func (rw *rewriter) indexCheck(ix *ast.IndexExpr, info *types.Info, inRange map[string]bool) {
	tv, ok := info.Types[ix.Index]
	if !ok || tv.Type == nil || !tv.IsValue() || !info.Types[ix.X].IsValue() || !pureOperand(ix.X) {
		return // an instance of a generic type or function is no index
	}
	if b, ok := tv.Type.Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
		return
	}
	if _, ok := tv.Type.(*types.TypeParam); ok {
		return
	}
	xt := rw.typeOf(ix.X)
	if xt == nil {
		return
	}
	if _, ok := xt.(*types.TypeParam); ok {
		return
	}
	switch u := xt.Underlying().(type) {
	case *types.Slice:
	case *types.Array:
		if tv.Value != nil {
			return // checked by the compiler
		}
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok || tv.Value != nil {
			return
		}
	case *types.Basic:
		if u.Info()&types.IsString == 0 || tv.Value != nil && info.Types[ix.X].Value != nil {
			return
		}
	default:
		return
	}
	x := rw.src(ix.X)
	if id, ok := ix.Index.(*ast.Ident); ok && inRange[id.Name+"\x00"+x] {
		return
	}
	xat, xend := rw.off(ix.X.Pos()), rw.off(ix.X.End())
	at, end := rw.off(ix.Index.Pos()), rw.off(ix.Index.End())
	if strings.Contains(x, "\n") || rw.edited(xat, xend) || rw.replaced(xat, xend) || rw.straddles(at) || rw.straddles(end) {
		return
	}
	rw.importRuntime()
	// Outermost of the edits at either end: one that starts where the
	// index starts ends inside it (a shift's operand converted, uint64(b)<<p).
	rw.edits = append(rw.edits,
		edit{at: at, end: at, with: runtimeName + ".Index(int(", seq: math.MinInt32},
		edit{at: end, end: end, with: "), len(" + x + "))", seq: math.MaxInt32})
}

// pureOperand reports whether reading e twice gives the same value and
// changes nothing: a name, a field, an index or a dereference of those.
func pureOperand(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return true
	case *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return pureOperand(e.X)
	case *ast.SelectorExpr:
		return pureOperand(e.X)
	case *ast.StarExpr:
		return pureOperand(e.X)
	case *ast.IndexExpr:
		return pureOperand(e.X) && pureOperand(e.Index)
	}
	return false
}

// indexOutOfRange is the runtime's Index: i where 0 <= i < n, else a
// panic with Go's runtime error for the index.
func indexOutOfRange(i, n int) int {
	if i < 0 {
		panic(runtimeError{fmt.Sprintf("index out of range [%d]", i)})
	}
	if i >= n {
		panic(runtimeError{fmt.Sprintf("index out of range [%d] with length %d", i, n)})
	}
	return i
}

func init() {
	runtimeSymbols["Index"] = reflect.ValueOf(indexOutOfRange)
}
