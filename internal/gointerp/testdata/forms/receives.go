// Package receives receives from a channel into targets that are not
// plain variables: a slice element, a map entry, a field, through a
// pointer; the other comma-ok forms and a call's values into such
// targets. The
// interpreter received the value and stored nothing.
package receives

import (
	"fmt"
	"strconv"
)

type box struct{ v int }

func Main() {
	ch := make(chan int, 10)
	for k := 1; k <= 10; k++ {
		ch <- k
	}
	xs := make([]int, 3)
	m := map[string]int{}
	b := &box{}
	var v box
	p := new(int)
	xs[0] = <-ch
	m["a"] = <-ch
	b.v = <-ch
	v.v = <-ch
	*p = <-ch
	for k := 1; k < 3; k++ {
		xs[k] = <-ch
	}
	if len(ch) > 0 {
		xs[2] = (<-ch)
	}
	var ok bool
	m["b"], ok = <-ch
	fmt.Println(xs, m, b.v, v.v, *p, ok, len(ch))
	done := make(chan string, 1)
	res := map[int]string{}
	go func() { done <- "from goroutine" }()
	res[1] = <-done
	fmt.Println(res)
	data := map[string]any{"x": "y", "n": 1}
	got := map[string]string{}
	found := make([]bool, 2)
	for _, k := range []string{"x", "n"} {
		got[k], ok = data[k].(string)
		if !ok {
			got[k] = "?"
		}
	}
	found[0], ok = map[string]bool{"a": true}["a"]
	fmt.Println(got, found, ok)
	counts := map[string]int{}
	var err error
	counts["a"], err = strconv.Atoi("13")
	cfg := &box{}
	cfg.v, err = strconv.Atoi("14")
	xs[0], err = strconv.Atoi("x")
	fmt.Println(counts, cfg.v, xs[0], err != nil)
}
