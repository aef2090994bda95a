package gointerp

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"sync"
)

// A value of a type the file declares with a String or Error method, held
// in an empty interface (a variable or field of type any, an element of a
// []any or map[K]any, the args of a func(format string, args ...any)
// that forwards them to fmt), printed without the method, or worse:
//
//   - yaegi keeps such a value in a box of its own (valueInterface: the
//     node that made it, whose type has the methods, and the value). A box
//     inside a slice, map or struct reached fmt as it was, and printed as
//     the bare value ([]any{celsius(5)} held in a variable printed "[5]",
//     fmt.Printf(format, args...) in a logging helper printed "5") or as
//     the box's own fields (a struct with a field of type any printed
//     "{{0xc000123 {0x4d5e60 0xc000456 142}} n}").
//   - a box passed to fmt directly (fmt.Println(v) with v of type any) was
//     wrapped with its method by yaegi, but the wrapper re-reads the value
//     from the node that made the box in the current function's frame
//     (getBinValue, genInterfaceWrapper): in a helper func show(v any) {
//     fmt.Println(v) } it read another variable of the helper, and
//     printed "<nil>" or "%!v(PANIC=String method: reflect.Set: value of
//     type int is not assignable to type float64)".
//
// The fix has two halves. The file gets an init function (appended) that
// registers, for each type of the file with such a method (and each
// pointer type whose method set has it), a function of the file calling
// the method on a value given as any (boxMethods.register, keyed by the
// name yaegi gives the type). fmt's functions (unboxingFmt) take each
// box out of the arguments, out of []any, map[K]any and the file's
// structs in them, and hand fmt the value with its method (shownValue) if
// its type is registered, the bare value if not. And an argument of a
// fmt call whose type is an empty interface goes through the runtime's
// Keep, which yaegi does not wrap: it hands over the box as it is, in a
// struct of ours (kept) that yaegi does not take apart either.
//
// The conversion any(x) made no box at all (yaegi converts x to its
// underlying value): it is rewritten to a call of a function literal with
// a parameter of type any, which boxes x as any assignment does (anyBoxes).

// boxMethods is one interpreter's registry of the file's String and Error
// methods by yaegi's name of the receiver's type ("main.celsius",
// "*main.pt").
type boxMethods struct {
	mu sync.RWMutex
	m  map[string]boxMethod
}

type boxMethod struct {
	name string // Error or String
	call func(any) string
}

// register records the method name of the type of sample (a box), which
// call calls on a box of that type.
func (r *boxMethods) register(sample any, name string, call func(any) string) {
	key := boxType(sample)
	if key == "" || call == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]boxMethod{}
	}
	r.m[key] = boxMethod{name, call}
}

func (r *boxMethods) lookup(key string) (boxMethod, bool) {
	if r == nil || key == "" {
		return boxMethod{}, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.m[key]
	return m, ok
}

// kept is what the runtime's Keep gives: a box, handed over as it is.
type kept struct{ box any }

// boxType is yaegi's name of the type of the value in box x (the type of
// the node that made it), or "" if x is no box or its type is unknown.
func boxType(x any) string {
	if !isBox(x) {
		return ""
	}
	n := reflect.ValueOf(x).Field(0)
	if n.Kind() != reflect.Pointer || n.IsNil() {
		return ""
	}
	t := n.Elem().FieldByName("typ")
	if !t.IsValid() || t.Kind() != reflect.Pointer || t.IsNil() {
		return ""
	}
	s := t.Elem().FieldByName("str")
	if !s.IsValid() || s.Kind() != reflect.String {
		return ""
	}
	return s.String()
}

// show is what fmt should get for x, an element of what a fmt function
// was given: a box's value with the method registered for its type, or
// the bare value; x itself where it holds no box. Inside a slice, map or
// struct the same, at every depth (fmt calls the methods of the elements
// of a slice or map and of the exported fields of a struct).
func (r *boxMethods) show(x any, depth int) (any, bool) {
	if k, ok := x.(kept); ok {
		y, _ := r.show(k.box, depth)
		return y, true
	}
	if isBox(x) {
		var bare any
		if v := unboxed(x); v.IsValid() && v.CanInterface() {
			bare = v.Interface()
		}
		if m, ok := r.lookup(boxType(x)); ok {
			return shownValue{bare, func() string { return m.call(x) }}, true
		}
		if y, ok := r.show(bare, depth); ok {
			return y, true
		}
		return bare, true
	}
	if depth > 6 || x == nil {
		return x, false
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() || !mayHoldBox(rv.Type().Elem()) {
			return x, false
		}
		out := make([]any, rv.Len())
		changed := false
		for k := range out {
			e := rv.Index(k)
			if !e.CanInterface() {
				return x, false
			}
			y, ok := r.show(e.Interface(), depth+1)
			out[k], changed = y, changed || ok
		}
		if !changed {
			return x, false
		}
		return out, true
	case reflect.Map:
		if rv.IsNil() || !mayHoldBox(rv.Type().Elem()) {
			return x, false
		}
		var out reflect.Value
		for it := rv.MapRange(); it.Next(); {
			if !it.Value().CanInterface() {
				return x, false
			}
			y, ok := r.show(it.Value().Interface(), depth+1)
			if !ok {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeMapWithSize(reflect.MapOf(rv.Type().Key(), reflect.TypeFor[any]()), rv.Len())
				for it := rv.MapRange(); it.Next(); {
					out.SetMapIndex(it.Key(), reflect.ValueOf(it.Value().Interface()))
				}
			}
			if y == nil {
				out.SetMapIndex(it.Key(), reflect.Zero(out.Type().Elem()))
			} else {
				out.SetMapIndex(it.Key(), reflect.ValueOf(&y).Elem())
			}
		}
		if !out.IsValid() {
			return x, false
		}
		return out.Interface(), true
	case reflect.Struct:
		t := rv.Type()
		if t.PkgPath() != "" || t.Name() != "" || !mayHoldBox(t) {
			return x, false // a host type, or one without a box in it
		}
		names, vals := make([]string, t.NumField()), make([]any, t.NumField())
		changed := false
		for i := range names {
			f := t.Field(i)
			names[i] = f.Name
			if renamedField(f.Name) {
				names[i] = f.Name[1:]
			}
			fv := rv.Field(i)
			if !fv.CanInterface() {
				return x, false
			}
			vals[i] = fv.Interface()
			if y, ok := r.show(vals[i], depth+1); ok {
				if renamedField(f.Name) {
					// fmt calls no method of an unexported field.
					if v := unboxed(vals[i]); v.IsValid() && v.CanInterface() {
						y = v.Interface()
					}
				}
				vals[i], changed = y, true
			}
		}
		if !changed {
			return x, false
		}
		return shownFields{names, vals}, true
	case reflect.Pointer:
		if depth > 0 || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
			return x, false // fmt prints a pointer inside a value as its address
		}
		if y, ok := r.show(rv.Elem().Interface(), depth); ok {
			return shownRef{y}, true
		}
	}
	return x, false
}

// mayHoldBox reports whether a value of t may hold a box: an interface,
// or a slice, array, map or struct with one in it.
func mayHoldBox(t reflect.Type) bool {
	return holdsInterface(t, map[reflect.Type]bool{})
}

func holdsInterface(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Slice, reflect.Array, reflect.Map:
		return holdsInterface(t.Elem(), seen)
	case reflect.Struct:
		if t.PkgPath() != "" || t.Name() != "" {
			return false
		}
		for i := 0; i < t.NumField(); i++ {
			if holdsInterface(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// renamedField reports a field name yaegi made of an unexported one.
func renamedField(name string) bool {
	return len(name) > 1 && name[0] == 'X' && (name[1] == '_' || strings.ToLower(name[1:2]) == name[1:2] && strings.ToUpper(name[1:2]) != name[1:2])
}

// showArgs is a with each argument as show gives it (a itself when none
// changes).
func (r *boxMethods) showArgs(a []any) []any {
	var out []any
	for k, x := range a {
		y, ok := r.show(x, 0)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]any(nil), a...)
		}
		out[k] = y
	}
	if out == nil {
		return a
	}
	return out
}

// boxSymbols adds to rt, one interpreter's runtime package, the functions
// the rewrites call: Keep, and Methods, which registers in r.
func boxSymbols(rt map[string]reflect.Value, r *boxMethods) {
	rt["Keep"] = reflect.ValueOf(func(v any) any {
		if isBox(v) {
			return kept{v}
		}
		return v
	})
	rt["Shows"] = rt["Keep"]
	rt["Methods"] = reflect.ValueOf(r.register)
	rt["Fields"] = reflect.ValueOf(func(names []string, vals []any) any {
		out := make([]any, len(vals))
		for k, v := range vals {
			if k < len(names) && !token.IsExported(names[k]) {
				// fmt calls no method of an unexported field.
				out[k] = unboxArgs([]any{v})[0]
				continue
			}
			out[k], _ = r.show(v, 1)
		}
		return shownFields{names, out}
	})
}

// boxMethodsInit appends the init function that registers the methods of
// the file's types (see the top of the file).
func (rw *rewriter) boxMethodsInit() {
	local := map[string]bool{} // names of types declared in functions
	for _, d := range rw.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if ts, ok := n.(*ast.TypeSpec); ok {
					local[ts.Name.Name] = true
				}
				return true
			})
		}
	}
	var lines []string
	for _, d := range rw.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			if ts.TypeParams != nil || ts.Name.Name == "_" || local[ts.Name.Name] {
				continue
			}
			obj, ok := rw.typeInfo().Defs[ts.Name].(*types.TypeName)
			if !ok || obj.IsAlias() {
				continue
			}
			for _, t := range []types.Type{obj.Type(), types.NewPointer(obj.Type())} {
				m := rw.methodOf(t)
				if m == "" {
					continue
				}
				name := ts.Name.Name
				sample := "*new(" + name + ")"
				if _, ok := t.(*types.Pointer); ok {
					name = "*" + name
					sample = "(" + name + ")(nil)"
				}
				v, s := rw.tmp(), rw.tmp()
				lines = append(lines, fmt.Sprintf("{ var %s any = %s; %s.Methods(%s, %q, func(%s any) string { return %s.(%s).%s() }) }",
					s, sample, runtimeName, s, m, v, v, name, m))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	rw.importRuntime()
	rw.helper("box methods", func(string) string {
		return "func init() { " + strings.Join(lines, "; ") + " }"
	})
}

// keptArg hands arg, of an empty interface type, to fmt through Keep
// (see the top of the file), and reports whether it did.
func (rw *rewriter) keptArg(arg ast.Expr, t types.Type) bool {
	if !isInterface(t) || nonEmptyInterface(t) || isNilIdent(arg) || rw.typeInfo().Types[arg].IsNil() {
		return false
	}
	at, end := rw.off(arg.Pos()), rw.off(arg.End())
	if rw.replaced(at, end) || rw.straddles(at) || rw.straddles(end) {
		return false
	}
	rw.wrapArg(arg, runtimeName+".Keep")
	return true
}

// anyBoxes rewrites any(x) (interface{}(x)), for x of a type the file
// declares with methods, to func(v any) any { return v }(x).
func (rw *rewriter) anyBoxes(call *ast.CallExpr) {
	if len(call.Args) != 1 || call.Ellipsis.IsValid() || !maybeType(call.Fun) {
		return
	}
	ct := rw.typeOf(call.Fun)
	if ct == nil || !rw.typeInfo().Types[call.Fun].IsType() || !isInterface(ct) || nonEmptyInterface(ct) {
		return
	}
	if !rw.hasOwnMethods(rw.typeOf(call.Args[0])) {
		return
	}
	at, lp, rp := rw.off(call.Pos()), rw.off(call.Lparen), rw.off(call.Rparen)
	if rw.edited(at, lp+1) || rw.straddles(at) || rw.straddles(lp+1) || rw.straddles(rp) {
		return
	}
	v := rw.tmp()
	rw.add(at, lp, "func("+v+" any) any { return "+v+" }")
}

// literalsToAny rewrites each composite literal of values (of a type the
// file declares with methods) given to dest, the types of what they are
// assigned to: where dest is an empty interface (var w any = notFound{9},
// w = notFound{9}), yaegi stored the bare struct, without its type, and
// fmt.Println(w) printed "{9}". The literal goes through a function
// literal's parameter of type any, as anyBoxes does for any(x).
func (rw *rewriter) literalsToAny(values []ast.Expr, dest func(k int) types.Type) {
	for k, e := range values {
		t := dest(k)
		if t == nil || !isInterface(t) || nonEmptyInterface(t) {
			continue
		}
		x := unparen(e)
		if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
			continue // a pointer is kept with its type
		}
		if _, ok := x.(*ast.CompositeLit); !ok || !rw.hasOwnMethods(rw.typeOf(x)) {
			continue
		}
		at, end := rw.off(e.Pos()), rw.off(e.End())
		if rw.replaced(at, end) || rw.straddles(at) || rw.straddles(end) {
			continue
		}
		v := rw.tmp()
		rw.wrapArg(e, "func("+v+" any) any { return "+v+" }")
	}
}
