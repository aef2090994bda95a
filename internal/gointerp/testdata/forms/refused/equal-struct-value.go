// == between two errors holding values of a struct type with value
// receivers: the interpreter compared one field of each, so
// notFound{"order", 7} == notFound{"user", 7} was true.
package equalstructvalue

import "fmt"

type notFound struct {
	kind string
	id   int
}

func (n notFound) Error() string { return fmt.Sprintf("%s %d not found", n.kind, n.id) }

func find(kind string) error { return notFound{kind, 7} }

func Main() {
	fmt.Println(find("order") == find("user")) // refused: == between values of an interface
}
