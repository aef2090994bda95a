// Two error types of one struct shape: errors.As must tell them apart (the
// interpreter took a *refused for a *notSent). And a struct value whose
// Error or String method has a pointer receiver prints its fields.
package twinstructerrors

import (
	"errors"
	"fmt"
)

type notSent struct{ cause string }

func (e *notSent) Error() string { return "not sent: " + e.cause }

type refused struct{ cause string }

func (e *refused) Error() string { return "refused: " + e.cause }

type tagged struct {
	code int `json:"code"`
}

func (e *tagged) Error() string { return fmt.Sprint("tagged ", e.code) }

type tagged2 struct {
	code int `json:"code"`
}

func (e *tagged2) Error() string { return fmt.Sprint("tagged2 ", e.code) }

type point struct{ X, Y int }

func (p *point) String() string { return fmt.Sprintf("(%d, %d)", p.X, p.Y) }

func Main() {
	pt := point{1, 2}
	fmt.Println(pt, &pt, []point{{3, 4}})
	fmt.Printf("%v %+v %s\n", pt, pt, &pt)
	var err error = fmt.Errorf("wrapped: %w", &refused{"400"})
	var ns *notSent
	var rf *refused
	fmt.Println(errors.As(err, &ns), ns == nil)
	fmt.Println(errors.As(err, &rf), rf.cause, rf)
	fmt.Printf("%v %+v\n", refused{"x"}, notSent{cause: "y"})
	fmt.Println(tagged{3}, &tagged{4})
	var t2 *tagged2
	var t1 *tagged
	fmt.Println(errors.As(&tagged{7}, &t2), t2 == nil, errors.As(&tagged{7}, &t1), t1.code)
}
