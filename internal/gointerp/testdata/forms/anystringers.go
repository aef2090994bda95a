// Package anystringers passes values of types with String or Error
// methods to fmt through an empty interface: a conversion any(x) and a
// []any or map[string]any literal, which printed the bare value ("[5]")
// where Go calls the method.
package anystringers

import "fmt"

type celsius float64

func (c celsius) String() string { return fmt.Sprintf("%.1fC", float64(c)) }

type id int

func (i id) String() string { return fmt.Sprintf("id-%d", int(i)) }

type pair struct{ a, b int }

func (p pair) String() string { return fmt.Sprintf("<%d,%d>", p.a, p.b) }

type failure struct{ code int }

func (f failure) Error() string { return fmt.Sprint("failed ", f.code) }

func Main() {
	x := celsius(5)
	fmt.Println([]any{celsius(5)})
	fmt.Println(any(x), interface{}(id(7)))
	fmt.Println([]any{id(3), "s", x, 4, nil, pair{1, 2}, failure{9}})
	fmt.Printf("%v %s %d\n", any(x), any(id(2)), []any{id(8)})
	fmt.Println(map[string]any{"t": x, "n": 1})
	fmt.Println([2]any{x, pair{3, 4}}, fmt.Sprint([]any{failure{1}}))
	var a any = x
	fmt.Println(a, []any{a})
	m := map[string]any{"n": 2, "s": "x"}
	fmt.Println(m)
}
