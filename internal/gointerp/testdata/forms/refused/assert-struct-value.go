// A comma-ok assertion of an error to a struct type with methods held by
// value: the interpreter answered false.
package assertstructvalue

import "fmt"

type invalid struct{ field string }

func (v invalid) Error() string { return "invalid " + v.field }

func check(s string) error { return invalid{s} }

func Main() {
	e, ok := check("name").(invalid) // refused: a type assertion to the struct type invalid
	fmt.Println(e.field, ok)
}
