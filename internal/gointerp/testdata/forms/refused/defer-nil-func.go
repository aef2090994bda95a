// Package defernilfunc defers a nil function, which panics in Go when the
// function returns, and an earlier deferred recover stops it.
package defernilfunc

import "fmt"

func Main() {
	defer func() { fmt.Println(recover() != nil) }()
	defer ((func())(nil))() // refused: deferring a nil function
}
