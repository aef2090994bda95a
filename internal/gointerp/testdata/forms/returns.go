// Package returns returns several values of which some are calls: the
// interpreter stored a builtin's result (len, append, new, make) in the
// first result's slot (returnedCalls), and assignments of the same shape.
package returns

import (
	"fmt"
	"strings"
)

func g() int                        { return 5 }
func h() (int, int)                 { return 1, 2 }
func hh() (int, int)                { return h() }
func r1(s []string) (int, int)      { return 7, g() }
func r2() (string, string)          { return "a", strings.ToUpper("b") }
func r3(s []string) (int, []string) { return 7, append(s, "q") }
func r5(s []string) (int, int)      { return g(), len(s) }
func r7(s []string) (error, int)    { return nil, len(s) }
func r8(s []string) (int, int)      { a := 1; return a + 1, len(s) }
func r10(s []string) (int, *int)    { return 1, new(int) }
func r11(s []string) (int, []int)   { return 1, make([]int, 2) }
func r12(s []string) (int, int)     { return len(s), cap(s[:1]) }

// Main prints what each returns.
func Main() {
	s := []string{"x", "y", "z"}
	fmt.Println(r1(s))
	fmt.Println(r2())
	fmt.Println(r3(s))
	fmt.Println(r5(s))
	fmt.Println(r7(s))
	fmt.Println(r8(s))
	a, p := r10(s)
	fmt.Println(a, *p)
	fmt.Println(r11(s))
	fmt.Println(r12(s))
	fmt.Println(hh())
	x, y := 7, len(s)
	var u, v = 8, len(s)
	var w, z int
	w, z = 9, len(s)
	fmt.Println(x, y, u, v, w, z)
}
