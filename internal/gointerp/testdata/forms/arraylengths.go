// Package arraylengths declares arrays whose length is a constant written
// otherwise than as an integer literal ([1e1]int), which crashed the
// interpreter's loading with no line.
package arraylengths

import "fmt"

const size = 4

var a [1e1]int
var b [size * 2]string

func Main() {
	var c [2.0]bool
	fmt.Println(len(a), len(b), len(c), a[9], c)
}
