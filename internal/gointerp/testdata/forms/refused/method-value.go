// Package methodvalue makes a method value of a value-receiver method: Go
// copies the receiver then, the interpreter reads it at the call.
package methodvalue

import "fmt"

type counter struct{ n int }

func (c counter) Value() int { return c.n }

func Main() {
	c := counter{1}
	v := c.Value // refused: the method value c.Value
	c.n = 5
	fmt.Println(v())
}
