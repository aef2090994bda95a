// Package classes_builtins calls min, max and clear, builtins since Go
// 1.21 that the interpreter lacks ("undefined: min").
package classes_builtins

import (
	"fmt"
	"strconv"
	"time"
)

type level int

type ratio float64

func backoff(attempt int) time.Duration {
	return min(time.Second<<attempt, 30*time.Second)
}

func Main() {
	for i := 0; i < 7; i++ {
		fmt.Println(backoff(i))
	}
	fmt.Println(min(3, 1, 2), max(3, 1, 2), min(2.5, 1), max("b", "a", "c"))
	x, y := 4, 9
	fmt.Println(min(x, y), max(x, y, 7), min(x), max(-x, 0))
	inf, _ := strconv.ParseFloat("+Inf", 64)
	fmt.Println(max(level(2), level(5)), min(1.5, inf))
	nan, _ := strconv.ParseFloat("NaN", 64)
	fmt.Println(min(nan, 1.0), max(1.0, nan))
	const c = max(3, 8)
	fmt.Println(c, min(int64(7), 3))
	// Constant fractions: 5/2 and 1/3 exactly, which Go rounds to float.
	var third float32 = min(1.0/3, 2)
	fmt.Println(max(2.5, 1), min(1.0/3, 1), third, max(ratio(1)/3, 0.25))
	m := map[string]int{"a": 1, "b": 2}
	clear(m)
	fmt.Println(len(m))
	s := []int{1, 2, 3}
	clear(s[1:])
	fmt.Println(s)
	errs := []error{fmt.Errorf("x")}
	clear(errs)
	fmt.Println(errs[0] == nil)
	Deferred()
	var total time.Duration
	for _, d := range []time.Duration{time.Second, time.Minute} {
		total = max(total, d)
	}
	fmt.Println(total)
}

func clamp(lo, v, hi int) (n int, ok bool) {
	return max(lo, min(v, hi)), v >= lo && v <= hi
}

func Deferred() {
	a, b := 3, 5
	defer fmt.Println("deferred", min(a, b), max(a, b))
	var n int
	var ok bool
	if n, ok = clamp(0, 9, max(4, b)); ok {
		fmt.Println("in range", n)
	} else {
		fmt.Println("clamped", n)
	}
	var lo, hi int
	lo, hi = min(a, b), max(a, b)
	fmt.Println(lo, hi)
	a = 10
}
