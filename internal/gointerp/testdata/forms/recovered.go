// Package recovered recovers panics of every kind of value.
package recovered

import (
	"errors"
	"fmt"
)

type myErr struct{ code int }

func (e *myErr) Error() string { return fmt.Sprintf("my %d", e.code) }

func catch(f func()) (out string) {
	defer func() {
		r := recover()
		if err, ok := r.(error); ok {
			out = "error: " + err.Error()
			return
		}
		out = fmt.Sprintf("value: %v", r)
	}()
	f()
	return "no panic"
}

func Main() {
	fmt.Println(catch(func() { panic(errors.New("host error")) }))
	fmt.Println(catch(func() { panic(fmt.Errorf("wrapped: %w", errors.New("x"))) }))
	fmt.Println(catch(func() { panic("a string") }))
	fmt.Println(catch(func() { panic(42) }))
	fmt.Println(catch(func() { var m map[string]int; m["a"] = 1 }) != "no panic")
	fmt.Println(catch(func() { var s []int; _ = s[3] }) != "no panic")
}
