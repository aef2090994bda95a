// Package switchnilconversion switches on a nil converted to a slice type.
package switchnilconversion

import "fmt"

func f[T any]() {
	switch []T(nil) { // refused: a switch on []T(nil)
	case nil:
		fmt.Println("nil")
	default:
		fmt.Println("not nil")
	}
}

func Main() { f[int]() }
