// Package latefuncvalues uses functions of the file declared further down
// as values inside function literals: in a slice or map literal, as a
// variable's value, an argument, a result. The interpreter made the value
// before it compiled the function, and it ran nothing (returned 0) or
// panicked (reflect.Set: value of type *interp.node ...).
package latefuncvalues

import "fmt"

type fnT func() int

func apply(f func() int) int { return f() }

func Main() {
	run := func() {
		fmt.Println("arg", apply(doA))
		var g func() int = doB
		fmt.Println("var", g())
		fs := []fnT{doA}
		fmt.Println("named slice", fs[0]())
		arr := [1]func() int{doB}
		fmt.Println("array", arr[0]())
		ps := []struct{ f func() int }{{doA}}
		fmt.Println("anon struct", ps[0].f())
		get := func() func() int { return doB }
		fmt.Println("return", get()())
		var h func() int
		h = doA
		fmt.Println("assign", h())
		vs := []func(int) int{double}
		fmt.Println("param", vs[0](4))
		ms := map[string]func(...int) int{"s": sum}
		fmt.Println("variadic", ms["s"](1, 2))
	}
	run()
	done := make(chan bool)
	go func() {
		steps := []struct {
			name string
			f    fnT
		}{{"g", doA}, {"h", doB}}
		for _, s := range steps {
			fmt.Println(s.name, s.f())
		}
		tbl := map[string]func(int) int{"d": double}
		n, err := func() func(string) (int, error) { return twoResults }()("abc")
		fmt.Println(tbl["d"](5), n, err)
		done <- true
	}()
	<-done
}

func twoResults(s string) (int, error) { return len(s), nil }

func doA() int          { return 1 }
func doB() int          { return 2 }
func double(n int) int  { return 2 * n }
func sum(xs ...int) int { return len(xs) }
