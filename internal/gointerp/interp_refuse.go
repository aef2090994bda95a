package gointerp

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// Forms that crash yaegi's compiler with a message naming no line
// ("reflect.Type is nil", "nil type"), refused at their line before
// loading (loadCrashes), each with what to write instead, among the
// file's other refusals:
//
//   - a type that refers to itself other than through a struct or an
//     interface: type F func(string) F, type P *P, type L []L, or two
//     types through each other (type A func() B; type B func() A). One
//     only declared loads, or named only in the declarations of types the
//     code never uses; any other use crashed the compiler (var f F, a
//     function taking or returning F, a used struct with a field of F),
//     so it is refused at its declaration where the file uses it;
//   - a package-level var of two names given by one comma-ok value:
//     var v, ok = m["k"] (or x.(T), <-ch), which crashed it even unused.
//
// Where the compiler crashed all the same (the type check that finds the
// cycles could not type the file), the crash is put on the first of them
// (crashCause, called by compilerPanic).
func crashCause(src *Source) *gradewire.Diagnostic {
	for _, d := range src.File.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			var msg string
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.Obj != nil && refersTo(s.Type, s.Name.Obj) {
					msg = selfTypeAdvice([]string{s.Name.Name}, s.Name.Name, types.ExprString(s.Type))
				}
			case *ast.ValueSpec:
				if gd.Tok == token.VAR && len(s.Names) == 2 && len(s.Values) == 1 && commaOK(s.Values[0]) {
					msg = commaOKVarAdvice
				}
			}
			if msg != "" {
				pos := src.Fset.Position(spec.Pos())
				return &gradewire.Diagnostic{Line: pos.Line, Column: pos.Column, Message: msg}
			}
		}
	}
	return nil
}

// commaOKVarAdvice ends the refusal of var v, ok = m[k] at package level.
const commaOKVarAdvice = "the interpreter cannot load a package-level var given two values by one comma-ok expression (var v, ok = m[k]): declare the two variables (var v int; var ok bool) and assign them in func init() { v, ok = m[k] }"

// selfTypeAdvice says what to write instead of the types names (one, or
// the members of a cycle), first the one declared as "type first under".
func selfTypeAdvice(names []string, first, under string) string {
	what := "the type " + first + " refers to itself"
	if len(names) > 1 {
		what = "the types " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " refer to each other"
	}
	return fmt.Sprintf("%s other than through a struct, and the interpreter cannot load a use of such a type: wrap it in a struct (type %s struct{ f %s }, calling x.f(...)) or use an interface", what, first, under)
}

// loadCrashes refuses the forms above that crash the compiler, at their
// line: a type of the file in a cycle not through a struct or an
// interface, where the file uses one of the cycle's types outside their
// declarations (at the first of them), and a package-level var v, ok =
// m[k].
func (rw *rewriter) loadCrashes() {
	for _, d := range rw.file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, spec := range gd.Specs {
				if s := spec.(*ast.ValueSpec); len(s.Names) == 2 && len(s.Values) == 1 && commaOK(s.Values[0]) {
					rw.refuse(s.Pos(), commaOKVarAdvice)
				}
			}
		}
	}
	info := rw.typesInfo()
	specs := map[*types.TypeName]*ast.TypeSpec{}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		if s, ok := n.(*ast.TypeSpec); ok && !s.Assign.IsValid() {
			if tn, ok := info.Defs[s.Name].(*types.TypeName); ok {
				specs[tn] = s
			}
		}
		return true
	})
	if len(specs) == 0 {
		return
	}
	// reaches is the file's types each one reaches other than through a
	// struct or an interface, itself included where it is in a cycle.
	reaches := map[*types.TypeName]map[*types.TypeName]bool{}
	for tn := range specs {
		seen := map[*types.TypeName]bool{}
		var walk func(t types.Type)
		walk = func(t types.Type) {
			switch t := types.Unalias(t).(type) {
			case *types.Named:
				o := t.Origin().Obj()
				if specs[o] == nil || seen[o] {
					return
				}
				seen[o] = true
				walk(t.Origin().Underlying())
			case *types.Pointer:
				walk(t.Elem())
			case *types.Slice:
				walk(t.Elem())
			case *types.Array:
				walk(t.Elem())
			case *types.Map:
				walk(t.Key())
				walk(t.Elem())
			case *types.Chan:
				walk(t.Elem())
			case *types.Signature:
				for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
					for k := 0; k < tup.Len(); k++ {
						walk(tup.At(k).Type())
					}
				}
			}
		}
		walk(tn.Type().Underlying())
		reaches[tn] = seen
	}
	// used are the file's types its code uses: named outside every type
	// declaration, or in the declaration of another used type (a type
	// named only in unused types' declarations loads).
	type use struct{ owner, obj *types.TypeName }
	var uses []use
	for id, obj := range info.Uses {
		o, ok := obj.(*types.TypeName)
		if !ok || specs[o] == nil {
			continue
		}
		var owner *types.TypeName
		for tn, s := range specs {
			if s.Pos() <= id.Pos() && id.Pos() < s.End() && (owner == nil || s.Pos() > specs[owner].Pos()) {
				owner = tn
			}
		}
		uses = append(uses, use{owner, o})
	}
	used := map[*types.TypeName]bool{}
	for changed := true; changed; {
		changed = false
		for _, u := range uses {
			if !used[u.obj] && (u.owner == nil || u.owner != u.obj && used[u.owner]) {
				used[u.obj], changed = true, true
			}
		}
	}
	done := map[*types.TypeName]bool{}
	for tn := range specs {
		if !reaches[tn][tn] || done[tn] {
			continue
		}
		// The cycle: the types tn reaches that reach it, in the file's order.
		var cycle []*types.TypeName
		for o := range reaches[tn] {
			if reaches[o][tn] {
				cycle = append(cycle, o)
				done[o] = true
			}
		}
		sort.Slice(cycle, func(a, b int) bool { return specs[cycle[a]].Pos() < specs[cycle[b]].Pos() })
		if !slices.ContainsFunc(cycle, func(o *types.TypeName) bool { return used[o] }) {
			continue
		}
		names := make([]string, len(cycle))
		for k, o := range cycle {
			names[k] = o.Name()
		}
		first := specs[cycle[0]]
		rw.refuse(first.Pos(), selfTypeAdvice(names, first.Name.Name, rw.src(first.Type)))
	}
}

// refersTo reports whether the type expression e names obj other than
// inside a struct or an interface type.
func refersTo(e ast.Expr, obj *ast.Object) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.StructType, *ast.InterfaceType:
			return false
		case *ast.Ident:
			found = found || n.Obj == obj
		}
		return !found
	})
	return found
}

func commaOK(e ast.Expr) bool {
	switch v := unparen(e).(type) {
	case *ast.IndexExpr, *ast.TypeAssertExpr:
		return true
	case *ast.UnaryExpr:
		return v.Op == token.ARROW
	}
	return false
}

// errorsAsTarget refuses errors.As(err, target) where target points to a
// value the interpreter cannot find in a chain of errors:
//   - a struct type the file declares, used as an error by value (its
//     Error method has a value receiver): yaegi hands such a value to
//     host code (fmt.Errorf's %w, errors.As itself) holding one of its
//     fields instead of the struct, so errors.As answered false, or its
//     fields were wrong;
//   - an interface type the file declares: the target is the
//     interpreter's own box, which errors.As cannot fill.
//
// A pointer to a struct type (the usual form, Error on *T) is found (see
// errorsAs in interp_fmt.go).
func (rw *rewriter) errorsAsTarget(call *ast.CallExpr, typeOf func(ast.Expr) types.Type) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "As" || len(call.Args) != 2 {
		return
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || rw.imports[pkg.Name] != "errors" {
		return
	}
	t := typeOf(call.Args[1])
	if t == nil {
		return
	}
	p, ok := t.(*types.Pointer)
	if !ok {
		return
	}
	named, ok := p.Elem().(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Name() != rw.file.Name.Name {
		return
	}
	name := named.Obj().Name()
	switch named.Underlying().(type) {
	case *types.Struct:
		rw.refuse(call.Args[1].Pos(), fmt.Sprintf("errors.As with a target of the struct type %s is not run faithfully by the interpreter when %s is used as an error by value: give its Error method a pointer receiver, return &%s{...}, and pass a *%s target (var e *%s; errors.As(err, &e))", name, name, name, name, name))
	case *types.Interface:
		rw.refuse(call.Args[1].Pos(), fmt.Sprintf("errors.As with a target of the interface type %s is not run faithfully by the interpreter: pass a pointer to a concrete error type (var e *MyError; errors.As(err, &e))", name))
	}
}

// errorsIsTarget refuses errors.Is(err, target) where errorsIs cannot
// compare faithfully (see interp_errorsis.go): a target of a struct type
// the file declares, or a target of an interface type in a file that
// declares a struct type with an Error method of a value receiver (such
// a value reaches host code holding one of its fields, so two different
// errors could compare equal). A target that is a package's variable
// made by errors.New or fmt.Errorf (a sentinel), or an allowed package's
// (context.Canceled), is compared as Go compares it.
func (rw *rewriter) errorsIsTarget(call *ast.CallExpr, typeOf func(ast.Expr) types.Type) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Is" || len(call.Args) != 2 {
		return
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Obj != nil || rw.imports[pkg.Name] != "errors" {
		return
	}
	target := call.Args[1]
	t := typeOf(target)
	if t == nil || isNilIdent(target) {
		return
	}
	if a, b, under := rw.twinErrorTypes(); a != "" && !rw.sentinel(target) {
		rw.refuse(target.Pos(), fmt.Sprintf("errors.Is cannot tell your error types %s and %s apart in the interpreter: it keeps a value of either as the same underlying type (%s), so %s(1) and %s(1) would compare equal. Give one of them another underlying type (a struct whose Error method has a pointer receiver), or compare with sentinels made by errors.New", a, b, under, a, b))
		return
	}
	if named, ok := t.(*types.Named); ok && named.Obj().Pkg() == rw.classes.pkg {
		if _, isStruct := named.Underlying().(*types.Struct); isStruct {
			name := named.Obj().Name()
			rw.refuse(target.Pos(), fmt.Sprintf("errors.Is with a target of the struct type %s is not run faithfully by the interpreter: it hands such a value to the errors package holding one of its fields. Give %s's Error method a pointer receiver and use errors.As with a *%s target, or compare with a sentinel (var ErrX = errors.New(...))", name, name, name))
			return
		}
	}
	if !isInterface(t) || rw.sentinel(target) {
		return
	}
	if name := rw.valueStructError(); name != "" {
		rw.refuse(target.Pos(), fmt.Sprintf("errors.Is with this target is not run faithfully by the interpreter in a file whose struct type %s has an Error method with a value receiver: the interpreter hands such a value to the errors package holding one of its fields. Give %s's Error method a pointer receiver (return &%s{...}), or compare with a sentinel made by errors.New", name, name, name))
	}
}

// sentinel reports a package-level variable given its value by
// errors.New or fmt.Errorf, or a variable of an imported package.
func (rw *rewriter) sentinel(e ast.Expr) bool {
	switch e := unparen(e).(type) {
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Obj == nil && rw.imports[x.Name] != ""
	case *ast.Ident:
		if e.Obj == nil || e.Obj.Kind != ast.Var {
			return false
		}
		vs, ok := e.Obj.Decl.(*ast.ValueSpec)
		if !ok || len(vs.Values) != len(vs.Names) {
			return false
		}
		for k, n := range vs.Names {
			if n.Obj != e.Obj {
				continue
			}
			call, ok := vs.Values[k].(*ast.CallExpr)
			if !ok {
				return false
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return false
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || pkg.Obj != nil {
				return false
			}
			path := rw.imports[pkg.Name]
			return path == "errors" && sel.Sel.Name == "New" || path == "fmt" && sel.Sel.Name == "Errorf"
		}
	}
	return false
}

// twinErrorTypes returns two types the file declares, not structs, with
// Error methods and the same underlying type (type codeA int; type codeB
// int), with that type's source, or "", "", "". yaegi keeps a value of such a type as its underlying
// type, so errorsIs cannot tell codeA(1) from codeB(1).
func (rw *rewriter) twinErrorTypes() (a, b, under string) {
	seen := map[string]string{} // underlying type's source -> first type
	done := map[string]bool{}
	for _, d := range rw.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Name.Name != "Error" {
			continue
		}
		recv := fd.Recv.List[0].Type
		if star, ok := recv.(*ast.StarExpr); ok {
			recv = star.X
		}
		id, ok := recv.(*ast.Ident)
		if !ok || id.Obj == nil || done[id.Name] {
			continue
		}
		done[id.Name] = true
		ts, ok := id.Obj.Decl.(*ast.TypeSpec)
		if !ok {
			continue
		}
		if _, isStruct := ts.Type.(*ast.StructType); isStruct {
			continue
		}
		under := types.ExprString(ts.Type)
		if first, ok := seen[under]; ok {
			return first, id.Name, under
		}
		seen[under] = id.Name
	}
	return "", "", ""
}

// valueStructError is the name of a struct type the file declares with
// an Error method of a value receiver, or "".
func (rw *rewriter) valueStructError() string {
	for _, d := range rw.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Name.Name != "Error" {
			continue
		}
		id, ok := fd.Recv.List[0].Type.(*ast.Ident)
		if !ok || id.Obj == nil {
			continue
		}
		if ts, ok := id.Obj.Decl.(*ast.TypeSpec); ok {
			if _, isStruct := ts.Type.(*ast.StructType); isStruct {
				return id.Name
			}
		}
	}
	return ""
}

// chainMethods refuses an Unwrap, Is or As method of one of the file's
// types in a file that calls errors.Is, errors.As or errors.Unwrap: the
// errors package reaches a value of the file's types through yaegi's
// wrapper for error, which has the Error method only, so it never
// followed the file's Unwrap (errors.As found nothing under an error of
// the file's that wraps another) nor called its Is or As (checked with
// a wrapper of the file's own around a *TempErr whose Is matched a
// sentinel). Wrapping with fmt.Errorf's %w is followed.
func (rw *rewriter) chainMethods() {
	calls := false
	ast.Inspect(rw.file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil && rw.imports[x.Name] == "errors" {
				switch sel.Sel.Name {
				case "Is", "As", "Unwrap":
					calls = true
				}
			}
		}
		return !calls
	})
	if !calls {
		return
	}
	// recvBase is a method's receiver type's name, generic ones included.
	recvBase := func(fd *ast.FuncDecl) string {
		t := fd.Recv.List[0].Type
		if s, ok := t.(*ast.StarExpr); ok {
			t = s.X
		}
		switch x := t.(type) {
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		}
		base, _, _ := receiverBase(t)
		return base
	}
	errorTypes := map[string]bool{} // the file's types with an Error method
	for _, d := range rw.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.Name == "Error" {
			errorTypes[recvBase(fd)] = true
		}
	}
	for _, d := range rw.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Type.Results == nil || fd.Type.Results.NumFields() != 1 {
			continue
		}
		if base := recvBase(fd); base == "" || !errorTypes[base] {
			continue
		}
		params := fd.Type.Params.NumFields()
		result := types.ExprString(fd.Type.Results.List[0].Type)
		var param string
		if params == 1 {
			param = types.ExprString(fd.Type.Params.List[0].Type)
		}
		// Only the shapes the errors package calls: a method of another
		// shape is the file's own business.
		var advice string
		switch {
		case fd.Name.Name == "Unwrap" && params == 0 && (result == "error" || result == "[]error"):
			advice = "wrap the cause with fmt.Errorf(\"...: %w\", err) instead of an Unwrap method"
		case fd.Name.Name == "Is" && params == 1 && param == "error" && result == "bool",
			fd.Name.Name == "As" && params == 1 && (param == "any" || param == "interface{}") && result == "bool":
			advice = "compare with a sentinel error wrapped with fmt.Errorf(\"...: %w\", ErrX), or test the type with errors.As"
		default:
			continue
		}
		rw.refuse(fd.Name.Pos(), fmt.Sprintf("the interpreter's errors.Is and errors.As do not call the %s method of your file's types: they see your errors through a wrapper that has only the Error method, so they would answer wrongly. %s", fd.Name.Name, strings.ToUpper(advice[:1])+advice[1:]))
	}
}
