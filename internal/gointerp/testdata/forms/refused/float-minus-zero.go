// Package floatminuszero subtracts a constant zero from a float, which
// keeps -0 in Go.
package floatminuszero

import "fmt"

func sub(x float64) float64 {
	return x - 0 // refused: gives +0 for x - 0
}

func Main() {
	var zero float64
	negZero := -1 / (1 / zero)
	fmt.Println(1/sub(negZero) < 0)
}
