// Two error types of one underlying type: the interpreter keeps a value of
// either as a plain int, so errors.Is would take codeA(1) for codeB(1).
package errorsistwintypes

import (
	"errors"
	"fmt"
)

type codeA int

func (codeA) Error() string { return "a" }

type codeB int

func (codeB) Error() string { return "b" }

func Main() {
	var e error = codeA(1)
	fmt.Println(errors.Is(e, codeB(1))) // refused: errors.Is cannot tell your error types codeA and codeB apart
}
