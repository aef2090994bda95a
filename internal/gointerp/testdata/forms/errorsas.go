// Package errorsas finds errors of the file's own types in a chain with
// errors.As: a pointer type wrapped by fmt.Errorf, joined, at the top of
// the chain. The host's errors.As
// panicked ("*target must be interface or implement error") for every
// target of an interpreted type.
package errorsas

import (
	"errors"
	"fmt"
)

type notFound struct{ key string }

func (e *notFound) Error() string { return "not found: " + e.key }

type timeout struct{ after int }

func (e *timeout) Error() string { return fmt.Sprint("timeout after ", e.after) }

func lookup(k string) error {
	if k == "" {
		return &timeout{3}
	}
	return fmt.Errorf("lookup %q: %w", k, &notFound{k})
}

func Main() {
	var nf *notFound
	err := lookup("x")
	fmt.Println(errors.As(err, &nf), nf.key)
	var to *timeout
	fmt.Println(errors.As(err, &to), to == nil)
	fmt.Println(errors.As(lookup(""), &to), to.after)
	var top error = &notFound{"top"}
	fmt.Println(errors.As(top, &nf), nf.key)
	joined := errors.Join(errors.New("first"), lookup("y"))
	fmt.Println(errors.As(joined, &nf), nf.key)
	fmt.Println(errors.As(fmt.Errorf("outer: %w", joined), &nf), nf.key)
	fmt.Println(errors.Is(err, err), errors.Unwrap(err) != nil)
}
