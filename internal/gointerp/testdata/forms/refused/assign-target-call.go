// Package assigntargetcall assigns a call's two results to targets that
// call functions: Go evaluates the targets first.
package assigntargetcall

import (
	"fmt"
	"strconv"
)

var trace string

func key() string { trace += "k"; return "a" }

func num() string { trace += "n"; return "1" }

func Main() {
	m := map[string]int{}
	var err error
	m[key()], err = strconv.Atoi(num()) // refused: calls key() after the value on the right
	fmt.Println(m, err, trace)
}
