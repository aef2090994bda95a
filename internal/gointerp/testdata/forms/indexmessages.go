// Package indexmessages prints the messages of index-out-of-range panics
// whole, recovered and read as an error and with %v, as a candidate reads
// them in a report: Go's gives the index and the length ("index out of
// range [5] with length 3"), the interpreter's gave neither.
package indexmessages

import "fmt"

type list[T any] []T

func first[T any](xs list[T], k int) T { return xs[k] }

type queue struct {
	items []string
	slots [2]int
}

func catch(f func()) (msg string) {
	defer func() {
		r := recover()
		if err, ok := r.(error); ok {
			msg = "error: " + err.Error()
			return
		}
		msg = fmt.Sprint("value: ", r)
	}()
	f()
	return "no panic"
}

func Main() {
	xs := []int{1, 2, 3}
	k := 5
	fmt.Println(catch(func() { _ = xs[k] }))
	fmt.Println(catch(func() { xs[k] = 1 }))
	fmt.Println(catch(func() { xs[k]++ }))
	var arr [3]int
	fmt.Println(catch(func() { _ = arr[k] }))
	p := &arr
	fmt.Println(catch(func() { p[k] = 2 }))
	s := "abc"
	fmt.Println(catch(func() { _ = s[k] }))
	n := -1
	fmt.Println(catch(func() { _ = xs[n] }))
	grid := [][]int{{1}}
	fmt.Println(catch(func() { grid[0][k]++ }))
	q := &queue{items: []string{"a"}}
	var i8 int8 = 4
	fmt.Println(catch(func() { _ = q.items[i8] }))
	fmt.Println(catch(func() { q.slots[k%3] = 1 }))
	sum := 0
	for i := range xs {
		sum += xs[i]
	}
	for i := 0; i < len(q.items); i++ {
		sum += len(q.items[i])
	}
	fmt.Println(sum, catch(func() { _ = xs[k-3] }))
	one := []uint64{0}
	fmt.Println(catch(func() { _ = one[1] }), catch(func() { _ = s[3] }))
	ls := list[int]{4}
	fmt.Println(first[int](ls, 0), catch(func() { _ = first(ls, k) }))
	const b26 uint64 = 0x022fdd63cc95386d
	var bitPos [64]int
	for p := uint(0); p < 3; p++ {
		bitPos[b26<<p>>58] = int(p)
	}
	fmt.Println(bitPos[8], bitPos[17], bitPos[34])
	var empty []string
	fmt.Println(catch(func() { _ = empty[len(empty)] }))
}
