package gointerp

import (
	"go/ast"
	"go/types"
	"strconv"
)

// twinStructErrors tells apart struct error types of one underlying type.
// yaegi builds a struct type the file declares with reflect.StructOf, so
// two declared types with the same fields (type notSent struct{ cause
// string }; type refused struct{ cause string }) are one reflect type, and
// errors.As(err, &ns) with a *notSent target took a *refused for one: true
// in the interpreter, false in Go, silently (a strangers' file of 6
// December). A struct tag on each twin's first field that names the type
// makes the reflect types differ without changing the layout, the
// literals or anything the program can see but a tag.
func (rw *rewriter) twinStructErrors() {
	errorTypes := map[string]bool{}
	for _, d := range rw.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Name.Name != "Error" {
			continue
		}
		recv := fd.Recv.List[0].Type
		if star, ok := recv.(*ast.StarExpr); ok {
			recv = star.X
		}
		if id, ok := recv.(*ast.Ident); ok {
			errorTypes[id.Name] = true
		}
	}
	byShape := map[string][]*ast.TypeSpec{}
	var shapes []string
	for _, d := range rw.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range gd.Specs {
			ts, ok := s.(*ast.TypeSpec)
			if !ok || ts.TypeParams != nil || !errorTypes[ts.Name.Name] {
				continue
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok || st.Fields == nil || len(st.Fields.List) == 0 {
				continue
			}
			shape := types.ExprString(st)
			if byShape[shape] == nil {
				shapes = append(shapes, shape)
			}
			byShape[shape] = append(byShape[shape], ts)
		}
	}
	for _, shape := range shapes {
		twins := byShape[shape]
		if len(twins) < 2 {
			continue
		}
		for _, ts := range twins {
			first := ts.Type.(*ast.StructType).Fields.List[0]
			tag := `faultline:"` + ts.Name.Name + `"`
			if first.Tag != nil {
				old, err := strconv.Unquote(first.Tag.Value)
				if err != nil {
					continue
				}
				rw.add(rw.off(first.Tag.Pos()), rw.off(first.Tag.End()), strconv.Quote(old+" "+tag))
				continue
			}
			end := rw.off(first.Type.End())
			rw.add(end, end, " "+strconv.Quote(tag))
		}
	}
}
