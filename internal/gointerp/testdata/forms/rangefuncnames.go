// Package rangefuncnames ranges over functions named as they are (a
// function of the file, a method value, an element of a slice of
// iterators), not made by a call: the rewrite called (seq)(...), which
// yaegi ran as "call of reflect.Value.Call on ptr Value".
package rangefuncnames

import "fmt"

func upTo3(yield func(int) bool) {
	for i := 0; i < 3; i++ {
		if !yield(i) {
			return
		}
	}
}

func pairs(yield func(int, string) bool) {
	_ = yield(1, "a") && yield(2, "b")
}

type bag struct{ xs []int }

func (b *bag) All(yield func(int) bool) {
	for _, x := range b.xs {
		if !yield(x) {
			return
		}
	}
}

func (b bag) Values(yield func(int) bool) {
	for _, x := range b.xs {
		if !yield(x) {
			return
		}
	}
}

var iterators = []func(func(int) bool){upTo3}

func find(want string) int {
	for k, v := range pairs {
		if v == want {
			return k
		}
	}
	return -1
}

func Main() {
	for x := range upTo3 {
		fmt.Println("upTo3", x)
	}
	fmt.Println(find("b"), find("z"))
	b := &bag{xs: []int{4, 5, 6}}
	for x := range b.All {
		if x == 6 {
			break
		}
		fmt.Println("All", x)
	}
	v := bag{xs: []int{7, 8}}
	for x := range v.Values {
		v.xs = nil // the range's method value copied v
		fmt.Println("Values", x)
	}
	for x := range iterators[0] {
		fmt.Println("iterators[0]", x)
	}
}
