// Command printbuiltins (TestPrintBuiltins) prints with the builtins print and println,
// which Go's runtime formats itself: no space between print's values,
// floats in the shortest form, a nil pointer as 0x0. The interpreter
// printed them with fmt's %v and spaces, deferred calls too.
package main

type celsius int

func main() {
	defer println("deferred", 1, true, (map[string]int)(nil), []int(nil))
	defer print("deferred ", "print", 2, "\n")
	print("a", "b", 1, true, "\n")
	println("a", "b", 1, true, -7, uint8(200), 2.5, float32(0.1), 1e21, celsius(3))
	var p *int
	var m map[string]int
	println("nil things", p, m)
	x := 3
	println("sum", x+4, "text"+"s")
	println()
	print()
}
