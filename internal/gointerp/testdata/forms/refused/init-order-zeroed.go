// Package initorderzeroed counts calls in a variable with no initialiser
// declared below the initialiser that calls: the interpreter zeroed it
// again after the call.
package initorderzeroed

import "fmt"

var n = count() // refused: uses calls

var calls int

func count() int { calls++; return calls }

func Main() { fmt.Println(n, calls) }
