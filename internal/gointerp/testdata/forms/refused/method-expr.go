// Package methodexpr calls a method expression, which panics in the
// interpreter.
package methodexpr

import "fmt"

type counter struct{ n int }

func (c *counter) Inc() int { c.n++; return c.n }

func Main() {
	c := &counter{}
	inc := (*counter).Inc // refused: method expressions
	fmt.Println(inc(c))
}
