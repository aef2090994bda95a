// Package runtimeerrors recovers Go's runtime errors (an index out of
// range, a nil pointer, a nil map) and asserts them to error, as a
// deferred recover that reports a failure does. The interpreter's
// recover gave the reflect package's panic value (a string, a
// *reflect.ValueError), which is not an error.
package runtimeerrors

import (
	"fmt"
	"strings"
)

type point struct{ x int }

func catch(f func()) (out string) {
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok {
			out = fmt.Sprintf("not an error: %T", r)
			return
		}
		msg := err.Error()
		for _, known := range []string{"index out of range", "slice bounds out of range", "nil pointer dereference", "nil map", "makeslice: len out of range", "makeslice: cap out of range"} {
			if strings.Contains(msg, known) {
				msg = known
			}
		}
		out = fmt.Sprintf("error %v: %s", strings.HasPrefix(err.Error(), "runtime error: "), msg)
	}()
	f()
	return "no panic"
}

func Main() {
	xs := make([]int, 3)
	k := 5
	fmt.Println(catch(func() { _ = xs[k] }))
	fmt.Println(catch(func() { xs[k] = 1 }))
	fmt.Println(catch(func() { _ = xs[1:k] }))
	var p *point
	fmt.Println(catch(func() { _ = p.x }))
	fmt.Println(catch(func() { p.x = 2 }))
	var m map[string]int
	fmt.Println(catch(func() { m["a"] = 1 }))
	n, c := 4, 2
	fmt.Println(catch(func() { _ = make([]int, n, c) }))
	n = -1
	fmt.Println(catch(func() { _ = make([]int, n) }))
	var ip *int
	vals := map[string]int{}
	fmt.Println(catch(func() { vals["a"] = *ip }), len(vals))
	fmt.Println(catch(func() { panic("a string") }))
	fmt.Println(catch(func() {}))
}
