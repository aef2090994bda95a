// A type switch case naming a struct type with methods, for an error
// held by value: the interpreter never matched it.
package typeswitchstructvalue

import "fmt"

type invalid struct{ field string }

func (v invalid) Error() string { return "invalid " + v.field }

func check(s string) error { return invalid{s} }

func Main() {
	switch e := check("name").(type) {
	case invalid: // refused: give invalid's methods pointer receivers
		fmt.Println("invalid", e.field)
	default:
		fmt.Println("other")
	}
}
