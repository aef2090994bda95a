// Package deferfuncvar defers calls of func variables holding function
// literals, made in the deferring function or in a literal it calls, and
// passes one to a deferred function: the interpreter hung, the closure
// waiting when it returned for the lock of the frame it was made in,
// which the frame's deferred calls held (interp_deferframes.go).
package deferfuncvar

import "fmt"

type tracker struct{ events []string }

func (t *tracker) add(s string) { t.events = append(t.events, s) }

func run(t *tracker) (err error) {
	var h func()
	var cleanup func(string)
	setup := func() {
		h = func() { t.add("h ran") }
		cleanup = func(s string) { t.add("cleanup " + s) }
	}
	setup()
	defer h()
	defer cleanup("x")
	var onErr func(*error)
	func() {
		onErr = func(e *error) {
			if *e != nil {
				t.add("saw " + (*e).Error())
			}
		}
	}()
	defer onErr(&err)
	t.add("body")
	return fmt.Errorf("boom")
}

func later(t *tracker) {
	h := func() { t.add("first") }
	defer h()
	func() { h = func() { t.add("second") } }()
	var g func()
	go func() {}()
	func() {
		g = func() { t.add("g") }
		h = g
	}()
	defer g()
	defer h()
}

func recovering(t *tracker) {
	h := func() { t.add("not recovering") }
	defer func() {
		if r := recover(); r != nil {
			t.add(fmt.Sprint("recovered ", r))
		}
	}()
	defer h()
	panic("p")
}

func viaCleanup(t *tracker) {
	done := func(s string) { t.add("done " + s) }
	defer finish(done, "v")
	t.add("viaCleanup body")
}

func finish(f func(string), s string) { f(s) }

func Main() {
	func() {
		defer func() { fmt.Println("outer recover", recover()) }()
		t := &tracker{}
		recovering(t)
		fmt.Println(t.events)
	}()
	vt := &tracker{}
	viaCleanup(vt)
	fmt.Println(vt.events)
	t := &tracker{}
	fmt.Println(run(t))
	later(t)
	fmt.Println(t.events)
	var h func()
	func() {
		h = func() { fmt.Println("h in Main") }
	}()
	defer h()
	fmt.Println("Main body")
}
