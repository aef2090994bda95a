package gointerp

import (
	"go/ast"
	"go/types"
	"strings"
)

// instance is a copy of a generic function for one list of type arguments.
type instance struct {
	decl *ast.FuncDecl
	name string
	args []string // the type arguments as Go source, one per parameter
}

// genericInstances finds the uses (calls, function values) of the file's
// generic functions, and makes each name a copy of the function for its
// type arguments (appendInstances writes the copies): yaegi v0.16.1's
// compiler crashes on an instantiation with a named type of an imported
// package (time.Duration) where the result is assigned or an argument is
// a conversion, infers type arguments wrongly from function literals,
// and fails on some generic bodies (a variadic T). A copy is plain code.
// Uses inside the generic function itself, and uses whose type
// arguments the file cannot name, stay generic.
func (rw *rewriter) genericInstances() {
	info := rw.typesInfo()
	decls := map[types.Object]*ast.FuncDecl{}
	for _, d := range rw.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil || fd.Type.TypeParams == nil || len(fd.Type.TypeParams.List) == 0 {
			continue
		}
		if obj := info.Defs[fd.Name]; obj != nil {
			decls[obj] = fd
		}
	}
	if len(decls) == 0 {
		return
	}
	// The index expression around each instantiated name (F[int]).
	indexed := map[*ast.Ident]ast.Expr{}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch e := n.(type) {
		case *ast.IndexExpr:
			if id, ok := e.X.(*ast.Ident); ok {
				indexed[id] = e
			}
		case *ast.IndexListExpr:
			if id, ok := e.X.(*ast.Ident); ok {
				indexed[id] = e
			}
		}
		return true
	})
	byKey := map[string]string{}
	for id, inst := range info.Instances {
		fd := decls[info.Uses[id]]
		if fd == nil || rw.inside(id, fd) {
			continue
		}
		var args []string
		for k := 0; k < inst.TypeArgs.Len(); k++ {
			t := inst.TypeArgs.At(k)
			src, ok := rw.typeSource(t)
			if !ok {
				args = nil
				break
			}
			args = append(args, src)
		}
		if args == nil {
			continue
		}
		key := fd.Name.Name + "[" + strings.Join(args, ", ") + "]"
		name, ok := byKey[key]
		if !ok {
			name = rw.tmp()
			byKey[key] = name
			rw.classes.instances = append(rw.classes.instances, instance{decl: fd, name: name, args: args})
		}
		var use ast.Expr = id
		if ix, ok := indexed[id]; ok {
			use = ix
		}
		rw.add(rw.off(use.Pos()), rw.off(use.End()), name)
	}
}

// appendInstances appends the copies genericInstances asked for, and the
// helpers and imports of classRewrites: each copy is the generic
// function's text as rewritten (the edits inside it applied), renamed,
// without its type parameter list, with each use of a type parameter
// replaced by its argument.
func (rw *rewriter) appendInstances() {
	rw.dropNestedClassEdits()
	var tail []string
	info := rw.classes.info
	for _, in := range rw.classes.instances {
		fd := in.decl
		start, end := rw.off(fd.Pos()), rw.off(fd.End())
		var local []edit
		ok := true
		for _, e := range rw.edits {
			switch {
			case e.at >= start && e.end <= end && (e.at > start || e.at < e.end) && (e.at < end || e.at < e.end):
				local = append(local, edit{at: e.at - start, end: e.end - start, with: e.with, seq: e.seq})
			case e.at < end && e.end > start:
				ok = false // an edit across the function's edges
			}
		}
		if !ok {
			tail = append(tail, "var "+in.name+" = "+fd.Name.Name+"["+strings.Join(in.args, ", ")+"]")
			continue
		}
		seq := len(rw.edits)
		add := func(at, end int, with string) {
			local = append(local, edit{at: at - start, end: end - start, with: with, seq: seq})
			seq++
		}
		add(rw.off(fd.Name.Pos()), rw.off(fd.Name.End()), in.name)
		tp := fd.Type.TypeParams
		add(rw.off(tp.Opening), rw.off(tp.Closing)+1, "")
		params := map[types.Object]string{}
		k := 0
		for _, f := range tp.List {
			for _, n := range f.Names {
				if k < len(in.args) {
					params[info.Defs[n]] = in.args[k]
				}
				k++
			}
		}
		ast.Inspect(fd, func(n ast.Node) bool {
			if n == tp {
				return false
			}
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			if a, ok := params[info.Uses[id]]; ok {
				if strings.HasPrefix(a, "*") || strings.HasPrefix(a, "<-") || strings.HasPrefix(a, "func") {
					a = "(" + a + ")"
				}
				add(rw.off(id.Pos()), rw.off(id.End()), a)
			}
			return true
		})
		text, err := applyEdits(rw.text[start:end], local)
		if err != nil {
			// The uses name the copy: let it be the generic function,
			// instantiated as written.
			text = "var " + in.name + " = " + fd.Name.Name + "[" + strings.Join(in.args, ", ") + "]"
		}
		tail = append(tail, text)
	}
	tail = append(tail, rw.classes.helperOrder...)
	if len(tail) > 0 {
		at := len(rw.text)
		rw.add(at, at, "\n"+strings.Join(tail, "\n")+"\n")
	}
	if len(rw.classes.imports) > 0 {
		var b strings.Builder
		for path, name := range rw.classes.imports {
			b.WriteString("; import " + name + " \"" + path + "\"")
		}
		at := rw.off(rw.file.Name.End())
		rw.add(at, at, b.String())
	}
}
