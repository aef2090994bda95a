// Methods named Is and Unwrap on types that are not errors, in a file that
// calls errors.Is: they are the file's own business, and run as written.
package errorshapes

import (
	"errors"
	"fmt"
)

var ErrEmpty = errors.New("empty")

type Color int

func (c Color) Is(o Color) bool { return c == o }

type Maybe struct{ v int }

func (m Maybe) Unwrap() int { return m.v }

func pop(xs []int) (int, error) {
	if len(xs) == 0 {
		return 0, fmt.Errorf("pop: %w", ErrEmpty)
	}
	return xs[0], nil
}

func Main() {
	_, err := pop(nil)
	fmt.Println(errors.Is(err, ErrEmpty), Color(2).Is(2), Color(2).Is(3), Maybe{7}.Unwrap())
}
