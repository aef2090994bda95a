// Package typeswitch holds type switches on host types, with a bound
// variable, empty cases and defaults.
package typeswitch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

func kind(err error) string {
	out := "start"
	switch e := err.(type) {
	case *strconv.NumError:
		// nothing
	case *time.ParseError:
		_ = e
	}
	out += " after"
	return out
}

func kind2(v any) (s string) {
	s = "begin"
	switch x := v.(type) {
	case int:
	case string:
		s += " string " + x
	default:
	}
	s += " end"
	return s
}

func kind3(v any) string {
	switch v.(type) {
	case int:
	case *strconv.NumError:
		return "num"
	}
	return "fell out"
}

func Main() {
	_, numErr := strconv.Atoi("x")
	fmt.Println("empty first case:", kind(numErr))
	fmt.Println("empty case, other:", kind(errors.New("y")))
	fmt.Println("empty int case:", kind2(3))
	fmt.Println("string case:", kind2("q"))
	fmt.Println("empty default:", kind2(2.5))
	fmt.Println("no binding:", kind3(1), kind3(numErr), kind3("z"))
	var err error = context.DeadlineExceeded
	switch err {
	case context.Canceled:
	case context.DeadlineExceeded:
		fmt.Println("value switch on errors")
	}
}
