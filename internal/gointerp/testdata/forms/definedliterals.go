// Package definedliterals defines values beside a composite literal
// (got, want := f(), []int{1}; best, path := start, []string{start}) or
// a receive (n, v := 0, <-ch), where the interpreter lost every value but
// the literal or the received one.
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

var pkgC, pkgD any = pt{1, 1}, 3

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
	fmt.Println(n, w, c, d, x, y, m, k, p, q, pkgA, pkgB, pkgC, pkgD)
	Beside("a", 4)
}

// Beside defines values beside literals and receives with no call.
func Beside(start string, limit int) {
	best, path := start, []string{start}
	lo, hi, mid := 0, [2]int{limit, limit}, limit/2
	var seen, count = map[string]bool{start: true}, len(path)
	var a, b any = limit, pt{2, 3}
	fmt.Println(best, path, lo, hi, mid, seen, count, a, b)
	ch := make(chan int, 4)
	ch <- 10
	ch <- 20
	ch <- 30
	first, got := limit, <-ch
	var next, again = <-ch, first
	fmt.Println(first, got, next, again)
	if i, acc := 1, []int{limit}; i > 0 {
		fmt.Println("if", i, acc)
	}
	for i, p := limit, (pt{}); i < limit+2; i++ {
		p.x += i
		fmt.Println("for", i, p)
	}
	both, also := pt{1, 2}, <-ch
	fmt.Println(both, also)
}
