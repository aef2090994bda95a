// Package typenames prints %T of values held in interfaces, in a file
// whose own types are all structs: the interpreter keeps a struct in an
// any as the struct, so its name is found (TypeName), where it printed
// the structure. (A file declaring a type that is not a struct has %T of
// an interface refused: see refused/typename-interface.go.)
package typenames

import (
	"errors"
	"fmt"
)

type order struct {
	id    int
	lines []line
}

type line struct{ sku string }

type notFound struct{ id int }

func (n *notFound) Error() string { return fmt.Sprintf("%d not found", n.id) }

func find(id int) error { return &notFound{id} }

func Main() {
	o := order{id: 1, lines: []line{{"a"}}}
	var shown any = o
	var e2 error = fmt.Errorf("x")
	fmt.Printf("%T %T %T %T %T\n", shown, any(&o), e2, any(2.5), any(nil))
	fmt.Printf("%T %T %v\n", find(2), errors.New("y"), find(3))
	for _, v := range []any{o.lines[0], &o, 3, "s"} {
		fmt.Printf("%T;", v)
	}
	fmt.Println()
}
