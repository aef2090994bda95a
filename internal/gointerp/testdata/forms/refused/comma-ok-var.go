// Package commaokvar gives two package variables their values by one
// comma-ok map index: yaegi's compiler crashed ("nil type", no line),
// even where they are not used.
package commaokvar

import "fmt"

var limits = map[string]int{"refund": 3}

var max, found = limits["refund"] // refused: package-level var given two values by one comma-ok

func Main() { fmt.Println(max, found) }
