// Package builtintuple gives copy a call's two results.
package builtintuple

import "fmt"

func f(a []byte) ([]byte, []byte) { return a, []byte("abc") }

func Main() {
	a := []byte{1, 2, 3}
	n := copy(f(a)) // refused: cannot pass a call's several results to copy
	fmt.Println(n, a)
}
