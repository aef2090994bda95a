// Package localstringers prints values of struct types declared inside a
// function whose exported fields, elements or embedded fields have String
// or Error methods: fmt calls them, and the interpreter printed the
// fields' own fields ({{3} 1s {4}} for {named(3) 1s {4}}). The rewrites
// that hand fmt such values named the type in a helper of the file, which
// cannot name a local type; they now write it where it is printed.
package localstringers

import (
	"fmt"
	"time"
)

type named struct{ a int }

func (n named) String() string { return fmt.Sprintf("named(%d)", n.a) }

type pnamed struct{ a int }

func (n *pnamed) String() string { return fmt.Sprintf("pnamed(%d)", n.a) }

type errT struct{ msg string }

func (e errT) Error() string { return "err:" + e.msg }

func Main() {
	type wrap struct{ named }
	type wrapP struct{ *pnamed }
	type fields struct {
		N named
		D time.Duration
		n named
	}
	type withErr struct{ errT }
	type loc struct{ x int }
	w := wrap{named{1}}
	fmt.Println(w)
	fmt.Printf("%v|%s|%+v|%d\n", w, w, w, w)
	fmt.Println(wrapP{&pnamed{2}})
	fmt.Println(fields{named{3}, time.Second, named{4}})
	fmt.Printf("%+v\n", fields{named{3}, time.Second, named{4}})
	fmt.Println(withErr{errT{"x"}})
	fmt.Println([]wrap{{named{6}}}, map[string]wrap{"k": {named{7}}})
	var s fmt.Stringer = w
	fmt.Println(s.String(), s)
	fmt.Println(w.String())
	fmt.Println(&w, &loc{3})
	fmt.Println(fmt.Sprint(w), fmt.Sprintf("%v", []any{w}))
	type line struct {
		Item  named
		Count int
		Err   error
	}
	type order struct {
		Lines []line
		Total named
		By    map[string]named
	}
	o := order{Lines: []line{{named{1}, 2, errT{"e"}}}, Total: named{9}, By: map[string]named{"a": {1}}}
	fmt.Println(o)
	fmt.Printf("%v\n%+v\n", o, &o)
	fmt.Println(o)
	other()
}

// other declares a type of the same name as one of Main's.
func other() {
	type order struct {
		N     named
		Count int
	}
	fmt.Println(order{named{5}, 1}, []order{{N: named{6}}})
}
