// Package namedresults returns a function's named results in another
// order than they are declared, or in expressions of each other: the
// interpreter assigned the results one by one, so a swap gave the same
// value twice.
package namedresults

import "fmt"

func swap() (a, b int) {
	a, b = 1, 2
	return b, a
}

func mixed(x int) (lo, hi int, err error) {
	lo, hi = x, x*2
	if x < 0 {
		return hi, lo, fmt.Errorf("negative %d", x)
	}
	return hi - lo, lo + hi, nil
}

func inLiteral() (s string, n int) {
	f := func() (a, b string) {
		a, b = "a", "b"
		return b, a
	}
	s, _ = f()
	n = len(s)
	return
}

func Main() {
	fmt.Println(swap())
	fmt.Println(mixed(3))
	fmt.Println(mixed(-1))
	fmt.Println(inLiteral())
}
