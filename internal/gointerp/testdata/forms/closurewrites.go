// Package closurewrites assigns composite literals of struct types to
// variables captured by function literals, the way a strangers' retry
// driver recorded its verdict from a callback: the interpreter lost the
// write (the variable kept its zero value).
package closurewrites

import "fmt"

type settled struct {
	out string
	n   int
}

type outer struct {
	in  settled
	tag string
}

var global settled

func drive(judge func(attempt int) bool) int {
	for i := 1; ; i++ {
		if judge(i) {
			return i
		}
	}
}

func Main() {
	var res settled
	f := func() { res = settled{out: "done"} }
	f()
	fmt.Println(res.out, res)

	r2 := settled{}
	g := func() { r2 = settled{"x", 2} }
	g()
	fmt.Println(r2)

	var verdict settled
	n := drive(func(attempt int) bool {
		if attempt < 3 {
			verdict = settled{out: "retry", n: attempt}
			return false
		}
		verdict = settled{out: "ok", n: attempt}
		return true
	})
	fmt.Println(n, verdict)

	var e settled
	func() {
		func() {
			e = settled{out: "deep"}
		}()
	}()
	fmt.Println(e)

	var o outer
	func() {
		o = outer{in: settled{out: "in"}, tag: "t"}
		o.in = settled{out: "field", n: 1}
	}()
	fmt.Println(o)

	func() { global = settled{out: "global", n: 9} }()
	fmt.Println(global)

	done := make(chan bool)
	var fromGo settled
	go func() {
		fromGo = settled{out: "goroutine"}
		done <- true
	}()
	<-done
	fmt.Println(fromGo)

	var a, b settled
	func() { a, b = settled{out: "a"}, settled{out: "b"} }()
	fmt.Println(a, b)
}
