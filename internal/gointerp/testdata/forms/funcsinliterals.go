package funcsinliterals

import (
	"errors"
	"fmt"
	"strings"
)

type step struct {
	name string
	fn   func(string) (string, error)
}

func up(s string) (string, error)   { return strings.ToUpper(s), nil }
func fail(s string) (string, error) { return "", errors.New("fail " + s) }
func sum(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

type pipeline struct {
	steps []step
	fs    []func(...int) int
}

func (p pipeline) run(in string) (string, error) {
	for i := range p.steps {
		out, err := p.steps[i].fn(in)
		if err != nil {
			return "", fmt.Errorf("step %s: %w", p.steps[i].name, err)
		}
		in = out
	}
	return in, nil
}

func Main() {
	p := pipeline{steps: []step{{"up", up}, {"fail", fail}}, fs: []func(...int) int{sum}}
	fmt.Println(p.run("x"))
	p2 := &pipeline{steps: []step{{name: "up", fn: up}}}
	fmt.Println(p2.run("y"))
	fmt.Println(p.fs[0](1, 2, 3))
	checks := []struct {
		name string
		ok   func(int) bool
	}{
		{"even", isEven},
		{"pos", func(n int) bool { return n > 0 }},
	}
	for _, c := range checks {
		fmt.Println(c.name, c.ok(3), c.ok(4))
	}
	steps := []step{{"up", up}}
	steps = append(steps, step{"fail", fail})
	for _, s := range steps {
		r, err := s.fn("z")
		fmt.Println(s.name, r, err)
	}
	f := steps[0].fn
	fmt.Println(f("w"))
	var arr = [...]step{{"a", up}}
	fmt.Println(arr[0].fn("q"))
	mp := map[string][]step{"k": {{"u", up}}}
	fmt.Println(mp["k"][0].fn("m"))
	pp := []*step{{"p", up}, {name: "f", fn: fail}}
	for _, s := range pp {
		fmt.Println(s.fn("pp"))
	}
}

func isEven(n int) bool { return n%2 == 0 }
