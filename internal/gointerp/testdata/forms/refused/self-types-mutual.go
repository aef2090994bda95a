// Package selftypesmutual declares two function types that return each
// other: yaegi's compiler crashed ("reflect.Type is nil", no line).
package selftypesmutual

import "fmt"

type ping func() pong // refused: the types ping and pong refer to each other

type pong func() ping

func a() pong { return b }
func b() ping { return a }

func Main() {
	var p ping = a
	fmt.Println(p()() != nil)
}
