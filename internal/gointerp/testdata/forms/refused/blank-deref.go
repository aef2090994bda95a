// Package blankderef assigns a dereference of a nil pointer to _, which
// panics in Go.
package blankderef

import "fmt"

func Main() {
	defer func() { fmt.Println(recover() != nil) }()
	var p *int
	_ = *p // refused: does not evaluate _ = *p
}
