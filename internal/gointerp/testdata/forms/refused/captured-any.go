// A variable of type any holding a value with methods, from a variable,
// read by a function literal that captures it: the interpreter read <nil>.
package capturedany

import "fmt"

type level int

func (l level) String() string { return fmt.Sprint("L", int(l)) }

func Main() {
	l := level(2)
	var a any = l
	var c any = level(3)
	func() { fmt.Println(c) }()
	func(a any) { fmt.Println(a) }(a)
	func() { fmt.Println(a) }() // refused: reads the variable a of type any
}
