// Package newvalue_unimported takes new of a value whose type comes from a
// package the file does not import (time.Time, through context): the
// rewrite must name that type without the file's import of it.
package newvalue_unimported

import (
	"context"
	"fmt"
)

func Main() {
	d, ok := context.Background().Deadline()
	p := new(d)
	fmt.Println((*p).IsZero(), ok, p != &d)
}
