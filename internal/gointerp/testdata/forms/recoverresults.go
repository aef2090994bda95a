// Package recoverresults calls, in loops, functions with named results
// that recover from a panic: the interpreter gave such a call the
// results the previous call from the same place ended with.
package recoverresults

import "fmt"

func process(id string) (res string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	if id == "" {
		panic("empty id")
	}
	return "ok:" + id, nil
}

func count(xs []int) (n int, total int) {
	defer func() { _ = recover() }()
	for _, x := range xs {
		total += 10 / x
		n++
	}
	return
}

func Main() {
	for _, id := range []string{"a", "", "b", ""} {
		r, err := process(id)
		fmt.Printf("%q %v; ", r, err)
	}
	fmt.Println()
	for _, xs := range [][]int{{1, 2}, {5, 0, 1}, {0}} {
		n, total := count(xs)
		fmt.Print(n, " ", total, "; ")
	}
	fmt.Println()
}
