// Package assertinterface asserts a value to an interface literal, which
// the interpreter answers false for, even where the value has the method.
package assertinterface

import (
	"context"
	"fmt"
)

func Main() {
	var err error = context.DeadlineExceeded
	t, ok := err.(interface{ Timeout() bool }) // refused: a type assertion to an interface
	fmt.Println(ok, ok && t.Timeout())
}
