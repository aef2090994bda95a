// Package structfields prints structs of the file whose exported fields
// have String or Error methods: fmt calls the method of an exported
// field (not of an unexported one), in slices and maps of them too, and
// the interpreter printed the fields' own fields ({1250 EUR}).
package structfields

import (
	"fmt"
	"time"
)

type Money struct {
	Cents    int64
	Currency string
}

func (m Money) String() string {
	return fmt.Sprintf("%d.%02d %s", m.Cents/100, m.Cents%100, m.Currency)
}

type Status uint8

func (s Status) String() string { return [...]string{"none", "pending", "done"}[s] }

type Line struct {
	SKU   string
	Price Money
	Qty   int
	note  Money
}

type Order struct {
	ID      string
	Lines   []Line
	Status  Status
	Meta    map[string]Status
	Timeout time.Duration
	next    *Order
	Parent  *Order
}

type plain struct {
	A, B int
	c    string
}

func Main() {
	o := Order{ID: "o1", Lines: []Line{{"x", Money{1250, "EUR"}, 2, Money{1, "X"}}, {"y", Money{99, "EUR"}, 1, Money{}}},
		Status: 1, Meta: map[string]Status{"b": 2, "a": 1}, Timeout: 1500 * time.Millisecond}
	fmt.Println(o.Lines[0], o.Status)
	fmt.Printf("%v\n%+v\n", o.Lines, o.Lines[1])
	fmt.Printf("%v|%s|%d\n", Line{"z", Money{5, "USD"}, 3, Money{}}, []Line{{SKU: "w"}}, Line{Qty: 4})
	fmt.Println(o.ID, len(fmt.Sprint(o)) > 0, fmt.Sprint(o.Meta), o.Timeout)
	fmt.Printf("%v %+v\n", plain{1, 2, "c"}, plain{3, 4, "d"})
	var nilLine *Line
	fmt.Printf("%v %+v %v\n", &o.Lines[0], &Line{SKU: "p"}, nilLine)
	var none []Line
	fmt.Println(none, map[string]Line{"k": {SKU: "m", Price: Money{100, "GBP"}}})
}
