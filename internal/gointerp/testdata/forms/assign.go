// Package assign holds assignments of every shape: the interpreter must
// give each the meaning Go gives it.
package assign

import (
	"errors"
	"fmt"
	"time"
)

type Outcome string

const Done Outcome = "done"

const maxA = 5

type S struct{ v int }

func f() error      { return errors.New("e") }
func g() int        { return 7 }
func h() (int, int) { return 8, 9 }

func Main() {
	{
		var err error
		var out string
		err, out = f(), "X"
		fmt.Println("call-const:", err, out)
	}
	{
		var err error
		var out string
		out, err = "X", f()
		fmt.Println("const-call:", err, out)
	}
	{
		var e error
		var s string
		e, s = nil, "x"
		fmt.Println("nil-const:", e, s)
	}
	{
		var a int
		var e error
		a, e = 1, nil
		fmt.Println("int-nil:", a, e)
	}
	{
		var a, b int = 1, 2
		a, b = b, a
		fmt.Println("swap:", a, b)
	}
	{
		var a, b int
		a, b = g(), g()
		fmt.Println("two calls:", a, b)
	}
	{
		var o Outcome
		var e error
		o, e = Done, nil
		fmt.Println("typed const-nil:", o, e)
		o, e = "", f()
		fmt.Println("untyped const-call:", o, e)
		e, o = f(), Done
		fmt.Println("call-typed const:", o, e)
	}
	{
		var a int
		var s string
		x := "q"
		a, s = g(), x
		fmt.Println("call-var:", a, s)
		a, s = g(), "k"+x
		fmt.Println("call-expr:", a, s)
	}
	{
		var a int
		var d time.Duration
		a, d = g(), time.Second
		fmt.Println("call-package const:", a, d)
	}
	{
		var a int64
		var b int
		a, b = maxA, g()
		fmt.Println("untyped const to int64:", a, b)
	}
	{
		var a, b int
		a, b = h()
		fmt.Println("tuple call:", a, b)
	}
	{
		s := &S{}
		var e error
		s.v, e = g(), nil
		fmt.Println("field-nil:", s.v, e)
	}
	{
		m := map[string]int{}
		var e error
		m["a"], e = g(), f()
		fmt.Println("map index-call:", m, e)
	}
	{
		var p *S
		var ok bool
		p, ok = nil, true
		fmt.Println("nil pointer-bool:", p, ok)
	}
	{
		var x any
		var s string
		x, s = 3, "y"
		fmt.Println("any-string:", x, s)
	}
	{
		var x float64
		var s string
		x, s = 3, "y"
		fmt.Println("float-string:", x, s)
	}
	{
		var a, b, c int
		a, _, c = g(), 5, maxA
		fmt.Println("three with blank:", a, b, c)
	}
	{
		arr := []int{1, 2, 3}
		i := 0
		arr[i], arr[2] = arr[2], arr[i]
		fmt.Println("swap elements:", arr)
	}
	{
		var err error
		var n int
		if n, err = g(), f(); err != nil {
			fmt.Println("if init:", n, err)
		}
	}
	{
		var err error
		var n int
		switch n, err = g(), nil; {
		case err == nil:
			fmt.Println("switch init:", n, err)
		}
	}
	{
		s := []int{1, 2, 3, 4, 5}
		for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
			s[i], s[j] = s[j], s[i]
		}
		fmt.Println("reverse:", s)
	}
	{
		e, s := f(), "X"
		fmt.Println("define call-const:", e, s)
	}
	{
		var a, b int
		a, b = func() int { x, y := 1, 2; x, y = y, g(); return x + y }(), 3
		fmt.Println("closure in tuple:", a, b)
	}
	{
		var d time.Duration
		var ok bool
		d, ok = 2*time.Second+time.Duration(g()), true
		fmt.Println("conversion-bool:", d, ok)
	}
	{
		a, b := 1, 2
		a, b = b, a+b
		a += 3
		b <<= 1
		fmt.Println("compound:", a, b)
	}
	{
		var r struct{ a, b string }
		r.a, r.b = "p", fmt.Sprint(g())
		fmt.Println("struct fields:", r.a, r.b)
	}
	{
		var x, y interface{}
		x, y = errors.New("q"), nil
		fmt.Println("interfaces:", x, y)
	}
	{
		var a int
		var err error
	retry:
		a, err = g()+a, nil
		if a < 20 {
			goto retry
		}
		fmt.Println("labelled:", a, err)
	}
}
