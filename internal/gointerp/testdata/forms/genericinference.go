// Package genericinference relies on inferring a type argument from a
// function argument, where the interpreter's inference fails: the call
// names a copy of Map for its type arguments (genericInstances).
package genericinference

import "fmt"

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Main() {
	fmt.Println(Map([]int{1, 2}, func(i int) string { return fmt.Sprint(i) }))
}
