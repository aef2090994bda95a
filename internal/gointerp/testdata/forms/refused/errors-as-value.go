// errors.As with a target of a struct type used as an error by value
// answered false: the interpreter hands the error to host code holding
// one of its fields instead of the struct.
package errorsasvalue

import (
	"errors"
	"fmt"
)

type validation struct{ field string }

func (v validation) Error() string { return "invalid " + v.field }

func Main() {
	err := fmt.Errorf("save: %w", validation{"name"})
	var v validation
	fmt.Println(errors.As(err, &v)) // refused: give its Error method a pointer receiver
}
