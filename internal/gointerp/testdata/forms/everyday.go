// Package everyday holds the forms a candidate writes every day, each
// compared with Go: generics over named types (an Amount, a
// time.Duration), a generic iterator ranged over (the range and the
// instance of All rewrote the same span, and the file was refused),
// errors wrapped and found, a String method under every verb and inside
// maps and slices, receives into elements, interface equality.
package everyday

import (
	"errors"
	"fmt"

	"sort"
	"strings"
	"time"
)

type ID string
type Amount int64

type Number interface{ ~int | ~int64 | ~float64 }

func Sum[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func Keys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func (p Pair[K, V]) String() string { return fmt.Sprintf("%v=%v", p.Key, p.Val) }

func Seq(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func All[T any](xs []T) func(func(int, T) bool) {
	return func(yield func(int, T) bool) {
		for i, x := range xs {
			if !yield(i, x) {
				return
			}
		}
	}
}

var ErrBusy = errors.New("busy")

type RetryErr struct{ After time.Duration }

func (e *RetryErr) Error() string { return "retry after " + e.After.String() }

type state int

const (
	idle state = iota
	running
)

func (s state) String() string { return [...]string{"idle", "running"}[s] }

func Main() {
	fmt.Println(Sum([]Amount{1, 2, 3}), Sum([]time.Duration{time.Second, time.Millisecond}))
	ks := Keys(map[ID]int{"b": 1, "a": 2})
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	fmt.Println(ks, Pair[ID, Amount]{"x", 5}, []Pair[string, int]{{"a", 1}})
	for i := range Seq(3) {
		fmt.Print(i, " ")
	}
	for i, s := range All([]string{"p", "q"}) {
		fmt.Print(i, s, " ")
	}
	fmt.Println()
	var err error = &RetryErr{2 * time.Second}
	w := fmt.Errorf("call: %w", err)
	var re *RetryErr
	fmt.Println(errors.As(w, &re), re.After, errors.Is(w, ErrBusy), errors.Is(fmt.Errorf("x: %w", ErrBusy), ErrBusy))
	fmt.Printf("%v %d %s %q\n", running, running, idle, running)
	states := map[ID]state{"a": running}
	fmt.Println(states, []state{idle, running})
	ch := make(chan Amount, 2)
	ch <- 5
	ch <- 6
	xs := make([]Amount, 2)
	xs[0] = <-ch
	v, ok := <-ch
	fmt.Println(xs, v, ok)
	var e1, e2 error = ErrBusy, ErrBusy
	var a1, a2 any = ID("x"), ID("x")
	fmt.Println(e1 == e2, a1 == a2, err == error(re), strings.ToUpper(string(ks[0])))
	var s fmt.Stringer = running
	fmt.Println(s, s == fmt.Stringer(running))
}
