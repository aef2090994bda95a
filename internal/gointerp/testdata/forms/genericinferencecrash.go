// Package genericinferencecrash infers a type argument from a compiled
// function's result and a function literal, inside a closure, which
// crashes the interpreter's compiler: the call names a copy of firstWhere
// for its type arguments (genericInstances).
package genericinferencecrash

import (
	"fmt"
	"strings"
)

func firstWhere[T any](xs []T, keep func(T) bool) (T, bool) {
	for _, x := range xs {
		if keep(x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}

func Main() {
	want := "b"
	check := func() (bool, error) {
		list := strings.Fields("a b c")
		s, ok := firstWhere(list, func(s string) bool { return s == want })
		return ok && s == want, nil
	}
	fmt.Println(check())
}
