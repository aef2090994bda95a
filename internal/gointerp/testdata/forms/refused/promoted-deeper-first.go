// Package promoteddeeperfirst calls a method promoted at two depths, the
// deeper through the field declared first: Go picks the shallowest.
package promoteddeeperfirst

import "fmt"

type embedded string

func (s embedded) val() string { return string(s) }

type A struct{ embedded }

type B struct {
	A
	embedded
}

func Main() {
	b := B{A: A{embedded: "a"}, embedded: "b"}
	fmt.Println(b.val()) // refused: val is promoted from embedded fields at depths 1 and 2
}
