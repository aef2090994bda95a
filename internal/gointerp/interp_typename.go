//go:build !nointerp

package gointerp

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// %T in a Printf-like call (fmt.Printf, Sprintf, Errorf, Fprintf with a
// literal format) printed the interpreter's own type for a value of a
// type the file declares: the reflect type yaegi built for it, "struct {
// Xname string }" or "int" where Go prints "main.order" or
// "main.celsius". Where the value's type is known from the file (a type
// it declares, or one built of such types), the verb becomes %s and the
// value a literal that evaluates it and gives Go's name for its type.
// Where the value is of an interface type its dynamic type cannot be
// named here, and it is left as it is: right for the allowed packages'
// types and the basic ones (classify(v any) printing "other %T" of a
// float64), wrong for the file's own (a known divergence, listed by
// bench/gotests.sh).

// typeNameVerbs rewrites the %T verbs of Printf-like calls.
func (rw *rewriter) typeNameVerbs(call *ast.CallExpr, typeOf func(ast.Expr) types.Type) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || rw.imports[pkg.Name] != "fmt" {
		return
	}
	first := 1
	switch sel.Sel.Name {
	case "Printf", "Sprintf", "Errorf":
	case "Fprintf":
		first = 2
	default:
		return
	}
	if len(call.Args) < first || call.Ellipsis.IsValid() {
		return
	}
	lit, ok := call.Args[first-1].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return
	}
	verbs, ok := typeVerbs(rw.src(lit))
	if !ok {
		return
	}
	base := rw.off(lit.Pos())
	for _, v := range verbs {
		k := first + v.arg
		if k >= len(call.Args) {
			return
		}
		arg := call.Args[k]
		t := typeOf(arg)
		if t == nil || isInterface(t) || !declaresOwn(t, rw.file.Name.Name) {
			continue
		}
		at, end := rw.off(arg.Pos()), rw.off(arg.End())
		if rw.replaced(at, end) || rw.replaced(base+v.off, base+v.off+1) {
			continue
		}
		name := types.TypeString(t, func(p *types.Package) string { return p.Name() })
		if strings.Contains(name, "invalid type") {
			continue // built of an import's types, which the check does not know
		}
		rw.add(base+v.off, base+v.off+1, "s")
		rw.add(at, at, "func() string { _ = (")
		rw.edits = append(rw.edits, edit{at: end, end: end, with: "); return " + strconv.Quote(name) + " }()", seq: 1 << 30})
	}
}

// typeVerb is a %T in a format: the offset of its T in the literal's
// source text and the index of its argument.
type typeVerb struct{ off, arg int }

// typeVerbs finds the %T verbs of a format literal's source text; ok is
// false where arguments cannot be counted (a * width, an [n] index).
func typeVerbs(src string) (verbs []typeVerb, ok bool) {
	arg := 0
	for i := 0; i < len(src); i++ {
		if src[i] != '%' {
			continue
		}
		i++
		if i < len(src) && src[i] == '%' {
			continue
		}
		for i < len(src) && (src[i] == '+' || src[i] == '-' || src[i] == '#' || src[i] == ' ' || src[i] == '0' || src[i] >= '1' && src[i] <= '9' || src[i] == '.') {
			i++
		}
		if i >= len(src) || src[i] == '*' || src[i] == '[' || src[i] == '\\' {
			return nil, false
		}
		if src[i] == 'T' {
			verbs = append(verbs, typeVerb{off: i, arg: arg})
		}
		arg++
	}
	return verbs, true
}

// declaresOwn reports whether t is or is built of a named type declared
// in package pkg (the file's).
func declaresOwn(t types.Type, pkg string) bool {
	switch t := t.(type) {
	case *types.Named:
		if o := t.Obj(); o.Pkg() != nil && o.Pkg().Name() == pkg {
			return true
		}
		if args := t.TypeArgs(); args != nil {
			for i := 0; i < args.Len(); i++ {
				if declaresOwn(args.At(i), pkg) {
					return true
				}
			}
		}
		return false
	case *types.Pointer:
		return declaresOwn(t.Elem(), pkg)
	case *types.Slice:
		return declaresOwn(t.Elem(), pkg)
	case *types.Array:
		return declaresOwn(t.Elem(), pkg)
	case *types.Map:
		return declaresOwn(t.Key(), pkg) || declaresOwn(t.Elem(), pkg)
	case *types.Chan:
		return declaresOwn(t.Elem(), pkg)
	}
	return false
}
