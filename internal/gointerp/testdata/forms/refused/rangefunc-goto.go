// Package rangefuncgoto leaves a range over a function with goto, which
// the rewrite into a call of the iterator cannot carry out of the call.
package rangefuncgoto

import "fmt"

func seq(yield func(int) bool) {
	for i := 0; i < 3; i++ {
		if !yield(i) {
			return
		}
	}
}

func Main() {
	for v := range seq {
		if v == 1 {
			goto done // refused: call the iterator with a function instead
		}
		fmt.Println(v)
	}
done:
	fmt.Println("done")
}
