// Package fmtelems prints values of the file's types with String and
// Error methods where the interpreter lost the method or the value: as
// elements of slices, arrays and maps (fmt calls each element's method),
// a struct with a String method under %d (fmt prints its fields), an
// error variable holding a struct wrapped by Errorf's %w, and a struct
// value converted or assigned to an interface with methods. errors.Is
// finds errors of the file's non-struct types and sentinels in a chain.
package fmtelems

import (
	"errors"
	"fmt"
)

type celsius int

func (c celsius) String() string { return fmt.Sprintf("%d°C", int(c)) }

type pt struct{ x, y int }

// level is a byte: fmt prints a slice of levels under %s as a string, but
// a map's values each with its method.
type level uint8

func (l level) String() string { return [...]string{"debug", "info", "warn"}[l%3] }

func (p pt) String() string { return fmt.Sprintf("P(%d,%d)", p.x, p.y) }

type node struct{ id int }

func (n *node) String() string { return fmt.Sprintf("node%d", n.id) }

type status int

func (s status) Error() string { return fmt.Sprintf("status %d", int(s)) }

type invalid struct {
	field string
	code  int
}

func (v invalid) Error() string { return "invalid " + v.field }

var errGone = errors.New("gone")

func find(id int) error {
	if id < 0 {
		return invalid{"id", id}
	}
	return status(404)
}

func Main() {
	temps := []celsius{21, 19}
	fmt.Println(temps, [2]celsius{1, 2}, map[string]celsius{"b": 3, "a": 4})
	fmt.Println([]pt{{1, 2}, {3, 4}}, []*node{{7}, nil}, map[int]pt{2: {5, 6}})
	fmt.Printf("%v|%d|%s|%5v\n", temps, temps, temps, []celsius{5})
	fmt.Printf("%s|%v|%s|%x|%v\n", map[string]level{"k": 1}, map[string]level{"k": 2}, []level{104, 105}, []level{1}, []level{1})
	// Keys with a method, printed with it in the order of their values.
	byLevel := map[level]int{2: 1, 0: 5, 1: 7}
	fmt.Println(byLevel, map[pt]celsius{{2, 1}: 3, {1, 9}: 4}, map[level][]celsius{1: {2}})
	fmt.Printf("%d|%3v|%v\n", byLevel, byLevel, map[level]int(nil))
	var none []celsius
	fmt.Println(none, len(fmt.Sprint(none)), map[string]pt(nil))
	fmt.Printf("%d %v %s %+v\n", pt{1, 2}, pt{1, 2}, pt{3, 4}, pt{5, 6})
	fmt.Println([]error{status(1), invalid{"name", 2}}, fmt.Sprint(pt{7, 8}))

	var e error = invalid{"email", 3}
	fmt.Println(e, e.Error())
	w := fmt.Errorf("save: %w", e)
	fmt.Println(w, errors.Unwrap(w) != nil)
	e = invalid{"phone", 4}
	fmt.Printf("%v %s\n", e, error(invalid{"zip", 5}))
	var s fmt.Stringer = pt{9, 9}
	fmt.Println(s, fmt.Stringer(pt{8, 8}).String())
	errs := map[string]error{}
	errs["a"] = invalid{"a", 1}
	fmt.Println(errs, find(-1), find(1))

	w2 := fmt.Errorf("get: %w", find(1))
	w3 := fmt.Errorf("load: %w", errGone)
	fmt.Println(errors.Is(w2, status(404)), errors.Is(w2, status(500)), errors.Is(w2, errGone))
	fmt.Println(errors.Is(w3, errGone), errors.Is(errors.Join(w2, w3), errGone), errors.Is(nil, errGone))
}
