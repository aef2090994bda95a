// Package everyday3 holds generic helpers a candidate writes (sorted keys
// of a map of named keys, a join over a constraint with String, a Map,
// a Result[T] printed with its field's String method, a Retry over a
// func), each over the file's named types and time.Duration.
package everyday3

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

type Stringer interface{ String() string }

type ID int

func (i ID) String() string { return fmt.Sprintf("#%d", int(i)) }

type Ordered interface {
	~int | ~int64 | ~string | ~float64
}

func SortedKeys[K Ordered, V any](m map[K]V) []K {
	ks := make([]K, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

func Join[T Stringer](xs []T, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.String()
	}
	return strings.Join(parts, sep)
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

type Result[T any] struct {
	Val T
	Err error
}

func Try[T any](f func() (T, error)) Result[T] {
	v, err := f()
	return Result[T]{v, err}
}

func Retry[T any](n int, wait time.Duration, f func() (T, error)) (T, error) {
	var zero T
	var err error
	for i := 0; i < n; i++ {
		var v T
		v, err = f()
		if err == nil {
			return v, nil
		}
	}
	return zero, fmt.Errorf("after %d tries: %w", n, err)
}

func Main() {
	m := map[ID]string{3: "c", 1: "a", 2: "b"}
	ks := SortedKeys(m)
	fmt.Println(ks, Join(ks, ","), Map(ks, func(i ID) string { return m[i] }))
	r := Try(func() (ID, error) { return 7, nil })
	r2 := Try(func() (string, error) { return "", errors.New("no") })
	fmt.Println(r.Val, r.Err, r2.Err, r)
	calls := 0
	v, err := Retry(3, time.Millisecond, func() (ID, error) {
		calls++
		if calls < 3 {
			return 0, errors.New("flaky")
		}
		return ID(calls), nil
	})
	fmt.Println(v, err, calls)
	_, err = Retry(2, 0, func() (float64, error) { return 0, errors.New("down") })
	fmt.Println(err)
	durs := map[time.Duration]int{time.Second: 1, time.Millisecond: 2}
	fmt.Println(SortedKeys(durs))
}
