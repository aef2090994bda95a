package funcsinliterals2

import (
	"context"
	"errors"
	"fmt"
)

type stepFn func(ctx context.Context) error

type step struct {
	name string
	run  stepFn
}

func doA(ctx context.Context) error { return nil }
func doB(ctx context.Context) error { return errors.New("b failed") }

var pkgSteps = []step{{"a", doA}, {"b", doB}}

type handler func(int) (string, error)

func h1(n int) (string, error) { return fmt.Sprint(n), nil }

type route struct {
	h    handler
	name string
}

func runAll(steps []step) {
	for i, s := range steps {
		if err := s.run(context.Background()); err != nil {
			fmt.Println(i, s.name, "err", err)
			continue
		}
		fmt.Println(i, s.name, "ok")
	}
}

func Main() {
	steps := []step{{"a", doA}, {"b", doB}}
	runAll(steps)
	runAll(pkgSteps)
	rs := []route{{h1, "one"}, {name: "two", h: h1}}
	for _, r := range rs {
		s, err := r.h(2)
		fmt.Println(r.name, s, err)
	}
	fs := []func(context.Context) error{doA, doB}
	for _, f := range fs {
		fmt.Println(f(context.Background()))
	}
	table := map[string]stepFn{"a": doA, "b": doB}
	fmt.Println(table["b"](context.Background()))
	nested := struct{ steps []step }{steps: []step{{"n", doB}}}
	fmt.Println(nested.steps[0].run(context.Background()))
	st := step{"x", doB}
	fmt.Println(st.run(nil))
	var fn stepFn = doA
	fmt.Println(fn(nil) == nil)
	ss := []struct {
		name string
		f    func() string
	}{{"lit", func() string { return "lit" }}, {"g", greet}}
	for _, s := range ss {
		fmt.Println(s.name, s.f())
	}
}

func greet() string { return "hi" }
