// A constant that does not fit its type is Go's compile error; the
// interpreter stored it wrapped (x was -56).
package constantoverflow

import "fmt"

const x int8 = 200 // refused: cannot use 200 (untyped int constant) as int8 value in constant declaration (overflows)

func Main() {
	var b byte = 300
	fmt.Println(x, b)
}
