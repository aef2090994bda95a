// Package recursivefunctype declares a function type that names itself,
// the state machine of text/template's lexer, which crashes the
// interpreter's compiler with no line.
package recursivefunctype

import "fmt"

type machine struct{ n int }

type stateFn func(*machine) stateFn // refused: hold the function in a struct

func start(m *machine) stateFn {
	m.n++
	if m.n > 2 {
		return nil
	}
	return start
}

func Main() {
	m := &machine{}
	for s := stateFn(start); s != nil; {
		s = s(m)
	}
	fmt.Println(m.n)
}
