// Package selects holds select statements with every form of receive.
package selects

import (
	"fmt"
	"time"
)

func Main() {
	{
		ch := make(chan int, 1)
		ch <- 3
		var v int
		select {
		case v = <-ch:
		}
		fmt.Println("assign receive:", v)
	}
	{
		ch := make(chan int, 1)
		ch <- 4
		var v int
		var ok bool
		select {
		case v, ok = <-ch:
			fmt.Println("in case:", v, ok)
		}
		close(ch)
		select {
		case v, ok = <-ch:
		}
		fmt.Println("assign receive ok:", v, ok)
	}
	{
		ch := make(chan string, 1)
		ch <- "s"
		var res struct{ v string }
		m := map[string]string{}
		select {
		case res.v = <-ch:
		case <-time.After(time.Second):
		}
		ch <- "t"
		select {
		case m["k"] = <-ch:
		default:
		}
		fmt.Println("assign to field and map:", res.v, m)
	}
	{
		ch := make(chan error, 1)
		var err error
		ch <- fmt.Errorf("boom")
		select {
		case err = <-ch:
		default:
			err = nil
		}
		fmt.Println("error receive:", err)
	}
	{
		ch := make(chan int, 1)
		var x int
		select {
		case ch <- 5:
		}
		select {
		case x := <-ch:
			fmt.Println("define receive:", x)
		}
		fmt.Println("outer x untouched:", x)
	}
	{
		results := make(chan int, 3)
		for attempt := 1; attempt <= 3; attempt++ {
			go func() { results <- attempt * 10 }()
		}
		sum := 0
		for k := 0; k < 3; k++ {
			select {
			case r := <-results:
				sum += r
			case <-time.After(time.Second):
				sum = -1
			}
		}
		fmt.Println("goroutine attempts:", sum)
	}
	{
		// A case's variable is new each time the select runs, so each
		// pointer taken of it, and each closure, has its own.
		ch := make(chan int, 1)
		var ptrs [3]*int
		var fns []func() int
		for i := range ptrs {
			ch <- i
			select {
			case x := <-ch:
				ptrs[i] = &x
				fns = append(fns, func() int { return x * 10 })
			}
		}
		fmt.Println("case variables:", *ptrs[0], *ptrs[1], *ptrs[2], fns[0](), fns[2]())
	}
}
