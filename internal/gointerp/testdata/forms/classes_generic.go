// Package classes_generic instantiates generic functions with named types
// of imported packages (time.Duration), which crashes the interpreter's
// compiler where the result is assigned or an argument is a conversion.
package classes_generic

import (
	"fmt"
	"time"
)

type Number interface{ ~int64 | ~int }

func Double[T Number](x T) T { return x * 2 }

func Clamp[T ~int64](x, lo, hi T) T {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func Largest[T ~int64 | ~float64](xs ...T) T {
	var best T
	for i, x := range xs {
		if i == 0 || x > best {
			best = x
		}
	}
	return best
}

func Keys[K comparable, V any](m map[K]V) []K {
	var out []K
	for k := range m {
		out = append(out, k)
	}
	return out
}

func Main() {
	fmt.Println(Double(time.Second))
	d := Double(time.Duration(3))
	fmt.Println(d)
	var e time.Duration = Clamp(5*time.Minute, time.Second, time.Minute)
	fmt.Println(e, Clamp[time.Duration](time.Millisecond, time.Second, time.Minute))
	wait := Largest(time.Second, 3*time.Second, 2*time.Second)
	fmt.Println(wait, Largest(1.5, 0.5))
	fmt.Println(len(Keys(map[time.Duration]bool{time.Second: true})))
	f := Clamp[time.Duration]
	fmt.Println(f(0, time.Second, time.Minute))
}
