// Package generics holds the generic code the interpreter claims to
// support: type parameters on functions and types, constraints, inference.
package generics

import (
	"fmt"
	"sort"
	"strings"
)

type Number interface {
	~int | ~int64 | ~float64
}

func Sum[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

func (s *Stack[T]) Pop() (T, bool) {
	var zero T
	if len(s.items) == 0 {
		return zero, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func Keys[K comparable, V any](m map[K]V) []K {
	var out []K
	for k := range m {
		out = append(out, k)
	}
	return out
}

func Max[T int | string](a, b T) T {
	if a > b {
		return a
	}
	return b
}

type ms int

func Main() {
	fmt.Println("sum ints:", Sum([]int{1, 2, 3}), "floats:", Sum([]float64{1.5, 2}))
	fmt.Println("sum named:", Sum([]ms{4, 5}))
	fmt.Println("map:", strings.Join(Map[int, string]([]int{1, 2}, func(i int) string { return fmt.Sprint(i * i) }), ","))
	var s Stack[string]
	s.Push("a")
	s.Push("b")
	v, ok := s.Pop()
	fmt.Println("stack:", v, ok, len(s.items))
	p := Pair[string, int]{"k", 1}
	fmt.Println("pair:", p.Key, p.Val)
	ks := Keys(map[string]bool{"b": true, "a": true})
	sort.Strings(ks)
	fmt.Println("keys:", ks)
	fmt.Println("max:", Max(3, 4), Max("a", "b"))
	fmt.Println("explicit:", Sum[int]([]int{7}))
}
