package gointerp

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode"
)

// yaegi hands a value of an interpreted type to a host function's
// interface parameter in a wrapper: a struct whose first field, IValue,
// holds the value and whose other fields are the methods of the
// interface it was wrapped for (see NewInterpreter's fmtInterfaces). fmt
// sees only the wrapper, so yaegi's own wrappers for error and
// fmt.Stringer gave the wrong answer for every verb that is not a string
// verb: fmt.Sprintf("%d", c) of a type with a String method printed the
// wrapper's fields ("{21 5558176}") where Go prints the number, the form
// an Error or String method uses to format its own receiver.
//
// The wrappers below are the ones the fmt functions get instead (their
// interfaces are named in fmtInterfaces, their package registered under
// wrapperPath): each also implements fmt.Formatter and does what fmt does
// with such a value (printArg's handleMethods): the method for %v, %s,
// %q, %x and %X, the value itself for every other verb and for %#v.

// fmtError and fmtStringer are the interfaces fmt looks for; yaegi finds
// a wrapper for an interface by its package path and "_" + its name.
type (
	fmtError    interface{ Error() string }
	fmtStringer interface{ String() string }
)

type _fmtError struct {
	IValue any
	WError func() string
}

func (w _fmtError) Error() string { return w.WError() }

func (w _fmtError) Format(f fmt.State, verb rune) { formatWrapped(f, verb, w.IValue, w.WError) }

type _fmtStringer struct {
	IValue  any
	WString func() string
}

func (w _fmtStringer) String() string { return w.WString() }

func (w _fmtStringer) Format(f fmt.State, verb rune) { formatWrapped(f, verb, w.IValue, w.WString) }

// wrapperPath is the package path of the wrappers' types, under which
// NewInterpreter registers them (a submission cannot import it: it is not
// on the allowlist).
var wrapperPath = reflect.TypeFor[fmtError]().PkgPath()

// wrapperSymbols is the package yaegi looks the wrappers up in.
var wrapperSymbols = map[string]reflect.Value{
	"fmtError":     reflect.ValueOf((*fmtError)(nil)),
	"_fmtError":    reflect.ValueOf((*_fmtError)(nil)),
	"fmtStringer":  reflect.ValueOf((*fmtStringer)(nil)),
	"_fmtStringer": reflect.ValueOf((*_fmtStringer)(nil)),
}

// formatWrapped formats v, whose Error or String method is method, as fmt
// formats a value with that method under verb.
func formatWrapped(f fmt.State, verb rune, v any, method func() string) {
	switch {
	case verb == 'v' && f.Flag('#'), verb != 'v' && verb != 's' && verb != 'q' && verb != 'x' && verb != 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), v)
		return
	}
	defer func() {
		if r := recover(); r != nil {
			// fmt prints a nil pointer receiver whose method panics as
			// <nil>, and any other panic in the method in place.
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
				fmt.Fprint(f, "<nil>")
				return
			}
			fmt.Fprintf(f, "%%!%c(PANIC=%s method: %v)", verb, methodName(v), r)
		}
	}()
	fmt.Fprintf(f, fmt.FormatString(f, verb), method())
}

func methodName(v any) string {
	if _, ok := v.(error); ok {
		return "Error"
	}
	return "String"
}

// errorsAs is errors.As for a target of an interpreted concrete type
// (errors.As(err, &myErr) with myErr a *MyErr the file declares). The
// host's errors.As panics there ("*target must be interface or implement
// error"): yaegi's types have no methods the reflect package can see. Each
// error of the chain is unwrapped from its yaegi wrapper and compared by
// type with the target's; every other target goes to errors.As.
func errorsAs(err error, target any) bool {
	tv := reflect.ValueOf(target)
	if !tv.IsValid() || tv.Kind() != reflect.Pointer || tv.IsNil() {
		return errors.As(err, target) // its panic, as Go gives it
	}
	te := tv.Type().Elem()
	if te.Kind() == reflect.Interface || te.Implements(reflect.TypeFor[error]()) {
		return errors.As(err, target)
	}
	return asChain(err, tv, te)
}

func asChain(err error, tv reflect.Value, te reflect.Type) bool {
	for err != nil {
		if c := wrappedValue(err); c.IsValid() && c.Type() == te {
			tv.Elem().Set(c)
			return true
		}
		if x, ok := err.(interface{ As(any) bool }); ok && x.As(tv.Interface()) {
			return true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if asChain(e, tv, te) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// wrappedValue is the interpreted value inside a yaegi wrapper, or the
// value itself.
func wrappedValue(v any) reflect.Value {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Struct && rv.NumField() > 0 && rv.Type().Field(0).Name == "IValue" {
		return rv.Field(0).Elem()
	}
	return rv
}

// withErrorsAs is a copy of the errors package's symbols with As replaced
// by errorsAs, and Is by errorsIs (interp_errorsis.go).
func withErrorsAs(syms map[string]reflect.Value) map[string]reflect.Value {
	out := make(map[string]reflect.Value, len(syms))
	for k, v := range syms {
		out[k] = v
	}
	out["As"] = reflect.ValueOf(errorsAs)
	out["Is"] = reflect.ValueOf(errorsIs)
	return out
}

// unboxingFmt replaces the Print functions of f, a copy of fmt's symbols,
// by ones that first take every argument out of yaegi's box for a value
// of an interface type (see unboxed): a value of an interface type with
// methods converted to any (any(shape), []any{err}, a Shape stored in an
// any variable) reached fmt in that box, which printed as
// "{0xc000123 {0x4d5e60 0xc000456 409}}". Out of the box it prints as its
// value does (without its String or Error method, which the box hides).
func unboxingFmt(f map[string]reflect.Value, boxes *boxMethods) {
	print := func(name string) {
		g := f[name].Interface().(func(...any) (int, error))
		f[name] = reflect.ValueOf(func(a ...any) (int, error) { return g(boxes.showArgs(a)...) })
	}
	printf := func(name string) {
		g := f[name].Interface().(func(string, ...any) (int, error))
		f[name] = reflect.ValueOf(func(format string, a ...any) (int, error) { return g(format, formatArgs(format, boxes.showArgs(a))...) })
	}
	print("Print")
	print("Println")
	printf("Printf")
	f["Sprint"] = reflect.ValueOf(func(a ...any) string { return fmt.Sprint(boxes.showArgs(a)...) })
	f["Sprintln"] = reflect.ValueOf(func(a ...any) string { return fmt.Sprintln(boxes.showArgs(a)...) })
	f["Sprintf"] = reflect.ValueOf(func(format string, a ...any) string {
		return fmt.Sprintf(format, formatArgs(format, boxes.showArgs(a))...)
	})
	f["Errorf"] = reflect.ValueOf(func(format string, a ...any) error {
		return fmt.Errorf(format, formatArgs(format, boxes.showArgs(a))...)
	})
	f["Fprint"] = reflect.ValueOf(func(w io.Writer, a ...any) (int, error) { return fmt.Fprint(w, boxes.showArgs(a)...) })
	f["Fprintln"] = reflect.ValueOf(func(w io.Writer, a ...any) (int, error) { return fmt.Fprintln(w, boxes.showArgs(a)...) })
	f["Fprintf"] = reflect.ValueOf(func(w io.Writer, format string, a ...any) (int, error) {
		return fmt.Fprintf(w, format, formatArgs(format, boxes.showArgs(a))...)
	})
}

// unboxArgs is a with every boxed value unboxed, in a and in the []any
// values of a (a itself when none is).
func unboxArgs(a []any) []any {
	var out []any
	for k, x := range a {
		y := x
		switch v := x.(type) {
		case []any:
			u := unboxArgs(v)
			if len(v) == 0 || &u[0] == &v[0] {
				continue
			}
			y = u
		case map[string]any, map[int]any:
			// A map of any held its values in boxes too (map[string]any{"t": x}
			// printed map[t:{0xc000123 {...}}]).
			u, ok := unboxedMap(x)
			if !ok {
				continue
			}
			y = u
		default:
			if !isBox(x) {
				continue
			}
			y = nil
			if v := unboxed(x); v.IsValid() && v.CanInterface() {
				y = v.Interface()
			}
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

// unboxedMap is the map m (of any values) with its boxed values unboxed,
// ok false where none is.
func unboxedMap(m any) (any, bool) {
	rv := reflect.ValueOf(m)
	var out reflect.Value
	for it := rv.MapRange(); it.Next(); {
		x := it.Value().Interface()
		if !isBox(x) {
			continue
		}
		if !out.IsValid() {
			out = reflect.MakeMapWithSize(rv.Type(), rv.Len())
			for it := rv.MapRange(); it.Next(); {
				out.SetMapIndex(it.Key(), it.Value())
			}
		}
		var y any
		if v := unboxed(x); v.IsValid() && v.CanInterface() {
			y = v.Interface()
		}
		if y == nil {
			out.SetMapIndex(it.Key(), reflect.Zero(rv.Type().Elem()))
		} else {
			out.SetMapIndex(it.Key(), reflect.ValueOf(&y).Elem())
		}
	}
	if !out.IsValid() {
		return nil, false
	}
	return out.Interface(), true
}

func isBox(x any) bool {
	t := reflect.TypeOf(x)
	return t != nil && t.Name() == "valueInterface" && t.PkgPath() == "github.com/traefik/yaegi/interp"
}

// formatArgs is unboxArgs for a Printf-like function, and where the
// format has a %+v, each argument whose type holds a struct with a field
// yaegi renamed is wrapped so that %+v shows the fields' names as
// declared. yaegi builds a struct of the file's types with the reflect
// package, which takes exported fields only: a field name becomes
// "X" + name, and %+v printed {Xname:x Xcount:1} where Go prints
// {name:x count:1}. (A field declared with a name of X and a lower case
// letter, Xavier, is taken as renamed too.)
func formatArgs(format string, a []any) []any {
	a = unboxArgs(a)
	if !strings.Contains(format, "%+") {
		return a
	}
	var out []any
	for k, x := range a {
		renamed := renamedFields(reflect.TypeOf(x), map[reflect.Type]bool{}, nil)
		if len(renamed) == 0 {
			continue
		}
		if out == nil {
			out = append([]any(nil), a...)
		}
		out[k] = declaredNames{x, renamed}
	}
	if out == nil {
		return a
	}
	return out
}

// renamedFields adds to names the renamed fields of the structs t holds.
func renamedFields(t reflect.Type, seen map[reflect.Type]bool, names []string) []string {
	if t == nil || seen[t] {
		return names
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return renamedFields(t.Elem(), seen, names)
	case reflect.Map:
		return renamedFields(t.Elem(), seen, renamedFields(t.Key(), seen, names))
	case reflect.Struct:
		if t.PkgPath() != "" || t.Name() != "" {
			return names // a host type: its names are its own
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if len(f.Name) > 1 && f.Name[0] == 'X' && (f.Name[1] == '_' || unicode.IsLower(rune(f.Name[1]))) {
				names = append(names, f.Name)
			}
			names = renamedFields(f.Type, seen, names)
		}
	}
	return names
}

// declaredNames formats v as fmt does, with the renamed fields' names
// restored under %+v.
type declaredNames struct {
	v       any
	renamed []string
}

func (d declaredNames) Format(f fmt.State, verb rune) {
	if verb != 'v' || !f.Flag('+') {
		fmt.Fprintf(f, fmt.FormatString(f, verb), d.v)
		return
	}
	s := fmt.Sprintf(fmt.FormatString(f, verb), d.v)
	for _, n := range d.renamed {
		s = strings.ReplaceAll(s, "{"+n+":", "{"+n[1:]+":")
		s = strings.ReplaceAll(s, " "+n+":", " "+n[1:]+":")
	}
	fmt.Fprint(f, s)
}
