// Package stringers passes values with String and Error methods to fmt's
// Print functions (which the grader points at each worker's output) and
// calls' results straight to fmt (callResultArgs): both printed fields
// where Go calls the method.
package stringers

import (
	"errors"
	"fmt"
)

type level int

func (l level) String() string { return fmt.Sprint("L", int(l)) }

func (l level) up() level { return l + 1 }

func upF(l level) level { return l + 1 }

type point struct{ x, y int }

func (p *point) String() string { return fmt.Sprintf("(%d,%d)", p.x, p.y) }

func origin() *point { return &point{} }

type codeErr struct{ code int }

func (e codeErr) Error() string { return fmt.Sprint("code ", e.code) }

func fail() error { return codeErr{3} }

func asCode() codeErr { return codeErr{5} }

func two() (level, *point) { return 1, &point{1, 2} }

var errBase = errors.New("base")

type named struct {
	level
	name string
}

func Main() {
	var l level = 4
	p := &point{2, 3}
	fmt.Println("vars", l, p)
	fmt.Printf("printf %v %s %d\n", l, p, int(l))
	fmt.Print("print ", l, "\n")
	var x any = l
	fmt.Println("any", x)
	fmt.Println("calls", upF(l), l.up(), origin())
	fmt.Println(upF(l))
	fmt.Println(l.up())
	fmt.Println("sprint", fmt.Sprint(upF(l)), fmt.Sprintf("%v|%s", upF(l), origin()))
	fmt.Println("errors", fail(), asCode(), fmt.Errorf("ctx: %w", fail()))
	fmt.Println("is", errors.Is(fmt.Errorf("x: %w", errBase), errBase))
	e := asCode()
	fmt.Println("error values", e, codeErr{6}, fmt.Sprintf("%v", e))
	n := named{level: 2, name: "n"}
	fmt.Println("promoted", n, &n, fmt.Sprint(n))
	a, b := two()
	fmt.Println("two", a, b)
}
