// %#v of a value held in an interface, where the file declares a named
// type of a composite kind other than a struct: the interpreter stores
// its values as the underlying type, so %#v printed []int where Go
// prints main.list.
package gosyntaxhiddentype

import "fmt"

type list []int

func Main() {
	var v any = list{1, 2}
	fmt.Printf("%#v\n", v) // refused: %#v of a value that may hold this file's type list
}
