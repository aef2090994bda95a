// Package gosyntax prints values of the file's types with %#v: the
// interpreter printed its own types for them ("struct { Xid int; ... }"
// for main.order, []int for []main.level).
package gosyntax

import (
	"fmt"
	"time"
)

type order struct {
	id    int
	Name  string
	items []string
	at    time.Duration
}

type celsius float64
type level int
type pair struct{ A, B int }
type wrapped struct {
	pair
	o *order
	m map[string]pair
}

func Main() {
	o := order{1, "x", []string{"a"}, time.Second}
	fmt.Printf("%#v\n", o)
	fmt.Printf("%#v\n", &o)
	fmt.Printf("%#v\n", celsius(1.5))
	fmt.Printf("%#v\n", level(2))
	fmt.Printf("%#v\n", []pair{{1, 2}})
	fmt.Printf("%#v\n", map[string]pair{"k": {3, 4}})
	fmt.Printf("%#v\n", wrapped{pair: pair{1, 2}, m: map[string]pair{"z": {}}})
	var a any = pair{5, 6}
	fmt.Printf("%#v\n", a)
	fmt.Println(fmt.Sprintf("%#v", []level{1, 2}))
	fmt.Printf("%#v %#v\n", struct{ x int }{1}, [2]celsius{})
	type local struct {
		p    pair
		note string
	}
	fmt.Printf("%#v\n", []local{{pair{1, 2}, "n"}})
	var e error
	h := holder{v: pair{7, 8}, err: e, list: []any{pair{1, 1}, 2, "s", nil}}
	fmt.Printf("%#v\n", h)
	var anyPtr any = &pair{9, 9}
	fmt.Printf("%#v|%#v\n", anyPtr, []*pair{nil})
	keyed := map[pair]level{{2, 1}: 1, {1, 2}: 2, {1, 1}: 3}
	fmt.Printf("%#v\n", keyed)
	err := fmt.Errorf("bad %#v", pair{3, 4})
	fmt.Println(err, fmt.Sprintf("%#v", (*order)(nil)))
	var nothing any
	var noErr error
	fmt.Printf("%#v %#v %#v\n", nothing, noErr, []error{nil})
	var nilSlice []pair
	fmt.Printf("%#v %#v\n", nilSlice, map[level]pair(nil))
}

type holder struct {
	v    any
	err  error
	list []any
}
