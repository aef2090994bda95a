// Package initordereffects has initialisers with effects that Go runs in
// dependency order and the interpreter in levels.
package initordereffects

import "fmt"

var trace string

var (
	_ = d
	_ = f("_", c, b)
	a = f("a")
	b = f("b")
	c = f("c")
	d = f("d") // refused: Go runs this package variable's initialiser after the one at line 11
)

func f(s string, rest ...int) int {
	trace += s
	return 0
}

func Main() { fmt.Println(trace) }
