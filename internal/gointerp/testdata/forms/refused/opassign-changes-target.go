// Package opassignchangestarget adds to x[0] a value whose function changes
// x: Go finds the target (the first map) before it runs the function.
package opassignchangestarget

import "fmt"

func Main() {
	one := map[int]int{0: 1}
	two := map[int]int{0: 2}
	x := one
	x[0] += func() int { // refused: changes x, which its target goes through
		x = two
		return 0
	}()
	fmt.Println(one[0], two[0])
}
