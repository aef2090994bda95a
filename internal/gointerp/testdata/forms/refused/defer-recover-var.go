// A function literal that calls recover, held in a variable and deferred:
// Go's recover stops the panic, the interpreter's did not.
package deferrecovervar

import "fmt"

func safe() (err error) {
	h := func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}
	defer h() // refused: does not stop the panic
	panic("boom")
}

func Main() {
	fmt.Println(safe())
}
