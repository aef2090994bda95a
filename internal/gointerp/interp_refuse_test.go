package gointerp

import (
	"strconv"
	"strings"
	"testing"
)

// TestRefusalsAllAtOnce checks that a submission's refusals come
// together, in line order, each at its line: a forbidden import, the
// forms the rewrites refuse and those that crashed yaegi's compiler with
// no line (a type referring to itself, a package-level comma-ok var),
// so that one grade shows everything to change. Forms that load are not
// refused (a self-referring type only declared, one through a struct).
func TestRefusalsAllAtOnce(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string // "line: words of the message", in order
	}{
		{
			name: "import, type, defer",
			src: `package p

import (
	"fmt"
	"os"
)

type F func() F

func f() F { return nil }

func Main() {
	for i := 0; i < 2; i++ {
		defer fmt.Println(i)
	}
	fmt.Println(os.Args, f() == nil)
}
`,
			want: []string{`5: import "os" is not allowed`, "8: the type F refers to itself", "14: defer inside a loop"},
		},
		{
			name: "two comma-ok vars and a cycle of types",
			src: `package p

var m = map[string]int{"a": 1}

var (
	a, okA = m["a"]
	b, okB = m["b"]
)

type ping func() []pong

type pong map[string]ping

func Main() { var p ping; _ = p; _, _, _, _ = a, b, okA, okB }
`,
			want: []string{"6: package-level var given two values", "7: package-level var given two values", "10: the types ping and pong refer to each other"},
		},
		{
			name: "a self-referring type only declared loads",
			src: `package p

type F func() F

type L []L

type G func(F) // named only in types the code does not use

type S struct{ f F }

func Main() {}
`,
		},
		{
			name: "a self-referring type used through another type",
			src: `package p

type F func() F

type S struct{ f F }

func Main() { var s S; _ = s }
`,
			want: []string{"3: the type F refers to itself"},
		},
		{
			name: "a self-referring type declared in a function",
			src: `package p

func Main() {
	type F func() F
	var f F
	_ = f
}
`,
			want: []string{"4: the type F refers to itself"},
		},
		{
			name: "recursion through a struct or an interface loads",
			src: `package p

type state struct{ next func() state }

type list struct{ items []list }

type stepper interface{ Step() stepper }

func Main() {
	s := state{next: func() state { return state{} }}
	var st stepper
	_, _ = s.next(), st
	_ = list{items: []list{{}}}
}
`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, diags := ParseSource("main.go", c.src, nil)
			if diags == nil {
				i, err := NewInterpreter(InterpreterOptions{})
				if err != nil {
					t.Fatal(err)
				}
				diags = Eval(i, src)
			}
			var got []string
			for _, d := range diags {
				got = append(got, d.String())
			}
			if len(diags) != len(c.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(diags), len(c.want), strings.Join(got, "\n"))
			}
			for k, w := range c.want {
				line, words, _ := strings.Cut(w, ": ")
				d := diags[k]
				if d.Column < 1 || line != strconv.Itoa(d.Line) || !strings.Contains(d.Message, words) {
					t.Errorf("diagnostic %d is %s; want line %s containing %q", k, d, line, words)
				}
			}
		})
	}
}
