// Package narrowed holds forms the rewrites once refused and the
// interpreter runs right: a method value whose receiver cannot change
// before the call (a call's result, a literal, a variable never changed
// after its declaration), and an assertion to an interface from a value
// of an interface type the file declares.
package narrowed

import "fmt"

type point struct{ x, y int }

func (p point) Sum() int { return p.x + p.y }

type pool struct{ items []string }

func (p pool) Len() int { return len(p.items) }

func (p *pool) Add(s string) { p.items = append(p.items, s) }

var made int

func origin() point { made++; return point{made, made} }

type tally int64

func (t *tally) Add() int64 { *t++; return int64(*t) }

type level int64

func (l level) Add() int64 { return int64(l) + 100 }

type shape interface{ Area() int }
type named interface{ Name() string }

type square struct{ side int }

func (s square) Area() int { return s.side * s.side }

type label struct{ text string }

func (l *label) Area() int    { return 0 }
func (l *label) Name() string { return l.text }

func Main() {
	f := origin().Sum
	fmt.Println(f(), f(), made)
	g := point{3, 4}.Sum
	p := point{5, 6}
	h := p.Sum
	fs := []func() int{point{1, 1}.Sum, point{2, 2}.Sum}
	fmt.Println(g(), h(), h(), fs[0](), fs[1]())
	shared := pool{items: []string{"a"}}
	n := shared.Len
	fmt.Println(n())
	var t tally
	add := t.Add // a pointer receiver: the value holds &t
	add()
	t += 10
	fmt.Println(add(), t)
	lv := level(1)
	f2 := lv.Add
	fmt.Println(f2(), lv.Add())

	for _, s := range []shape{square{2}, &label{"tag"}, nil} {
		if nm, ok := s.(named); ok {
			fmt.Print("named ", nm.Name(), "; ")
		} else {
			fmt.Print("unnamed; ")
		}
	}
	var s shape = &label{"x"}
	fmt.Println(s.(named).Name())
}
