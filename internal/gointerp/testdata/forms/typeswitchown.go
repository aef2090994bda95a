// Package typeswitchown switches on errors (and other values of host
// interfaces) by the file's own types: the interpreter matched none of
// the cases naming a type of the file with methods, so every error fell
// to the default.
package typeswitchown

import (
	"errors"
	"fmt"
)

type notFound struct{ id int }

func (n *notFound) Error() string { return fmt.Sprintf("%d not found", n.id) }

type status int

func (s status) Error() string { return fmt.Sprintf("status %d", int(s)) }

type conflict struct{ key string }

func (c *conflict) Error() string { return "conflict on " + c.key }

type status2 int

func (s status2) Error() string { return "s2" }

type thing struct{ n int }

func (t *thing) String() string { return fmt.Sprintf("thing%d", t.n) }

func find(id int) error {
	switch {
	case id < 0:
		return &notFound{-id}
	case id == 0:
		return nil
	case id > 100:
		return status(id)
	case id == 7:
		return &conflict{"k7"}
	}
	return errors.New("other")
}

func kind(err error) string {
	switch e := err.(type) {
	case nil:
		return "ok"
	case *notFound:
		return fmt.Sprintf("missing %d", e.id)
	case status:
		return fmt.Sprintf("status %d", int(e))
	case *conflict, status2:
		return "conflict: " + e.Error()
	default:
		return "other: " + e.Error()
	}
}

func empty(err error) string {
	out := "start"
	switch e := err.(type) {
	case *notFound:
	case nil:
		out += " nil"
	default:
		_ = e
		out += " other"
	}
	return out + " end"
}

func Main() {
	fmt.Println(empty(&notFound{1}), empty(nil), empty(errors.New("x")))
	for _, id := range []int{-3, 0, 404, 7, 5} {
		fmt.Print(kind(find(id)), "; ")
	}
	fmt.Println()
	n := 0
	for _, id := range []int{-1, 500, 7, -2} {
		switch find(id).(type) {
		case *conflict:
			break
		case *notFound:
			n++
			continue
		}
		n += 10
	}
	fmt.Println(n)
	for _, v := range []any{&thing{1}, &notFound{2}, 3} {
		switch x := v.(type) {
		case *thing:
			fmt.Print("thing ", x, "; ")
		case *notFound:
			fmt.Print("nf ", x.id, "; ")
		default:
			fmt.Print("default ", x, "; ")
		}
	}
	fmt.Println()
	if e, ok := find(-9).(*notFound); ok {
		fmt.Println("asserted", e.id)
	}
}
