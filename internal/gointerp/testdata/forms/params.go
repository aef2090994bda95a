// Package params holds functions whose parameters have no names, as
// handlers and callbacks often do (func(int) ..., func(context.Context,
// string)), which call into compiled code: the interpreter put such a
// parameter in the slot of the compiled function's value.
package params

import (
	"fmt"
	"strconv"
	"strings"
)

func seven(int) (string, error) { return strconv.Itoa(7), nil }

func pair(int, string) string { return strings.Repeat("ab", 2) }

func blank(_ int) string { return strconv.Itoa(8) }

func variadic(...int) string { return strings.ToUpper("v") }

type greeter struct{ name string }

func (g greeter) greet(string) string { return strings.TrimSpace(" hi " + g.name + " ") }

func apply[T any](f func(n int) (T, error)) T {
	v, _ := f(3)
	return v
}

func Main() {
	s, err := seven(1)
	fmt.Println("decl", s, err)
	fmt.Println("two", pair(1, "x"))
	fmt.Println("blank", blank(1))
	fmt.Println("variadic", variadic(1, 2))
	fmt.Println("method", greeter{"ann"}.greet("x"))
	f := func(int) (string, error) { return strconv.Quote("c"), nil }
	c, _ := f(2)
	fmt.Println("closure", c)
	fmt.Println("generic", apply[string](func(int) (string, error) { return strconv.Itoa(9), nil }))
	g := func(string, int) int { n, _ := strconv.Atoi("42"); return n }
	fmt.Println("closure two", g("a", 1))
}
