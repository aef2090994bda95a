// Package fmtverbs prints values whose types have String or Error
// methods with every verb: fmt calls the method for %v %s %q %x %X and
// prints the value itself for %d and the others, the form a method uses
// to format its own receiver. The interpreter printed its wrapper's
// fields ("{21 5558176}") for %d. %+v shows the fields' names as
// declared; the interpreter showed the names it gave them (Xname). %T
// names the file's types as Go does (main.order), not by their structure
// (typenames.go has it for a value held in an interface: in this file,
// which declares types that are not structs, it is refused).
package fmtverbs

import (
	"errors"
	"fmt"
)

type celsius int

func (c celsius) String() string { return fmt.Sprintf("%d°C", c) }

type status int

func (s status) Error() string { return fmt.Sprintf("status %d (%03d)", s, s) }

type pair struct{ a, b int }

func (p pair) String() string { return fmt.Sprintf("<%d,%d>", p.a, p.b) }

type node struct{ id int }

type order struct {
	id    int
	Label string
	lines []line
	next  *order
	meta  map[string]line
}

type line struct{ sku string }

func (n *node) String() string { return fmt.Sprintf("node%d", n.id) }

func Main() {
	c := celsius(21)
	fmt.Println(c, fmt.Sprint(c), fmt.Sprintf("%v|%s|%d|%5d|%-4d|%x|%q", c, c, c, c, c, c, c))
	var s status = 404
	fmt.Println(s, fmt.Sprintf("%v %d %s", s, s, s))
	err := fmt.Errorf("get: %w", s)
	fmt.Println(err, errors.Unwrap(err) == error(s))
	p := pair{1, 2}
	fmt.Printf("%v %s\n", p, p)
	fmt.Println(&node{7}, fmt.Sprintf("%v %s", &node{8}, &node{9}))
	fmt.Printf("%6.2f|%t|%v\n", 3.14159, true, []int{1, 2})
	o := order{id: 1, Label: "first", lines: []line{{"a"}, {"b"}}, meta: map[string]line{"k": {"c"}}}
	fmt.Printf("%+v %v\n", o, o.lines)
	fmt.Printf("%T %T %T %T|%-8T|%T\n", c, o, &o, o.lines, s, 3)
	fmt.Println(fmt.Sprintf("%+v", &o.lines[0]), fmt.Errorf("order %+v: %w", o.lines[1], errors.New("x")))
}
