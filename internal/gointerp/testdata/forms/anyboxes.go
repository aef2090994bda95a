// Package anyboxes prints values of types with String or Error methods
// that reach fmt through an empty interface held somewhere first: a
// logging helper forwarding ...any, a []any or map of any in a variable,
// y := any(x), a struct field of type any, an any parameter printed in
// another function. The interpreter printed the bare value, the box's
// fields, or <nil>.
package anyboxes

import (
	"fmt"
	"strings"
)

type celsius float64

func (c celsius) String() string { return fmt.Sprintf("%.1fC", float64(c)) }

type notFound struct{ id int }

func (e notFound) Error() string { return fmt.Sprintf("not found %d", e.id) }

type busy struct{ n int }

func (b *busy) Error() string { return fmt.Sprintf("busy %d", b.n) }

type level int

func (l level) String() string { return [...]string{"low", "mid", "high"}[l] }

type plain struct{ a, b int }

type holder struct {
	V    any
	Name string
	priv any
}

type event struct {
	At   int
	Tags []any
	Meta map[string]any
}

var logged []string

func logf(format string, args ...any) {
	logged = append(logged, fmt.Sprintf(format, args...))
	fmt.Printf(format, args...)
}

func logln(args ...any) { fmt.Println(args...) }

func show(v any) {
	a, b, c := 1, 2, 3
	_, _, _ = a, b, c
	fmt.Println("show:", v)
	fmt.Printf("showf: %v|%s\n", v, v)
}

func join(parts ...any) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(fmt.Sprint(p))
	}
	return b.String()
}

func Main() {
	k := 40
	_ = k
	x := celsius(9)
	lv := level(2)
	logf("a %v %s %d\n", x, notFound{3}, lv)
	logf("b %v %v %v\n", &busy{7}, plain{1, 2}, nil)
	logln(celsius(6), notFound{4}, &busy{5}, lv, "s", 3)
	fmt.Println(strings.Join(logged, ""))
	fmt.Println(join(x, lv, notFound{1}, 2))

	xs := []any{celsius(5), notFound{1}, lv, "t", 4, nil, plain{3, 4}}
	fmt.Println(xs)
	fmt.Printf("%v|%s\n", xs, xs[:2])
	xs = append(xs, &busy{8})
	fmt.Println(len(xs), xs[len(xs)-1])
	m := map[string]any{"t": celsius(8), "l": level(0)}
	fmt.Println(m)
	mi := map[int]any{1: notFound{2}}
	fmt.Println(mi)

	y := any(x)
	fmt.Println(y)
	var z any = lv
	fmt.Println(z, y)
	fmt.Printf("%v %s %d %v\n", z, y, z, interface{}(notFound{6}))
	var w any
	w = notFound{9}
	fmt.Println(w)
	var w2 any = notFound{10}
	fmt.Printf("%v %d\n", w2, z)

	h := holder{V: celsius(10), Name: "n", priv: level(1)}
	fmt.Println(h)
	fmt.Printf("%+v\n", h)
	fmt.Println(&h)
	ev := event{At: 3, Tags: []any{lv, "x"}, Meta: map[string]any{"err": notFound{5}}}
	fmt.Println(ev)
	fmt.Printf("%+v\n", ev)

	show(x)
	show(lv)
	show(z)
	show(notFound{2})
	for _, v := range xs[:3] {
		show(v)
	}
	ch := make(chan any, 1)
	ch <- lv
	fmt.Println(<-ch)
	func(v any) {
		fmt.Println("literal:", v)
	}(x)
	s := fmt.Sprint(y, z)
	fmt.Println(s, len(s))
	err := fmt.Errorf("wrapped %v: %w", y, notFound{4})
	fmt.Println(err)
}
