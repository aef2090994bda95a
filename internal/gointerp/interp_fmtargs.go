package gointerp

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Arguments of the fmt functions that yaegi hands over without the
// String or Error method fmt looks for, or with the wrong value beside
// it (each measured against Go's output):
//
//   - a value of a struct type the file declares, with a String or Error
//     method: yaegi's wrapper holds one of the struct's fields in place of
//     the struct (its getConcreteValue), so %d of pt{1, 2} printed "2"
//     where Go prints "{1 2}". The argument is handed over as
//     Shown(v, func() string { return v.String() }), which formats as fmt
//     formats a value with that method (formatWrapped).
//   - a slice, array or map whose elements (map values) are of a type the
//     file declares with a String or Error method: the elements reached
//     fmt without it, so fmt.Println([]celsius{1}) printed "[1]" where Go
//     prints "[1°C]". The argument becomes a []any (map[K]any) of the
//     elements, each Shown; a nil slice or map is handed over as it is.
//     The keys of a map too (map[level]int printed map[0:1], Go prints
//     map[debug:1]): such a map goes to the runtime's Map, which prints
//     it as fmt does (keyedMapLit).
//   - a struct the file declares (or a pointer to one, printed &{...})
//     whose exported fields, or their elements, have such methods: fmt
//     calls the method of an exported field (never of an unexported
//     one), and the interpreter printed the field's own fields
//     ({1250 EUR}). The struct goes through a helper appended to the file
//     that hands fmt its fields by name (Fields), each as above.
//   - the argument of Errorf's %w of an interface type (an error variable)
//     or of a type the file declares: an error variable holding a struct
//     value reached Errorf as the bare struct, which printed
//     "%!w(struct { Xx int }=...)" and wrapped nothing. It goes through
//     AsError(e, func() string { return e.Error() }), which gives an error
//     whose Error is the method's and whose value (for errors.Is and
//     errors.As, see unboxed) is the struct.
//
// %T (typeNameVerbs), %p and %#v (which prints a type's name) are left
// alone, as is a format that is not a literal, whose verbs are unknown.

// fmtArgs rewrites the arguments above of one call.
func (rw *rewriter) fmtArgs(call *ast.CallExpr, typeOf func(ast.Expr) types.Type) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || call.Ellipsis.IsValid() {
		return
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Obj != nil || rw.imports[pkg.Name] != "fmt" {
		return
	}
	first, format := 0, false
	switch sel.Sel.Name {
	case "Print", "Println", "Sprint", "Sprintln":
	case "Fprint", "Fprintln":
		first = 1
	case "Printf", "Sprintf", "Errorf":
		first, format = 1, true
	case "Fprintf":
		first, format = 2, true
	default:
		return
	}
	if len(call.Args) <= first {
		return
	}
	verbs := map[int]fmtVerb{}
	if format {
		lit, ok := call.Args[first-1].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		all, ok := formatVerbs(rw.src(lit))
		if !ok {
			return
		}
		for _, v := range all {
			if _, seen := verbs[v.arg]; seen {
				return
			}
			verbs[v.arg] = v
		}
	}
	for k, arg := range call.Args[first:] {
		v, ok := verbs[k]
		if !format {
			v, ok = fmtVerb{verb: 'v'}, true
		}
		if !ok || v.sharp || v.verb == 'T' || v.verb == 'p' {
			continue
		}
		t := typeOf(arg)
		if t == nil {
			continue
		}
		if v.verb == 'w' {
			if sel.Sel.Name == "Errorf" && (isInterface(t) || declaresOwn(t, rw.file.Name.Name)) {
				e := rw.tmp()
				rw.wrapArg(arg, "func("+e+" error) any { if "+e+" == nil { return nil }; return "+runtimeName+".AsError("+e+", func() string { return "+e+".Error() }) }")
			}
			continue
		}
		rw.shownArg(arg, t, v.verb)
	}
}

// methodOf is the name of the method fmt calls on a value of t, Error or
// String, if t is a type the file declares (or a pointer to one) with
// it, and fmt would call it (no Format method).
func (rw *rewriter) methodOf(t types.Type) string {
	n := t
	if p, ok := t.(*types.Pointer); ok {
		n = p.Elem()
	}
	named, ok := n.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg() != rw.classes.pkg || isInterface(named) {
		return ""
	}
	ms := types.NewMethodSet(t)
	if ms.Lookup(named.Obj().Pkg(), "Format") != nil {
		return ""
	}
	for _, name := range []string{"Error", "String"} {
		sel := ms.Lookup(named.Obj().Pkg(), name)
		if sel == nil {
			continue
		}
		sig, ok := sel.Type().(*types.Signature)
		if !ok || sig.Params().Len() != 0 || sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type(), types.Typ[types.String]) {
			return ""
		}
		return name
	}
	return ""
}

// shownArg rewrites arg (of type t, under verb) where it is one of the
// first two forms above, or a struct of the file whose exported fields
// (or their elements) have such methods: fmt calls the method of an
// exported field, and the interpreter's struct had none (the struct goes
// through a helper of its own, see structHelper).
func (rw *rewriter) shownArg(arg ast.Expr, t types.Type, verb byte) {
	if rw.shownInterface(arg, t, verb) || rw.keptArg(arg, t) {
		return
	}
	if m := rw.methodOf(t); m != "" {
		if _, isStruct := t.Underlying().(*types.Struct); !isStruct {
			return // yaegi's wrapper holds the value itself
		}
	}
	var elem types.Type
	switch u := t.Underlying().(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Array:
		elem = u.Elem()
	}
	if elem != nil {
		// Not a map's values: fmt prints each with its method.
		if e, ok := elem.Underlying().(*types.Basic); ok && e.Kind() == types.Uint8 && verb != 'v' && verb != 'd' {
			return // fmt prints a slice of bytes as a string under %s, %q, %x
		}
	}
	ts, ok := rw.typeSource(t)
	if !ok {
		return
	}
	v := rw.tmp()
	if plain, ok := rw.plainStruct(t); ok {
		// A struct value whose Error or String method has a pointer
		// receiver: fmt prints its fields (Go's method set of the value
		// lacks the method), and yaegi's value called the method. A copy
		// of an unnamed struct type has no methods to call.
		rw.wrapArg(arg, "func("+v+" "+ts+") any { return "+plain+"("+v+") }")
		return
	}
	if e, ok := rw.elemExpr(v, t); ok {
		rw.wrapArg(arg, "func("+v+" "+ts+") any { return "+e+" }")
		return
	}
	if lit, ok := rw.containerLit(t); ok {
		rw.wrapArg(arg, lit)
		return
	}
	// A pointer to such a struct, which fmt prints as &{...} (as an
	// argument, not inside another value, where it prints the address).
	if p, ok := t.(*types.Pointer); ok && rw.methodOf(t) == "" {
		if h := rw.structHelper(p.Elem()); h != "" {
			rw.wrapArg(arg, "func("+v+" "+ts+") any { if "+v+" == nil { return "+v+" }; return "+runtimeName+".Ref("+h+"(*"+v+")) }")
		}
	}
}

// plainStruct is the source of t's underlying struct type where t is a
// struct type of the file whose value fmt prints field by field although
// a pointer to it has an Error or String method (and no field of it
// needs a helper of its own); ok is false otherwise.
func (rw *rewriter) plainStruct(t types.Type) (string, bool) {
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() != rw.classes.pkg || rw.classes.pkg == nil {
		return "", false
	}
	if _, isStruct := named.Underlying().(*types.Struct); !isStruct {
		return "", false
	}
	if rw.methodOf(t) != "" || rw.methodOf(types.NewPointer(t)) == "" || rw.structHelper(t) != "" {
		return "", false
	}
	return rw.typeSource(named.Underlying())
}

// elemExpr is an expression giving what fmt should get for the variable
// v of type t: v with its String or Error method, or a struct of the
// file through its helper; ok is false where v prints as it is.
func (rw *rewriter) elemExpr(v string, t types.Type) (string, bool) {
	if m := rw.methodOf(t); m != "" {
		ts, ok := rw.typeSource(t)
		if !ok {
			return "", false
		}
		return rw.shown(v, ts, m), true
	}
	if h := rw.structHelper(t); h != "" {
		return h + "(" + v + ")", true
	}
	return "", false
}

// containerLit is a function literal taking a value of the slice, array
// or map type t and giving a []any (map[K]any) of its elements as
// elemExpr gives them, and a nil slice or map as it is.
func (rw *rewriter) containerLit(t types.Type) (string, bool) {
	var elem types.Type
	var isMap, isSlice bool
	switch u := t.Underlying().(type) {
	case *types.Slice:
		elem, isSlice = u.Elem(), true
	case *types.Array:
		elem = u.Elem()
	case *types.Map:
		if rw.methodOf(u.Key()) != "" || rw.structHelper(u.Key()) != "" {
			return rw.keyedMapLit(t, u)
		}
		elem, isMap = u.Elem(), true
	default:
		return "", false
	}
	if rw.methodOf(t) != "" {
		return "", false
	}
	s, r, k, v := rw.tmp(), rw.tmp(), rw.tmp(), rw.tmp()
	e, ok := rw.elemExpr(v, elem)
	if !ok {
		return "", false
	}
	ts, ok := rw.typeSource(t)
	if !ok {
		return "", false
	}
	var body string
	switch {
	case isMap:
		kt, ok := rw.typeSource(t.Underlying().(*types.Map).Key())
		if !ok {
			return "", false
		}
		body = fmt.Sprintf("if %s == nil { return %s }; %s := make(map[%s]any, len(%s)); for %s := range %s { %s := %s[%s]; %s[%s] = %s }; return %s",
			s, s, r, kt, s, k, s, v, s, k, r, k, e, r)
	default:
		nilCheck := ""
		if isSlice {
			nilCheck = fmt.Sprintf("if %s == nil { return %s }; ", s, s)
		}
		body = fmt.Sprintf("%s%s := make([]any, len(%s)); for %s := range %s { %s := %s[%s]; %s[%s] = %s }; return %s",
			nilCheck, r, s, k, s, v, s, k, r, k, e, r)
	}
	return "func(" + s + " " + ts + ") any { " + body + " }", true
}

// keyedMapLit is containerLit for a map whose keys have a String or
// Error method (map[level]int): a map[any]any of shown keys would not do
// (a Shown value is no map key, and fmt sorts keys by their values), so
// the function gives the runtime's Map of the keys, the keys as elemExpr
// gives them and the values likewise (or as they are), which prints them
// in the order fmt sorts the keys.
func (rw *rewriter) keyedMapLit(t types.Type, m *types.Map) (string, bool) {
	if rw.methodOf(t) != "" {
		return "", false
	}
	ts, ok := rw.typeSource(t)
	if !ok {
		return "", false
	}
	s, raw, ks, vs, k, v := rw.tmp(), rw.tmp(), rw.tmp(), rw.tmp(), rw.tmp(), rw.tmp()
	ke, ok := rw.elemExpr(k, m.Key())
	if !ok {
		return "", false
	}
	ve, ok := rw.elemExpr(v, m.Elem())
	if !ok {
		ve = v
		if lit, ok := rw.containerLit(m.Elem()); ok {
			ve = lit + "(" + v + ")"
		}
	}
	kt, ok := rw.typeSource(m.Key())
	if !ok {
		return "", false
	}
	rw.importRuntime()
	// The raw keys go in a []K: appended to a []any, each was the
	// loop's one variable, all with the last key.
	body := fmt.Sprintf("if %s == nil { return %s }; %s, %s, %s := make([]%s, 0, len(%s)), make([]any, 0, len(%s)), make([]any, 0, len(%s)); for %s := range %s { %s := %s[%s]; %s = append(%s, %s); %s = append(%s, %s); %s = append(%s, %s) }; return %s.Map(%s, %s, %s)",
		s, s, raw, ks, vs, kt, s, s, s, k, s, v, s, k, raw, raw, k, ks, ks, ke, vs, vs, ve, runtimeName, raw, ks, vs)
	return "func(" + s + " " + ts + ") any { " + body + " }", true
}

// structHelper is the name of a function of the file (appended to it)
// that gives fmt a value of the struct type t with each exported field
// as elemExpr or containerLit gives it, or "" where t needs none: t is
// not a struct of the file, has a String or Error method of its own, or
// no exported field that needs one.
func (rw *rewriter) structHelper(t types.Type) string {
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg() != rw.classes.pkg || named.TypeParams() != nil && named.TypeArgs() == nil {
		return ""
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok || rw.methodOf(t) != "" || types.NewMethodSet(t).Lookup(rw.classes.pkg, "Format") != nil {
		return ""
	}
	if rw.classes.structHelpers == nil {
		rw.classes.structHelpers = map[*types.Named]string{}
	}
	if h, ok := rw.classes.structHelpers[named]; ok {
		return h
	}
	rw.classes.structHelpers[named] = "" // a field of its own type prints as it is
	local := named.Obj().Parent() != rw.classes.pkg.Scope()
	if local {
		// A type declared in a function is named only in it: its
		// helper is a literal written where it is called, whose text
		// depends on where (namedAtSite), never kept for another call.
		defer delete(rw.classes.structHelpers, named)
	}
	ts, ok := rw.typeSource(t)
	if !ok {
		return ""
	}
	v := rw.tmp()
	var names, vals []string
	needed := false
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		names = append(names, strconv.Quote(f.Name()))
		val := v + "." + f.Name()
		if f.Exported() {
			if e, ok := rw.elemExpr(val, f.Type()); ok {
				val, needed = e, true
			} else if lit, ok := rw.containerLit(f.Type()); ok {
				val, needed = lit+"("+val+")", true
			}
		}
		vals = append(vals, val)
	}
	if !needed {
		return ""
	}
	rw.importRuntime()
	if local {
		return "func(" + v + " " + ts + ") any { return " + runtimeName + ".Fields([]string{" + strings.Join(names, ", ") + "}, []any{" + strings.Join(vals, ", ") + "}) }"
	}
	name := rw.helper("fmt struct "+ts, func(name string) string {
		return "func " + name + "(" + v + " " + ts + ") any { return " + runtimeName + ".Fields([]string{" + strings.Join(names, ", ") + "}, []any{" + strings.Join(vals, ", ") + "}) }"
	})
	rw.classes.structHelpers[named] = name
	return name
}

// shown is the call of the runtime's Shown for variable v of type t with
// method m. The method's closure is made by a call of its own, so that
// each gets its own v: the interpreter shares one v between a loop's
// iterations.
func (rw *rewriter) shown(v, t, m string) string {
	rw.importRuntime()
	x := rw.tmp()
	return runtimeName + ".Shown(" + v + ", func(" + x + " " + t + ") func() string { return func() string { return " + x + "." + m + "() } }(" + v + "))"
}

// wrapArg makes arg the argument of the function literal lit, called in
// its place.
func (rw *rewriter) wrapArg(arg ast.Expr, lit string) {
	at, end := rw.off(arg.Pos()), rw.off(arg.End())
	if rw.replaced(at, end) || rw.straddles(at) || rw.straddles(end) {
		return
	}
	if strings.Contains(lit, runtimeName+".") {
		rw.importRuntime()
	}
	rw.add(at, at, lit+"(")
	rw.edits = append(rw.edits, edit{at: end, end: end, with: ")", seq: 1 << 30})
}

// shownValue is what Shown gives: a value and its String or Error
// method, formatted as fmt formats a value with that method.
type shownValue struct {
	IValue any // the first field's name makes unboxed see the value
	method func() string
}

func (s shownValue) Format(f fmt.State, verb rune) { formatWrapped(f, verb, s.IValue, s.method) }

// shownError is what AsError gives for a value the host does not see as
// an error.
type shownError struct {
	IValue any
	method func() string
}

func (e shownError) Error() string { return e.method() }

// shownFields is what Fields gives: a struct's fields by name, printed as
// fmt prints a struct ({a b}, {x:a y:b} under %+v), each field under
// the verb.
type shownFields struct {
	names []string
	vals  []any
}

func (s shownFields) Format(f fmt.State, verb rune) {
	format := fmt.FormatString(f, verb)
	plus := verb == 'v' && f.Flag('+')
	fmt.Fprint(f, "{")
	for k, v := range s.vals {
		if k > 0 {
			fmt.Fprint(f, " ")
		}
		if plus {
			fmt.Fprint(f, s.names[k]+":")
			if renamed := renamedFields(reflect.TypeOf(v), map[reflect.Type]bool{}, nil); len(renamed) > 0 {
				v = declaredNames{v, renamed}
			}
		}
		fmt.Fprintf(f, format, v)
	}
	fmt.Fprint(f, "}")
}

// shownRef is what Ref gives: a pointer to a struct printed as fmt
// prints one given as an argument, & and the struct.
type shownRef struct{ v any }

func (r shownRef) Format(f fmt.State, verb rune) {
	fmt.Fprint(f, "&")
	fmt.Fprintf(f, fmt.FormatString(f, verb), r.v)
}

// shownMap is what Map gives: a map printed as fmt prints one, map[k:v
// ...], in the order fmt sorts its keys (by the keys' values, raw), each
// key and value formatted as fmt formats an element.
type shownMap struct {
	keys, vals []any
}

func newShownMap(raw any, keys, vals []any) shownMap {
	rv := reflect.ValueOf(raw) // a slice of the keys, of the map's key type
	order := make([]int, len(keys))
	for k := range order {
		order[k] = k
	}
	if rv.Kind() == reflect.Slice && rv.Len() == len(keys) {
		sort.SliceStable(order, func(a, b int) bool { return compareKeys(rv.Index(order[a]), rv.Index(order[b])) < 0 })
	}
	m := shownMap{make([]any, len(keys)), make([]any, len(keys))}
	for k, o := range order {
		m.keys[k], m.vals[k] = keys[o], vals[o]
	}
	m.keys, m.vals = unboxArgs(m.keys), unboxArgs(m.vals)
	return m
}

func (m shownMap) Format(f fmt.State, verb rune) {
	format := fmt.FormatString(f, verb)
	// An element of a slice is formatted as one of a map is (a pointer as
	// its address, not &{...}): each is printed alone in a slice, and the
	// slice's brackets dropped.
	elem := func(x any) string {
		s := fmt.Sprintf(format, []any{x})
		return s[1 : len(s)-1]
	}
	fmt.Fprint(f, "map[")
	for k := range m.keys {
		if k > 0 {
			fmt.Fprint(f, " ")
		}
		fmt.Fprint(f, elem(m.keys[k])+":"+elem(m.vals[k]))
	}
	fmt.Fprint(f, "]")
}

// compareKeys orders two map keys as fmt does (internal/fmtsort): numbers,
// strings and booleans by value, structs and arrays element by element;
// keys of other kinds keep their order.
func compareKeys(a, b reflect.Value) int {
	if !a.IsValid() || !b.IsValid() || a.Type() != b.Type() {
		return 0
	}
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.String:
		return cmp.Compare(a.String(), b.String())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	case reflect.Bool:
		switch {
		case a.Bool() == b.Bool():
			return 0
		case a.Bool():
			return 1
		}
		return -1
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if c := compareKeys(a.Field(i), b.Field(i)); c != 0 {
				return c
			}
		}
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if c := compareKeys(a.Index(i), b.Index(i)); c != 0 {
				return c
			}
		}
	}
	return 0
}

func init() {
	runtimeSymbols["Map"] = reflect.ValueOf(func(raw any, keys, vals []any) any { return newShownMap(raw, keys, vals) })
	runtimeSymbols["Ref"] = reflect.ValueOf(func(v any) any { return shownRef{v} })
	runtimeSymbols["Fields"] = reflect.ValueOf(func(names []string, vals []any) any { return shownFields{names, unboxArgs(vals)} })
	runtimeSymbols["Shown"] = reflect.ValueOf(func(v any, method func() string) any { return shownValue{v, method} })
	runtimeSymbols["AsError"] = reflect.ValueOf(func(v any, method func() string) any {
		if _, ok := v.(error); ok || v == nil {
			return v
		}
		return shownError{v, method}
	})
}

// Two conversions of a value of a type the file declares to an interface
// with methods lost the value's methods or its value: I(x) panicked
// ("reflect.Set: value of type struct {...} is not assignable to type
// error") or gave a value fmt printed without its Error method (any
// type with methods), and var e error = pt{1, 2} stored the bare struct,
// which printed "{1 2}" where Go calls its Error method and passed to a
// function panicked. Both go through a function's result, which the
// interpreter converts faithfully: func() I { return x }() (as a method
// call on a conversion does, interfaceConversionCalls).

// interfaceConversion rewrites I(x).
func (rw *rewriter) interfaceConversion(call *ast.CallExpr, info *types.Info) {
	if len(call.Args) != 1 || call.Ellipsis.IsValid() {
		return
	}
	tv, ok := info.Types[call.Fun]
	if !ok || !tv.IsType() || !nonEmptyInterface(tv.Type) || !rw.hasOwnMethods(info.Types[call.Args[0]].Type) {
		return
	}
	at, lp, rp := rw.off(call.Pos()), rw.off(call.Lparen), rw.off(call.Rparen)
	if strings.Contains(rw.text[at:lp], "\n") || rw.edited(at, lp+1) || rw.edited(rp, rp+1) || rw.straddles(at) || rw.straddles(rp+1) {
		return
	}
	rw.add(at, lp+1, "func() "+rw.src(call.Fun)+" { return ")
	rw.add(rp, rp+1, " }()")
}

// interfaceVarValues rewrites var x I = v for v of a struct type.
func (rw *rewriter) interfaceVarValues(spec *ast.ValueSpec, info *types.Info) {
	if spec.Type == nil || len(spec.Values) != len(spec.Names) {
		return
	}
	tv, ok := info.Types[spec.Type]
	if !ok || !nonEmptyInterface(tv.Type) {
		return
	}
	typ := rw.src(spec.Type)
	if strings.Contains(typ, "\n") {
		return
	}
	rw.interfaceValues(spec.Values, typ, info)
}

// interfaceAssignValues rewrites x = v for x of an interface type with
// methods and v of a struct type (err = notFound{id}), which stored the
// bare struct as var x I = v did.
func (rw *rewriter) interfaceAssignValues(a *ast.AssignStmt, info *types.Info) {
	if a.Tok != token.ASSIGN || len(a.Lhs) != len(a.Rhs) {
		return
	}
	for k, l := range a.Lhs {
		t := info.Types[l].Type
		if !nonEmptyInterface(t) {
			continue
		}
		typ, ok := rw.typeSource(t)
		if !ok {
			continue
		}
		rw.interfaceValues(a.Rhs[k:k+1], typ, info)
	}
}

// interfaceValues makes each of values of a struct type with methods a
// function's result of type typ.
func (rw *rewriter) interfaceValues(values []ast.Expr, typ string, info *types.Info) {
	for _, v := range values {
		t := info.Types[v].Type
		if t == nil || !rw.hasOwnMethods(t) {
			continue
		}
		if _, ok := t.Underlying().(*types.Struct); !ok {
			continue
		}
		at, end := rw.off(v.Pos()), rw.off(v.End())
		if rw.replaced(at, end) || rw.straddles(at) || rw.straddles(end) {
			continue
		}
		rw.add(at, at, "func() "+typ+" { return ")
		rw.edits = append(rw.edits, edit{at: end, end: end, with: " }()", seq: 1 << 30})
	}
}

// maybeType reports an expression the syntax allows to be a type in a
// conversion: a name, a package's name, an interface literal.
func maybeType(e ast.Expr) bool {
	switch e := unparen(e).(type) {
	case *ast.Ident, *ast.InterfaceType:
		return true
	case *ast.SelectorExpr:
		_, ok := e.X.(*ast.Ident)
		return ok
	}
	return false
}

func nonEmptyInterface(t types.Type) bool {
	if t == nil || !isInterface(t) {
		return false
	}
	return t.Underlying().(*types.Interface).NumMethods() > 0
}

// hasOwnMethods reports whether t is a type the file declares, not an
// interface, with methods.
func (rw *rewriter) hasOwnMethods(t types.Type) bool {
	if t == nil || isInterface(t) {
		return false
	}
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg() != rw.classes.pkg {
		return false
	}
	return types.NewMethodSet(t).Len() > 0
}

// anyStructValue reports whether the syntax allows one of values to be
// of a struct type: a composite literal, a name, a call, a selector, an
// index (not a literal of a basic type, not nil).
func anyStructValue(values []ast.Expr) bool {
	for _, v := range values {
		switch v := unparen(v).(type) {
		case *ast.CompositeLit, *ast.CallExpr, *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr:
			return true
		case *ast.Ident:
			if v.Name != "nil" {
				return true
			}
		}
	}
	return false
}
