// A constant assigned to a variable whose type it does not fit is Go's
// compile error; the interpreter stored it wrapped.
package constantoverflowassign

import "fmt"

func Main() {
	var level int8
	level = 128 // refused: cannot use 128 (untyped int constant) as int8 value in assignment (overflows)
	fmt.Println(level, uint8(255))
}
