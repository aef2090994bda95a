// Package newvalue uses Go 1.26's new(expr), a pointer to a fresh
// variable holding a value: the interpreter took it for new of a type and
// its pointer pointed at a zero.
package newvalue

import (
	"fmt"
	"time"
)

type config struct {
	timeout *time.Duration
	retries *int
	name    *string
}

func Main() {
	x := 42
	p := new(x)
	*p++
	c := config{timeout: new(30 * time.Second), retries: new(3), name: new("svc")}
	q := new(int)
	pair := new([2]int{1, 2})
	fmt.Println(*p, x, *c.timeout, *c.retries, *c.name, *q, *pair, *new(x > 40))
}
