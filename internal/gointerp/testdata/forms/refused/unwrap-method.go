// An Unwrap method of the file's own error type: errors.As reached the
// error through a wrapper with the Error method only, so it never found
// the *timeout this error wraps.
package unwrapmethod

import (
	"errors"
	"fmt"
)

type timeout struct{ after int }

func (t *timeout) Error() string { return fmt.Sprintf("timed out after %d", t.after) }

type opError struct {
	op  string
	err error
}

func (e *opError) Error() string { return e.op + ": " + e.err.Error() }

func (e *opError) Unwrap() error { return e.err } // refused: do not call the Unwrap method

func Main() {
	var err error = &opError{"charge", &timeout{3}}
	var t *timeout
	fmt.Println(errors.As(err, &t))
}
