// %T of a value held in an interface, in a file declaring a type that is
// not a struct: the interpreter stores a celsius in an interface as an
// int, and %T printed "int" where Go prints "main.celsius".
package typenameinterface

import "fmt"

type celsius int

func Main() {
	var v any = celsius(21)
	fmt.Printf("%T\n", v) // refused: %T of a value held in an interface
}
