package gointerp

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sort"
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
// Where the value is of an interface type and the file declares struct
// types, the value goes to the runtime package's TypeName with a zero
// value of each (TypeName(v, "main.job", job{}, ...)), which names v's
// dynamic type by the one whose type, or pointer type, it has, and
// prints what fmt's %T prints for any other (the allowed packages' types,
// the basic ones). A named type of the file that is not a struct
// (celsius int) cannot be told from its underlying type there and is
// still printed as that (a known divergence); so is one of two struct
// types of the same fields, printed as the first.

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
		if t != nil && isInterface(t) {
			if names := rw.untellableTypes(t); len(names) > 0 {
				what := "type " + names[0]
				if len(names) > 1 {
					what = "types " + strings.Join(names, ", ")
				}
				rw.refuse(arg.Pos(), fmt.Sprintf("%%T of a value held in an interface is not printed faithfully by the interpreter when the value may be of this file's %s: it prints the type the value is stored as (int, a field's type). Print a name of your own instead (a method of each type that returns it)", what))
				continue
			}
			rw.dynamicTypeName(arg, base+v.off)
			continue
		}
		if t == nil || !declaresOwn(t, rw.file.Name.Name) {
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

// untellableTypes are the file's types whose name TypeName cannot find
// for a value held in an interface of type iface: a type that is not a
// struct (type celsius int is stored as an int) and may be held in
// iface, and a struct type whose values iface (with methods) may hold (a
// value of it reaches the host in yaegi's wrapper, holding one of its
// fields). A struct held in an any, or a pointer to a struct, is found.
func (rw *rewriter) untellableTypes(iface types.Type) []string {
	it, ok := iface.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	var names []string
	info := rw.typesInfo()
	if rw.classes.pkg == nil {
		return nil
	}
	seen := map[string]bool{}
	for id, obj := range info.Defs {
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.IsAlias() || tn.Pkg() != rw.classes.pkg || seen[id.Name] {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok || named.TypeParams() != nil {
			continue
		}
		switch named.Underlying().(type) {
		case *types.Interface:
			continue
		case *types.Struct:
			if it.Empty() || !types.Implements(named, it) {
				continue
			}
		default:
			if !types.Implements(named, it) && !types.Implements(types.NewPointer(named), it) {
				continue
			}
		}
		seen[id.Name] = true
		names = append(names, id.Name)
	}
	sort.Strings(names)
	return names
}

// dynamicTypeName rewrites the %T (its T at verb) of an argument of an
// interface type to a %s of TypeName's answer.
func (rw *rewriter) dynamicTypeName(arg ast.Expr, verb int) {
	var samples []string
	for _, d := range rw.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			if _, ok := ts.Type.(*ast.StructType); !ok || ts.TypeParams != nil || ts.Assign.IsValid() {
				continue
			}
			samples = append(samples, strconv.Quote(rw.file.Name.Name+"."+ts.Name.Name)+", "+ts.Name.Name+"{}")
		}
	}
	at, end := rw.off(arg.Pos()), rw.off(arg.End())
	if len(samples) == 0 || rw.replaced(at, end) || rw.replaced(verb, verb+1) {
		return
	}
	rw.add(verb, verb+1, "s")
	rw.add(at, at, runtimeName+".TypeName(")
	rw.edits = append(rw.edits, edit{at: end, end: end, with: ", " + strings.Join(samples, ", ") + ")", seq: 1 << 30})
	rw.importRuntime()
}

// typeName is the runtime package's TypeName: the name of v's dynamic
// type among the (name, zero value) pairs of the file's struct types, or
// what %T prints.
func typeName(v any, pairs ...any) string {
	rv := unboxed(v)
	if rv.IsValid() {
		t := rv.Type()
		for k := 0; k+1 < len(pairs); k += 2 {
			name, _ := pairs[k].(string)
			st := reflect.TypeOf(pairs[k+1])
			switch {
			case st == t:
				return name
			case st != nil && reflect.PointerTo(st) == t:
				return "*" + name
			}
		}
		return fmt.Sprintf("%T", rv.Interface())
	}
	return fmt.Sprintf("%T", v)
}

func init() { runtimeSymbols["TypeName"] = reflect.ValueOf(typeName) }

// typeVerb is a %T in a format: the offset of its T in the literal's
// source text and the index of its argument.
type typeVerb struct{ off, arg int }

// typeVerbs finds the %T verbs of a format literal's source text; ok is
// false where arguments cannot be counted (a * width, an [n] index).
func typeVerbs(src string) (verbs []typeVerb, ok bool) {
	all, ok := formatVerbs(src)
	for _, v := range all {
		if v.verb == 'T' {
			verbs = append(verbs, typeVerb{off: v.off, arg: v.arg})
		}
	}
	return verbs, ok
}

// fmtVerb is a verb of a format: its letter, whether it has the # flag,
// the offset of its letter in the literal's source text and the index of
// its argument.
type fmtVerb struct {
	verb     byte
	sharp    bool
	off, arg int
}

// formatVerbs finds the verbs of a format literal's source text; ok is
// false where arguments cannot be counted (a * width, an [n] index).
func formatVerbs(src string) (verbs []fmtVerb, ok bool) {
	arg := 0
	for i := 0; i < len(src); i++ {
		if src[i] != '%' {
			continue
		}
		i++
		if i < len(src) && src[i] == '%' {
			continue
		}
		sharp := false
		for i < len(src) && (src[i] == '+' || src[i] == '-' || src[i] == '#' || src[i] == ' ' || src[i] == '0' || src[i] >= '1' && src[i] <= '9' || src[i] == '.') {
			sharp = sharp || src[i] == '#'
			i++
		}
		if i >= len(src) || src[i] == '*' || src[i] == '[' || src[i] == '\\' {
			return nil, false
		}
		verbs = append(verbs, fmtVerb{verb: src[i], sharp: sharp, off: i, arg: arg})
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
