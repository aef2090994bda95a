// Package control holds defer, recover, panics, labels, goto, switch
// fallthrough and named results.
package control

import (
	"errors"
	"fmt"
)

func named() (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
			n = -1
		}
	}()
	n = 5
	panic("boom")
}

func deferArgs() string {
	s := "before"
	var out string
	func() {
		defer func(v string) { out = v }(s)
		s = "after"
	}()
	return out
}

func changeResult() (n int) {
	defer func() { n *= 2 }()
	return 21
}

func rethrow() (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	panic(errors.New("an error value"))
}

func nilMap() (msg string) {
	defer func() { msg = fmt.Sprint(recover() != nil) }()
	var m map[string]int
	m["a"] = 1
	return "no panic"
}

func Main() {
	fmt.Println(named())
	fmt.Println("defer args:", deferArgs())
	fmt.Println("defer changes result:", changeResult())
	fmt.Println("recovered error:", rethrow())
	fmt.Println("nil map panics:", nilMap())

	count := 0
outer:
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if j == 2 {
				continue outer
			}
			if i == 2 {
				break outer
			}
			count++
		}
	}
	fmt.Println("labels:", count)

	k := 0
again:
	k++
	if k < 4 {
		goto again
	}
	fmt.Println("goto:", k)

	var trail []string
	switch x := 2; x {
	case 1:
		trail = append(trail, "one")
	case 2:
		trail = append(trail, "two")
		fallthrough
	case 3:
		trail = append(trail, "three")
	default:
		trail = append(trail, "default")
	}
	fmt.Println("fallthrough:", trail)

	err := errors.New("x")
	target := errors.New("y")
	switch {
	case err == nil, errors.Is(err, target):
		fmt.Println("wrong case")
	case err != nil, err == target:
		fmt.Println("multi-condition case: second list")
	}
	switch v := 5; {
	case v > 10, v > 3:
		fmt.Println("second condition of a list")
	default:
		fmt.Println("wrong default")
	}

	sel := 0
	for i := 0; i < 10; i++ {
		switch {
		case i%2 == 0:
			continue
		case i > 6:
			break
		default:
			sel += i
		}
	}
	fmt.Println("continue and break in switch:", sel)
}
