// Package shifts shifts untyped constants by counts that are not
// constant: the constant takes the type its context gives it (uint32,
// uint64, uint, a named type), as Go's spec says, where the interpreter
// shifted an int and panicked or lost the high bits.
package shifts

import "fmt"

type mask uint16

func set(b []byte, bit int32) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | 1<<(bit&31)
}

func count(v uint) uint { return v >> ((1 >> v) + (1 >> v)) }

func Main() {
	fmt.Println(set([]byte{1, 2}, 31), set([]byte{0, 0}, 40))
	var u64 uint64
	for p := uint(60); p < 64; p++ {
		u64 |= 1 << p
	}
	fmt.Println(u64)
	n := 3
	var m mask = 1 << n
	var u uint = 1<<n - 1
	fmt.Println(m, u, 1<<(1<<uint(n-1)), count(48), int64(1)<<n)
	var f float64 = 3
	fmt.Println(f, uint8(1)<<(n+5))
}
