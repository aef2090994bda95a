// A map keyed by an interface with methods: the interpreter panicked
// indexing it with a struct key, and keys converted first were never found.
package mapinterfacekey

import "fmt"

type Shape interface{ Area() float64 }

type rect struct{ w, h float64 }

func (r rect) Area() float64 { return r.w * r.h }

func Main() {
	names := map[Shape]string{rect{1, 2}: "r"} // refused: a map keyed by the interface Shape
	fmt.Println(names[rect{1, 2}])
}
