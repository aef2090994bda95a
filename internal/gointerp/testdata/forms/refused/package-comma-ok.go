// A package-level var of two names given by one comma-ok value crashed
// the interpreter's compiler with "nil type" and no line.
package commaok

var limits = map[string]int{"a": 1}

var a, aok = limits["a"] // refused: func init()

func Main() { _, _ = a, aok }
