// Package selectbreakrangefunc leaves a range over a function with a
// labelled break from a select: the rewrites run the loop's body in a
// function literal, which no goto leaves.
package selectbreakrangefunc

import "fmt"

func upTo(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func Main() {
	done := make(chan struct{})
	close(done)
	sum := 0
loop:
	for i := range upTo(5) {
		select {
		case <-done:
			break loop // refused: break loop inside a select
		default:
			sum += i
		}
	}
	fmt.Println(sum)
}
