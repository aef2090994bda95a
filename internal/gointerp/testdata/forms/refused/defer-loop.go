// Package deferloop defers inside a loop: the interpreter would run every
// deferred call with the last iteration's values, so it is refused.
package deferloop

import "fmt"

func Main() {
	var defers []int
	func() {
		for i := 0; i < 3; i++ {
			defer func() { defers = append(defers, i) }() // refused: defer inside a loop
		}
	}()
	fmt.Println(defers)
}
