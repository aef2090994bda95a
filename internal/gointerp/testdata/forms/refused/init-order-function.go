// Package initorderfunction initialises a package variable by a call whose
// function reads a variable declared below it: Go sets that one first,
// the interpreter after.
package initorderfunction

import "fmt"

var client = newClient() // refused: uses timeout (line 10), which the interpreter sets only after it

var timeout = 5

func newClient() int { return timeout * 2 }

func Main() { fmt.Println(client) }
