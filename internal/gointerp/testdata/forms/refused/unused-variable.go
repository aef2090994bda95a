// A local variable declared and never used is Go's compile error; the
// interpreter ran the file as if it were fine.
package unusedvariable

import "fmt"

func Main() {
	total := 0
	last := 1 // refused: declared and not used: last
	for i := range 3 {
		total += i
	}
	fmt.Println(total)
}
