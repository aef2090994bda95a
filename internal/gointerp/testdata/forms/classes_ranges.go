// Package classes_ranges ranges over integers that are not literals and
// over functions (iterators), which crash the interpreter's compiler.
package classes_ranges

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

const attempts = 3

type attempt struct {
	n    int
	wait time.Duration
}

func count(n int) int {
	s := 0
	for i := range n {
		s += i
	}
	return s
}

// schedule is an iterator over the attempts, as strangers write them
// without the iter package.
func schedule(n int) func(yield func(attempt) bool) {
	return func(yield func(attempt) bool) {
		wait := time.Second
		for i := range n {
			if !yield(attempt{i + 1, wait}) {
				return
			}
			wait *= 2
		}
	}
}

func pairs(m []string) func(func(int, string) bool) {
	return func(yield func(int, string) bool) {
		for i, s := range m {
			if !yield(i, s) {
				return
			}
		}
	}
}

func ticks(n int) func(func() bool) {
	return func(yield func() bool) {
		for range n {
			if !yield() {
				return
			}
		}
	}
}

var errGaveUp = errors.New("gave up")

// firstOver returns from inside the range over a function.
func firstOver(limit time.Duration) (int, error) {
	for a := range schedule(10) {
		if a.wait > limit {
			return a.n, nil
		}
	}
	return 0, errGaveUp
}

func named(n int) (found string, err error) {
	for i, s := range pairs([]string{"a", "bb", "ccc"}) {
		if i == n {
			found = s
			return
		}
	}
	err = errGaveUp
	return
}

func Main() {
	fmt.Println(count(5), count(0), count(-2))
	n := int64(4)
	var total int64
	for i := range n {
		total += i
	}
	fmt.Println(total)
	var funcs []func() int
	for i := range attempts {
		funcs = append(funcs, func() int { return i })
	}
	for _, f := range funcs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
	k := 0
	for k = range len("abcd") {
	}
	fmt.Println(k)
	m := 3
	for i := range m {
		m = 10 // the range is evaluated once
		fmt.Print(i, " ")
	}
	fmt.Println(m)
	for a := range schedule(5) {
		if a.n == 2 {
			continue
		}
		if a.n == 4 {
			break
		}
		fmt.Println(a.n, a.wait)
	}
	fmt.Println(firstOver(5 * time.Second))
	fmt.Println(firstOver(time.Hour))
	fmt.Println(named(1))
	fmt.Println(named(7))
	var b strings.Builder
	for i, s := range pairs([]string{"x", "y"}) {
		switch s {
		case "x":
			continue
		}
		fmt.Fprintf(&b, "%d=%s ", i, s)
	}
	fmt.Println(b.String())
	c := 0
	for range ticks(7) {
		c++
	}
	fmt.Println(c)
	var saved []func() string
	for _, s := range pairs([]string{"p", "q"}) {
		saved = append(saved, func() string { return s })
	}
	for _, f := range saved {
		fmt.Print(f())
	}
	fmt.Println()
	Nested()
outer:
	for i := range 3 {
		for a := range schedule(3) {
			if a.n == 2 {
				continue outer
			}
			fmt.Println(i, a.n)
		}
	}
}

type item struct {
	ref    string
	status string
}

func matching(items []item, ref string) func(yield func(item) bool) {
	return func(yield func(item) bool) {
		for _, it := range items {
			if it.ref == ref && !yield(it) {
				return
			}
		}
	}
}

// find returns from inside two nested ranges over functions.
func find(batches [][]item, ref string) (*item, int, error) {
	for i, batch := range pairs([]string{"first", "second"}) {
		_ = batch
		for it := range matching(batches[i], ref) {
			if it.status == "failed" {
				continue
			}
			found := it
			return &found, i, nil
		}
	}
	return nil, -1, errGaveUp
}

func Nested() {
	batches := [][]item{{{"a", "ok"}, {"b", "failed"}}, {{"b", "ok"}, {"b", "late"}}}
	for _, ref := range []string{"a", "b", "c"} {
		it, i, err := find(batches, ref)
		if it != nil {
			fmt.Println(ref, it.status, i, err)
		} else {
			fmt.Println(ref, i, err)
		}
	}
}
