// A value with a String method returned as a result of type any: the
// interpreter printed the bare value.
package anyresult

import "fmt"

type celsius float64

func (c celsius) String() string { return fmt.Sprintf("%.1fC", float64(c)) }

func reading() any {
	return celsius(4) // refused: returned as a result of type any
}

func Main() {
	fmt.Println(reading())
}
