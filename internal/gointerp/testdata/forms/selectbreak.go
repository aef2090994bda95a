// Package selectbreak leaves a loop, or goes on with its next iteration,
// with a labelled break or continue from a select's case, which the
// interpreter ran as if the select were the loop (break) or not at all
// (continue); each is rewritten to a goto.
package selectbreak

import "fmt"

func feed(n int) chan int {
	ch := make(chan int, n)
	for i := 0; i < n; i++ {
		ch <- i
	}
	close(ch)
	return ch
}

func Main() {
	ch := feed(10)
	sum := 0
loop:
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				break loop
			}
			if v%3 == 0 {
				continue loop
			}
			x := v * 2
			sum += x
		}
	}
	fmt.Println("sum", sum)

	var fs []func() int
	ch2 := feed(6)
outer:
	for i := 0; i < 6; i++ {
		select {
		case v := <-ch2:
			if v == 2 {
				continue outer
			}
			if v == 5 {
				break outer
			}
		}
		y := i * 10
		fs = append(fs, func() int { return i + y })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()

	words := []string{"a", "bb", "ccc", "dd"}
	got := []string{}
	tick := make(chan struct{}, 10)
	for range words {
		tick <- struct{}{}
	}
next:
	for _, w := range words {
		select {
		case <-tick:
			if len(w) == 2 {
				continue next
			}
		}
		got = append(got, w)
	}
	fmt.Println(got)

	n := 0
rows:
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			select {
			default:
				if c == 1 {
					continue rows
				}
				if r == 2 {
					break rows
				}
			}
			n += 10*r + c
		}
	}
	fmt.Println("n", n)

	done := make(chan bool)
	results := make(chan int)
	go func() {
		for i := 1; i <= 3; i++ {
			results <- i
		}
		close(done)
	}()
	total := 0
wait:
	for {
		select {
		case r := <-results:
			total += r
		case <-done:
			break wait
		}
	}
	fmt.Println("total", total)

	k := 0
sw:
	switch {
	case k == 0:
		select {
		default:
			k = 5
			break sw
		}
		k = 9
	}
	fmt.Println("k", k)
	overInts()
}

type count int

// overInts leaves ranges over integers, which the rewrites turn into
// loops of three clauses.
func overInts() {
	ch := make(chan int, 20)
	for i := 0; i < 20; i++ {
		ch <- i
	}
	s, lim := 0, 5
ints:
	for i := range lim {
		select {
		case v := <-ch:
			if v == 2 {
				continue ints
			}
			if v == 4 {
				break ints
			}
			s += v + i
		}
	}
	var n count = 4
named:
	for i := range n {
		select {
		case v := <-ch:
			if v == 6 {
				continue named
			}
			s += v * int(i)
		}
	}
	fmt.Println("ints", s, len(ch))
}
