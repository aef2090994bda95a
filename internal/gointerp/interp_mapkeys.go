package gointerp

import (
	"go/ast"
	"go/types"
)

// A map keyed by an interface with methods (map[Shape]string,
// map[error]int) holding values of the file's types is not a map the
// interpreter runs faithfully: indexing it with a struct key panicked
// ("reflect.Value.MapIndex: value of type struct {...} is not assignable
// to type interp.valueInterface"); keys converted first (Shape(rect{1, 2}))
// never matched the keys stored elsewhere, as the interpreter compares
// its boxes of interface values by where they were made; an error key
// of the file's own type panicked as unhashable. A file that declares
// methods and writes such a map type is refused at the map type; a file
// without methods can only put the packages' own values in it, which
// work.

// interfaceMapKey refuses the map type n where its key is an interface
// with methods.
func (rw *rewriter) interfaceMapKey(n *ast.MapType) {
	tv, ok := rw.typeInfo().Types[n]
	if !ok || tv.Type == nil {
		return
	}
	m, ok := tv.Type.Underlying().(*types.Map)
	if !ok || !nonEmptyInterface(m.Key()) {
		return
	}
	key := rw.src(n.Key)
	rw.refuse(n.Pos(), "a map keyed by the interface "+key+" is not run faithfully by the interpreter: keys of the file's types stored in it are not found again (or the lookup panics). Key the map by a comparable value of your own instead (a string or a struct naming the value, such as its ID), or keep the values in a slice and compare them")
}
