// Package localtypetwin declares a type in a function with the name and
// the underlying type of a package-level one: the interpreter took one
// for the other in a type assertion.
package localtypetwin

import "fmt"

type T struct{ a, b int }

func inner() any {
	type T struct{ a, b int } // refused: takes the type T declared here for the type T declared at line 8
	return T{1, 2}
}

func Main() {
	_, ok := inner().(T)
	fmt.Println(ok)
}
