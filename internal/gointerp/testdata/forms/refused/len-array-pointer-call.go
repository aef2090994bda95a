// Package lenarraypointercall takes len of a call's pointer to an array:
// Go gives the length without reading the (nil) pointer.
package lenarraypointercall

import "fmt"

func f() *[4]int { return nil }

func Main() {
	n := len(f()) // refused: len of a pointer to an array
	fmt.Println(n)
}
