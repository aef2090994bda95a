// Package rangefuncdefer defers inside a range over a function: in the
// call of the iterator the rewrite makes, the defer would run at the end
// of each step rather than of the function.
package rangefuncdefer

import "fmt"

func seq(yield func(int) bool) {
	for i := 0; i < 3; i++ {
		if !yield(i) {
			return
		}
	}
}

func Main() {
	func() {
		for v := range seq {
			defer fmt.Println(v) // refused: defer inside
		}
	}()
}
