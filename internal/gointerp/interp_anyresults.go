package gointerp

import (
	"go/ast"
	"go/types"
)

// A value of a type the file declares with methods, returned as a result
// of an empty interface type (func get() any { return celsius(5) }),
// reached the caller without its type: fmt.Println(get()) printed "5"
// where Go calls the String method ("5.0°C"), and the value's methods
// and dynamic type were gone for whatever the caller did with it. Such a
// return is refused at the value, with what to write instead.

// anyResults refuses the returns above in the function bodies of the file.
func (rw *rewriter) anyResults() {
	info := rw.typeInfo()
	var walk func(body *ast.BlockStmt, sig *types.Signature)
	walk = func(body *ast.BlockStmt, sig *types.Signature) {
		if body == nil || sig == nil {
			return
		}
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				s, _ := info.Types[n].Type.(*types.Signature)
				walk(n.Body, s)
				return false
			case *ast.ReturnStmt:
				if len(n.Results) != sig.Results().Len() {
					return true
				}
				for k, e := range n.Results {
					rt := sig.Results().At(k).Type()
					if !isInterface(rt) || nonEmptyInterface(rt) {
						continue
					}
					t := rw.typeOf(e)
					if t == nil || !rw.hasOwnMethods(t) || rw.methodOf(t) == "" {
						continue
					}
					name := types.TypeString(t, types.RelativeTo(rw.classes.pkg))
					rw.refuse(e.Pos(), "the interpreter loses the String or Error method of a "+name+" returned as a result of type any (it prints the bare value): declare the result as the type "+name+", or as an interface with the method (fmt.Stringer, error)")
				}
			}
			return true
		})
	}
	for _, d := range rw.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if obj, ok := info.Defs[fd.Name].(*types.Func); ok {
			walk(fd.Body, obj.Type().(*types.Signature))
		}
	}
}
