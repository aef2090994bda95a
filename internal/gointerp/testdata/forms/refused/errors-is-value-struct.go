// errors.Is with an error variable as the target, in a file whose struct
// type has an Error method of a value receiver: two different values of
// it can compare equal, so the answer could be wrong.
package errorsisvaluestruct

import (
	"errors"
	"fmt"
)

type notFound struct {
	kind string
	id   int
}

func (n notFound) Error() string { return fmt.Sprintf("%s %d not found", n.kind, n.id) }

func get(kind string) error { return notFound{kind, 7} }

func Main() {
	err := fmt.Errorf("get: %w", get("order"))
	target := get("user")
	fmt.Println(errors.Is(err, target)) // refused: errors.Is with this target
}
