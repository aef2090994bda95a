// Package definedliterals defines a call's value beside a composite
// literal (got, want := f(), []int{1}), where the interpreter lost the
// call's value.
package definedliterals

import "fmt"

type pt struct{ x, y int }

func vals() []int { return []int{1, 2} }

func num() int { return 7 }

func keys[K comparable, V any](m map[K]V) []K {
	r := make([]K, 0, len(m))
	for k := range m {
		r = append(r, k)
	}
	return r
}

var pkgA, pkgB = vals(), []string{"p"}

func Main() {
	if got, want := vals(), []int{1, 2}; len(got) != len(want) {
		fmt.Println("differ", got, want)
	} else {
		fmt.Println("same", got, want)
	}
	n, w := num(), []int{1}
	c, d := vals(), pt{1, 2}
	x, y := [2]int{3, 4}, vals()
	m, k := map[string]int{"a": 1}, keys(map[string]bool{"k": true})
	var p, q = num(), pt{5, 6}
	fmt.Println(n, w, c, d, x, y, m, k, p, q, pkgA, pkgB)
}
