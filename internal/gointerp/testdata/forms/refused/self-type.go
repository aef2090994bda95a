// Package selftype declares a state function type that returns itself, a
// form yaegi's compiler crashed on ("nil type", no line) at any use.
package selftype

import "fmt"

type stateFn func(n int) stateFn // refused: refers to itself other than through a struct

func count(n int) stateFn {
	fmt.Println(n)
	return count
}

func Main() { count(1)(2)(3) }
