package gointerp

import (
	"errors"
	"reflect"
)

// errors.Is with an error of a type the file declares (type status int
// with an Error method, a value of it as the target or in the chain)
// answered false even for errors.Is(err, err): yaegi hands each side to
// the host in a wrapper of its own (a struct holding the value and the
// Error method as a func), and two wrappers are never ==. errorsIs,
// which the errors package's Is is replaced by, compares the values
// inside the wrappers, as Go compares two errors: the same dynamic type
// and equal values, and calls an Is method of a host error in the chain.
//
// A target of a struct type the file declares, used as an error by value
// (errors.Is(err, notFound{id: 1})), is refused at its line
// (errorsIsTarget): the interpreter hands such a value to host code
// holding one of its fields instead of the struct, so no comparison can
// be faithful.
//
// Its parameters are of type any, not error: yaegi hands an error
// variable holding a struct value to an error parameter as the bare
// struct, which the host call then refused (it panicked "reflect: Call
// using struct {...} as type error").
func errorsIs(err, target any) bool {
	ev, tv := unboxed(err), unboxed(target)
	if !ev.IsValid() || !tv.IsValid() {
		return !ev.IsValid() && !tv.IsValid()
	}
	if sameValue(ev, tv) {
		return true
	}
	var te error
	if e, ok := target.(error); ok {
		te = e
	} else if tv.CanInterface() {
		te, _ = tv.Interface().(error)
	}
	e, ok := err.(error)
	return ok && isChain(e, tv, te)
}

func isChain(err error, tv reflect.Value, te error) bool {
	for err != nil {
		if sameValue(unboxed(err), tv) {
			return true
		}
		if x, ok := err.(interface{ Is(error) bool }); ok && te != nil && x.Is(te) {
			return true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if isChain(e, tv, te) {
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

// sameValue reports whether a and b are of one comparable type and ==.
func sameValue(a, b reflect.Value) (same bool) {
	if !a.IsValid() || !b.IsValid() || a.Type() != b.Type() || !a.Type().Comparable() || !a.CanInterface() || !b.CanInterface() {
		return false
	}
	defer func() {
		if recover() != nil {
			same = false // a struct holding an uncomparable value in an interface field
		}
	}()
	return a.Interface() == b.Interface()
}

var _ = errors.Is // the function errorsIs stands in for
