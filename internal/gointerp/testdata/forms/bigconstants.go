// Package bigconstants uses unsigned constants of 2^63 or more where the
// context gives them their type (an assignment, a return, a case) and
// float literals given an integer type: the interpreter failed to load
// the first ("constant 9223372036854775808 overflows int64") and compared
// a value with the second as floats.
package bigconstants

import "fmt"

const offset64 = 14695981039346656037

func top() uint64 { return 1 << 63 }

func isPow10(x uint64) bool {
	switch x {
	case 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
		1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19:
		return true
	}
	return false
}

type mask uint64

func Main() {
	var z uint64
	z = 1 << 63
	var x, y uint64 = 0, 1 << 63
	h := uint64(offset64)
	h ^= 'a'
	var m mask
	m = 1 << 63
	fmt.Println(z, x&^y, top(), h, m)
	fmt.Println(isPow10(1e16), isPow10(1e16+1), isPow10(1e19))
}
