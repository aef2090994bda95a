// Package typeswitchtypeparam names a type parameter in a type switch
// case, instantiated with an interface.
package typeswitchtypeparam

import "fmt"

func f[T any](i any) {
	switch i.(type) {
	case T: // refused: a type switch case naming the type parameter T
		fmt.Println("T")
	case int:
		fmt.Println("int")
	}
}

func Main() { f[any](6) }
