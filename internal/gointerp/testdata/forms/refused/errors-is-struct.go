// errors.Is with a target of a struct type compared the struct's last
// field: the interpreter hands such a value to the errors package
// holding one of its fields.
package errorsisstruct

import (
	"errors"
	"fmt"
)

type notFound struct {
	kind string
	id   int
}

func (n notFound) Error() string { return fmt.Sprintf("%s %d not found", n.kind, n.id) }

func Main() {
	err := fmt.Errorf("get: %w", notFound{"order", 7})
	fmt.Println(errors.Is(err, notFound{"user", 7})) // refused: errors.Is with a target of the struct type notFound
}
