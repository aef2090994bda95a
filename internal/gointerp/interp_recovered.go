package gointerp

import (
	"reflect"
	"strings"
)

// The interpreter runs an index, a slice expression or a dereference of
// interpreted values through the reflect package, so where Go panics with
// a runtime error (runtime.Error, an error) the interpreter panicked with
// reflect's own value: a string ("reflect: slice index out of range") or a
// *reflect.ValueError for a nil pointer. recover() then gave a value that
// is not an error, and the everyday r.(error) of a deferred recover
// failed. Recovered (see recovers in interp_rewrite.go) turns these into a
// runtime error with Go's words; the details Go adds (the index, the
// length) are not known here.

// runtimeError is a runtime error as Go's runtime gives it: an error
// with a RuntimeError method (runtime.Error), whose message starts
// "runtime error: ".
type runtimeError struct{ msg string }

func (e runtimeError) Error() string { return "runtime error: " + e.msg }

func (runtimeError) RuntimeError() {}

// reflectPanics maps the start of reflect's panic messages to Go's.
var reflectPanics = []struct{ prefix, msg string }{
	{"reflect: slice index out of range", "index out of range"},
	{"reflect: array index out of range", "index out of range"},
	{"reflect: string index out of range", "index out of range"},
	{"reflect.Value.Slice: slice index out of bounds", "slice bounds out of range"},
	{"reflect.Value.Slice3: slice index out of bounds", "slice bounds out of range"},
	{"reflect: call of reflect.Value.Elem on zero Value", "invalid memory address or nil pointer dereference"},
	{"reflect: call of reflect.Value.Field on zero Value", "invalid memory address or nil pointer dereference"},
	{"reflect.MakeSlice: len > cap", "makeslice: cap out of range"},
	{"reflect.MakeSlice: negative len", "makeslice: len out of range"},
	{"reflect.MakeSlice: negative cap", "makeslice: cap out of range"},
	{"reflect.Value.Grow: slice overflow", "growslice: len out of range"},
}

// asRuntimeError is v, or the runtime error Go would have panicked with
// where v is a panic of the reflect package.
func asRuntimeError(v any) any {
	var msg string
	switch x := v.(type) {
	case string:
		msg = x
	case *reflect.ValueError:
		msg = x.Error()
	default:
		return v
	}
	for _, p := range reflectPanics {
		if strings.HasPrefix(msg, p.prefix) {
			return runtimeError{p.msg}
		}
	}
	if _, ok := v.(*reflect.ValueError); ok {
		return runtimeError{"invalid memory address or nil pointer dereference"}
	}
	return v
}

func init() {
	recovered := runtimeSymbols["Recovered"].Interface().(func(any) any)
	runtimeSymbols["Recovered"] = reflect.ValueOf(func(v any) any { return asRuntimeError(recovered(v)) })
}
