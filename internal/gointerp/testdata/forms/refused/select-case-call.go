// Package selectcasecall has a select whose case gets its channel from a
// call that changes the value another case sends: Go evaluates the cases
// in order.
package selectcasecall

import "fmt"

func makec(px *int) chan bool {
	*px = 42
	return make(chan bool)
}

func Main() {
	c := make(chan int, 1)
	x := 0
	select {
	case c <- x:
	case <-makec(&x): // refused: calls makec(&x) after it evaluates the value
	}
	fmt.Println(<-c)
}
