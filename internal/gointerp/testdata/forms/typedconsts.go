// Package typedconsts compares values with constants declared with a
// type and a computed value (iota + 1, 1.0 / 2, "a" + "b"), which the
// interpreter held unequal to their own values.
package typedconsts

import "fmt"

type action int

const (
	resend action = iota + 1
	stop
	_
	giveUp
)

const (
	a0, a1 action = iota * 2, iota*2 + 1
	b0, b1
)

type ratio float64

const half ratio = 1.0 / 2

const tiny float32 = 1.0 / 3

type name string

const ab name = "a" + "b"

type flags uint8

const (
	fRead flags = 1 << iota
	fWrite
	fExec
)

const neg action = -(3 - 1)

func decide(attempt int) action {
	if attempt < 3 {
		return resend
	}
	return stop
}

func Main() {
	x := action(1)
	fmt.Println(x == resend, resend == 1, x != resend, stop == 2, giveUp == 4, action(2) == stop)
	fmt.Println(a0, a1, b0, b1, b1 == 3)
	fmt.Println(half == 0.5, ratio(0.5) == half, tiny == float32(1.0)/3)
	fmt.Println(ab == "ab", name("ab") == ab)
	fmt.Println(fRead|fExec == 5, fWrite == 2, neg == -2)
	for i := 1; i <= 3; i++ {
		if act := decide(i); act == resend {
			fmt.Println(i, "resend")
		} else if act == stop {
			fmt.Println(i, "stop")
		}
	}
	switch decide(1) {
	case resend:
		fmt.Println("switch resend")
	}
	const local action = iota + 7
	fmt.Println(local == 7, local)
}
