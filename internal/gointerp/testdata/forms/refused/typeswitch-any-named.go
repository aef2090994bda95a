// A type switch on an any with a case naming a type that is not a
// struct: the interpreter keeps a celsius in an any as an int, so a plain
// int matched case celsius.
package typeswitchanynamed

import "fmt"

type celsius int

func (c celsius) String() string { return fmt.Sprintf("%d°C", int(c)) }

func Main() {
	for _, v := range []any{celsius(21), 4} {
		switch x := v.(type) {
		case celsius: // refused: which is not a struct
			fmt.Println("temperature", x)
		default:
			fmt.Println("other", x)
		}
	}
}
