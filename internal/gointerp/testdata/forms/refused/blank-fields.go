// A struct with padding written as several blank fields: the interpreter
// crashed loading it, naming no line.
package blankfields

import "fmt"

type header struct {
	_    [1]byte
	kind byte
	_    [2]byte // refused: more than one blank (_) field
	size uint16
}

func Main() {
	fmt.Println(header{kind: 1, size: 2}.size)
}
