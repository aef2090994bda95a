// Package selectbreak leaves a loop with a labelled break from a select,
// which the interpreter never does.
package selectbreak

import "fmt"

func Main() {
	ch := make(chan int)
	done := make(chan struct{})
	go func() {
		for i := 1; i <= 3; i++ {
			ch <- i
		}
		close(done)
	}()
	sum := 0
loop:
	for {
		select {
		case v := <-ch:
			sum += v
		case <-done:
			break loop // refused: break loop inside a select
		}
	}
	fmt.Println(sum)
}
