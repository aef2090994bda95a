// Package deferrecoverliteral defers, in a function literal, a method
// that recovers: the interpreter never ran the deferred call, and run
// from another literal its recover would stop no panic.
package deferrecoverliteral

import "fmt"

type guard struct{ name string }

func Main() {
	g := guard{"worker"}
	func() {
		defer g.recovered() // refused: which calls recover
		panic("boom")
	}()
	fmt.Println("after")
}

func (g guard) recovered() {
	if r := recover(); r != nil {
		fmt.Println(g.name, "recovered", r)
	}
}
