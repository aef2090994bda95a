package gointerp

import (
	"go/ast"
	"go/types"
	"reflect"
)

// Values of the file's types with a String or Error method that reach fmt
// through an empty interface lost the method (each measured against Go):
//
//   - any(x) as an argument: the interpreter converts x to its underlying
//     value, so fmt.Println(any(celsius(5))) printed "5" where Go prints
//     "5.0°C". The conversion adds nothing to an argument of a fmt
//     function (each is an any already), so its name is dropped and the
//     operand is handed over as any other argument (shownArg).
//   - a composite literal of a slice, array or map of an empty interface
//     type: the interpreter keeps each element in its box, which fmt
//     printed as the bare value ([]any{celsius(5)} printed "[5]"). Each
//     element of such a type is handed over as an argument of that type
//     is (elemExpr: Shown with its method), and any other element as
//     shownArg gives it; an element of an empty interface type (a
//     variable of type any) goes through the runtime's Shows, the same
//     as Keep: it hands over the interpreter's box, which fmt's functions
//     print with the method registered for its type (interp_boxes.go). A
//     slice of any held in a variable needs no rewrite: fmt's functions
//     look inside it for boxes.
//
// Only printing changes: the value the program holds is left as it is.

// shownInterface rewrites arg, of type t under verb, where it is one of
// the forms above, and reports whether it did.
func (rw *rewriter) shownInterface(arg ast.Expr, t types.Type, verb byte) bool {
	if isInterface(t) {
		call, ok := unparen(arg).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || call.Ellipsis.IsValid() || !maybeType(call.Fun) {
			return false
		}
		ct := rw.typeOf(call.Fun)
		if ct == nil || !isInterface(ct) || nonEmptyInterface(ct) {
			return false
		}
		ot := rw.typeOf(call.Args[0])
		if ot == nil || isInterface(ot) || rw.methodOf(ot) == "" {
			return false
		}
		at, lp := rw.off(call.Fun.Pos()), rw.off(call.Lparen)
		if rw.edited(at, lp) || rw.straddles(at) || rw.straddles(lp) {
			return false
		}
		rw.add(at, lp, "")
		rw.shownArg(call.Args[0], ot, verb)
		return true
	}
	lit, ok := unparen(arg).(*ast.CompositeLit)
	if !ok {
		return false
	}
	var elem types.Type
	switch u := t.Underlying().(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Array:
		elem = u.Elem()
	case *types.Map:
		elem = u.Elem()
	default:
		return false
	}
	if !isInterface(elem) || nonEmptyInterface(elem) || rw.methodOf(t) != "" {
		return false
	}
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			e = kv.Value
		}
		et := rw.typeOf(e)
		if et == nil {
			continue
		}
		if isInterface(et) {
			if !nonEmptyInterface(et) && !isNilIdent(e) && !rw.typeInfo().Types[e].IsNil() {
				at, end := rw.off(e.Pos()), rw.off(e.End())
				if !rw.replaced(at, end) && !rw.straddles(at) && !rw.straddles(end) {
					rw.wrapArg(e, runtimeName+".Shows")
				}
			}
			continue
		}
		if call, ok := unparen(e).(*ast.CallExpr); ok && len(call.Args) == 1 && maybeType(call.Fun) {
			if ct := rw.typeOf(call.Fun); ct != nil && isInterface(ct) {
				continue
			}
		}
		ts, ok := rw.typeSource(et)
		if !ok {
			continue
		}
		v := rw.tmp()
		if x, ok := rw.elemExpr(v, et); ok {
			rw.wrapArg(e, "func("+v+" "+ts+") any { return "+x+" }")
			continue
		}
		rw.shownArg(e, et, verb)
	}
	return true
}

func init() {
	runtimeSymbols["Shows"] = reflect.ValueOf(func(v any) any { return v })
}
