// Two error types of one struct shape: errors.As must tell them apart (the
// interpreter took a *refused for a *notSent).
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

func Main() {
	var err error = fmt.Errorf("wrapped: %w", &refused{"400"})
	var ns *notSent
	var rf *refused
	fmt.Println(errors.As(err, &ns), ns == nil)
	fmt.Println(errors.As(err, &rf), rf.cause, rf)
	var t2 *tagged2
	var t1 *tagged
	fmt.Println(errors.As(&tagged{7}, &t2), t2 == nil, errors.As(&tagged{7}, &t1), t1.code)
}
