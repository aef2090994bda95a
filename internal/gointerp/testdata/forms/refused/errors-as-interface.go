// errors.As with a target of an interface type the file declares answered
// false: the target is the interpreter's own box.
package errorsasinterface

import (
	"errors"
	"fmt"
)

type temporary interface{ Temporary() bool }

func Main() {
	var t temporary
	fmt.Println(errors.As(errors.New("x"), &t)) // refused: interface type temporary
}
