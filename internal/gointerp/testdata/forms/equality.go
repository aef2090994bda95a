// Package equality compares interface values: two interfaces holding
// equal values of a type with methods, an interface with a concrete
// value, values converted to any. The interpreter compared its own boxes
// of the values and answered false (rewritten to a call of the runtime's Equal),
// and a switch on an interface value panicked for a case of the file's types.
package equality

import (
	"errors"
	"fmt"
)

type shape interface{ area() int }

type square struct{ side int }

func (s square) area() int { return s.side * s.side }

type circle struct{ r int }

func (c *circle) area() int { return 3 * c.r * c.r }

type code int

func (c code) Error() string { return fmt.Sprint("code ", int(c)) }

var errSentinel = errors.New("sentinel")

func find(k int) error {
	switch k {
	case 1:
		return errSentinel
	case 2:
		return code(2)
	}
	return nil
}

func Main() {
	var a, b shape = square{2}, square{2}
	var c shape = square{3}
	fmt.Println("same value", a == b, a != b, a == c, a != c)
	fmt.Println("with concrete", a == square{2}, square{3} == a, c == square{3})
	p := &circle{1}
	var d, e shape = p, p
	var f shape = &circle{1}
	fmt.Println("pointers", d == e, d == f, d != f)
	var n shape
	fmt.Println("nil", n == nil, a == nil, n == a)
	x, y := any(a), any(b)
	fmt.Println("any", x == y, any(a) == any(c), x == any(square{2}))
	var s any = a
	fmt.Println("stored in any", s == x, s, x)
	fmt.Println("errors", find(1) == errSentinel, find(2) == code(2), find(2) == error(code(3)), find(0) == nil)
	err := find(2)
	if err == code(2) {
		fmt.Println("branch taken")
	}
	shapes := []shape{square{1}, &circle{1}, square{1}}
	for k, sh := range shapes {
		fmt.Println("loop", k, sh == shapes[0], sh == square{1})
	}
	fmt.Println("printed", []any{a, c}, fmt.Sprint(any(a)), fmt.Sprintf("%v", x))
	for k := 0; k < 4; k++ {
		switch find(k) {
		case nil:
			fmt.Println("switch", k, "nil")
		case errSentinel:
			fmt.Println("switch", k, "sentinel")
		case code(3), code(2):
			fmt.Println("switch", k, "code")
		default:
			fmt.Println("switch", k, "other")
		}
	}
	switch a {
	case square{3}:
		fmt.Println("switch shape 3")
	case square{2}:
		fmt.Println("switch shape 2")
	}
}
