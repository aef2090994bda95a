// Package assertowninterface asserts a value of its own type to an
// interface it declares, which panics in the interpreter.
package assertowninterface

import "fmt"

type logger interface{ log(string) string }

type printer struct{ tag string }

func (p printer) log(s string) string { return p.tag + s }

func Main() {
	var x any = printer{"t"}
	if l, ok := x.(logger); ok { // refused: a type assertion to an interface
		fmt.Println(l.log("!"))
	}
}
