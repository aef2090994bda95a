// Package switchany switches on a value of an interface type with cases
// whose bodies hold a statement the rewrites change (println): the switch
// itself was then left alone, and panicked comparing the cases.
package switchany

import "fmt"

type code int

func (c code) Error() string { return fmt.Sprint("code ", int(c)) }

func kind(x any) string {
	switch x {
	case "hello":
		return "greeting"
	case 3, 4:
		return "small"
	case nil:
	case 99:
		println("never")
	}
	return "other"
}

func Main() {
	var x interface{} = "hello"
	switch x {
	case "hello":
	default:
		println("FAIL")
	}
	fmt.Println(kind("hello"), kind(4), kind(nil), kind(4.5))
	var err error = code(2)
	switch err {
	case code(1):
		println("one")
	case code(2):
		fmt.Println("two")
	}
}
