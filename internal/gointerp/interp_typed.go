package gointerp

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strings"
	"unsafe"
)

// Rewrites that need the types of expressions, found by go/types before
// the interpreter sees the file (measured against Go's own test programs
// by bench/gotests.sh, where each of these forms ran silently wrong):
//
//   - x == y where either side is an interface (error, a Shape the file
//     declares, any(s)) was false for equal values, and x != y true:
//     yaegi compares its own boxes of the two values, not the values. Rewritten to a call of the runtime package's Equal (see
//     equal), which compares the values as Go does. A comparison with nil is left
//     alone: it is right, and the commonest.
//   - xs[i] = <-ch, p.f = <-ch, *p = <-ch, m[k], ok = <-ch, the other
//     comma-ok forms m[k], ok = v.(T) and xs[i], ok = m[k], and a call's
//     values, m[k], err = strconv.Atoi(s): a value assigned to anything
//     but variables was computed and not stored.
//     Rewritten to { t := <-ch; xs[i] = t } where the statement stands in
//     a list.
//   - e, ok := r.(error) with r a nil any (a recover() with no panic)
//     panicked ("call of reflect.Value.Type on zero Value"), as does an
//     assertion to any interface of the allowed packages. Rewritten to a
//     literal that answers nil, false for nil and asserts otherwise.
//   - return b, a in a function whose results are named a and b assigned
//     the results one by one, so a was b's value before b got a's (now
//     b's). Rewritten to { var t1 T = b; var t2 T = a; return t1, t2 }.
//   - case x := <-ch: in a select in a loop declared one x for every
//     iteration, so a closure or a pointer taken of x saw later values.
//     A captured x is declared at the top of the case body instead, from
//     the case's value (case t := <-ch: x := t), as a loop's variables get
//     a copy each (loopVarsRange).
//   - switch x { case a, b: } with x of an interface type compares as ==
//     does, and panicked for a case of a type the file declares
//     ("reflect.Value.Convert: value of type error cannot be converted to
//     type int"). Rewritten to switch t := x; { case Equal(t, a) ||
//     Equal(t, b): } (a switch with an init statement is left alone).
//
// The check is the one classRewrites makes (typesInfo): an expression
// whose type it cannot tell is left untyped, and no rewrite is made from
// it.

// typeInfo is the file's type check, shared with classRewrites
// (interp_types.go), whose importer gives the allowed packages' and the
// harness's names their types.
func (rw *rewriter) typeInfo() *types.Info { return rw.typesInfo() }

// typedRewrites makes the rewrites above.
func (rw *rewriter) typedRewrites() {
	rw.printBuiltins() // interp_print.go
	// rw.typeOf, but untyped nil has no type to rewrite by. The check runs
	// on the first call (typesInfo keeps it).
	typeOf := func(e ast.Expr) types.Type {
		if rw.typeInfo().Types[e].IsNil() {
			return nil
		}
		return rw.typeOf(e)
	}
	rw.newOfValues(typeOf, rw.typeInfo) // interp_new.go
	rw.typedConstants()                 // interp_constants.go
	rw.capturedLiteralWrites()          // interp_closurewrites.go
	// The names of the file's methods: the rewrites of fmt's arguments
	// and of conversions to interfaces concern the file's types with
	// methods, and a file with none starts no type check for them.
	methods := map[string]bool{}
	for _, d := range rw.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
			methods[fd.Name.Name] = true
		}
	}
	if len(methods) > 0 {
		rw.capturedAnyValues() // interp_captured.go
		rw.anyResults()        // interp_anyresults.go
	}
	if methods["String"] || methods["Error"] {
		rw.boxMethodsInit() // interp_boxes.go
	}
	commaOKs := map[*ast.TypeAssertExpr]bool{}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		var lhs int
		var rhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs, rhs = len(n.Lhs), n.Rhs
		case *ast.ValueSpec:
			lhs, rhs = len(n.Names), n.Values
		}
		if lhs == 2 && len(rhs) == 1 {
			if a, ok := unparen(rhs[0]).(*ast.TypeAssertExpr); ok {
				commaOKs[a] = true
			}
		}
		return true
	})
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			rw.typeNameVerbs(n, typeOf) // interp_typename.go
			rw.goSyntaxVerbs(n, typeOf) // interp_gosyntax.go
			if len(n.Args) == 1 && callsInside(n.Fun) {
				rw.computedCallOfResults(n) // interp_loadcrash.go
			}
			rw.errorsAsTarget(n, typeOf) // interp_refuse.go
			rw.errorsIsTarget(n, typeOf) // interp_refuse.go
			if methods["String"] || methods["Error"] {
				rw.site = n.Pos()
				rw.fmtArgs(n, typeOf) // interp_fmtargs.go
				rw.site = token.NoPos
				rw.anyBoxes(n) // interp_boxes.go
			}
			if len(methods) > 0 && len(n.Args) == 1 && !isNilIdent(n.Args[0]) && maybeType(n.Fun) {
				rw.interfaceConversion(n, rw.typeInfo())
			}
		case *ast.SwitchStmt:
			rw.interfaceSwitch(n, typeOf)
		case *ast.ArrayType:
			if n.Len != nil {
				rw.arrayLength(n) // interp_loadcrash.go
			}
		case *ast.StructType:
			rw.blankFields(n) // interp_loadcrash.go
		case *ast.MapType:
			if len(methods) > 0 {
				rw.interfaceMapKey(n) // interp_mapkeys.go
			}
		case *ast.TypeAssertExpr:
			if n.Type != nil && ownTypeName(n.Type) {
				rw.ownAssertion(n, rw.typeInfo(), commaOKs[n]) // interp_typeswitch.go
			}
		case *ast.TypeSwitchStmt:
			if typeSwitchOnOwn(n) {
				rw.ownTypeSwitch(n, rw.typeInfo()) // interp_typeswitch.go
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				rw.interfaceEquality(n, typeOf)
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
				rw.nilAssertion(n.Rhs[0], typeOf)
			}
			rw.definedLiterals(definesValues(n)) // interp_defines.go
			if len(methods) > 0 && n.Tok == token.ASSIGN && len(n.Lhs) == len(n.Rhs) && anyStructValue(n.Rhs) {
				rw.interfaceAssignValues(n, rw.typeInfo())
				rw.literalsToAny(n.Rhs, func(k int) types.Type { return typeOf(n.Lhs[k]) }) // interp_boxes.go
			}
		case *ast.ValueSpec:
			if len(n.Names) == 2 && len(n.Values) == 1 {
				rw.nilAssertion(n.Values[0], typeOf)
			}
			rw.definedLiterals(definesValues(n)) // interp_defines.go
			if len(methods) > 0 && n.Type != nil && len(n.Values) > 0 {
				rw.interfaceVarValues(n, rw.typeInfo())
				if len(n.Values) == len(n.Names) {
					rw.literalsToAny(n.Values, func(int) types.Type { return typeOf(n.Type) }) // interp_boxes.go
				}
			}
		case *ast.FuncDecl:
			if n.Body != nil {
				rw.namedResultReturns(n.Type, n.Body)
			}
		case *ast.FuncLit:
			rw.namedResultReturns(n.Type, n.Body)
		case *ast.BlockStmt:
			rw.receiveTargets(n.List)
		case *ast.CaseClause:
			rw.receiveTargets(n.Body)
		case *ast.CommClause:
			rw.receiveTargets(n.Body)
			rw.selectCaseVars(n)
		}
		return true
	})
}

// interfaceEquality rewrites x == y between interface values.
func (rw *rewriter) interfaceEquality(b *ast.BinaryExpr, typeOf func(ast.Expr) types.Type) {
	// One side must be of an interface type; the other may be of a type
	// the check could not tell (an imported function's result), not nil.
	// A comparison with nil needs no types: err != nil, in every file,
	// starts no type check.
	if isNilIdent(b.X) || isNilIdent(b.Y) {
		return
	}
	tx, ty := typeOf(b.X), typeOf(b.Y)
	if !(tx != nil && isInterface(tx)) && !(ty != nil && isInterface(ty)) {
		return
	}
	if name := rw.wrappedStructOf(tx, ty); name != "" && !rw.sentinel(b.X) && !rw.sentinel(b.Y) {
		rw.refuse(b.OpPos, fmt.Sprintf("%s between values of an interface is not run faithfully by the interpreter in a file whose struct type %s has methods with value receivers: it hands such a value over holding one of its fields, so two different values could compare equal. Give %s's methods pointer receivers and use &%s{...}, or compare with a sentinel made by errors.New", b.Op, name, name, name))
		return
	}
	// Only insertions around the operands and the operator's replacement:
	// a rewrite inside an operand (an instantiation classRewrites names)
	// stays as it is.
	at, end, op := rw.off(b.Pos()), rw.off(b.End()), rw.off(b.OpPos)
	if rw.straddles(at) || rw.straddles(end) || rw.replaced(op, op+len(b.Op.String())) {
		return
	}
	call := runtimeName + ".Equal("
	if b.Op == token.NEQ {
		call = "!" + call
	}
	rw.add(at, at, call)
	rw.add(op, op+len(b.Op.String()), ",")
	rw.add(end, end, ")")
	rw.importRuntime()
}

// wrappedStructOf is the name of a struct type of the file, with methods
// of value receivers, whose values an operand of a host interface type
// (error, fmt.Stringer; of tx or ty) may hold and == may confuse with
// another value, or "".
func (rw *rewriter) wrappedStructOf(tx, ty types.Type) string {
	for _, t := range []types.Type{tx, ty} {
		if t == nil || !nonEmptyInterface(t) {
			continue
		}
		if named, ok := t.(*types.Named); ok && named.Obj().Pkg() == rw.classes.pkg {
			continue // the file's own interface keeps its values whole
		}
		it := t.Underlying().(*types.Interface)
		var names []string
		implementing, wide := 0, false
		for _, obj := range rw.typeInfo().Defs {
			tn, ok := obj.(*types.TypeName)
			if !ok || tn.IsAlias() || tn.Pkg() != rw.classes.pkg {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok || named.TypeParams() != nil {
				continue
			}
			if isInterface(named) || !types.Implements(named, it) {
				continue
			}
			implementing++
			if st, isStruct := named.Underlying().(*types.Struct); isStruct {
				names = append(names, named.Obj().Name())
				wide = wide || st.NumFields() >= 2
			}
		}
		// The field yaegi keeps tells a value of the only such type with
		// one field (or none) from another: only a wider struct, or a
		// second type to confuse it with, can compare wrongly.
		if len(names) > 0 && (wide || implementing >= 2) {
			sort.Strings(names)
			return names[0]
		}
	}
	return ""
}

// interfaceSwitch rewrites a switch on a value of an interface type.
func (rw *rewriter) interfaceSwitch(sw *ast.SwitchStmt, typeOf func(ast.Expr) types.Type) {
	if sw.Tag == nil || sw.Init != nil {
		return
	}
	if t := typeOf(sw.Tag); t == nil || !isInterface(t) {
		return
	}
	// Only the tag and the cases' expressions are rewritten: an edit in a
	// case's body (println made the runtime's) leaves the switch to be
	// rewritten, which it was not (bug375 of Go's tests panicked).
	exprs := []ast.Expr{sw.Tag}
	for _, st := range sw.Body.List {
		if cc, ok := st.(*ast.CaseClause); ok {
			exprs = append(exprs, cc.List...)
		}
	}
	for _, e := range exprs {
		at, end := rw.off(e.Pos()), rw.off(e.End())
		if rw.replaced(at, end) || rw.straddles(at) || rw.straddles(end) {
			return
		}
	}
	tmp := rw.tmp()
	at, tagEnd := rw.off(sw.Tag.Pos()), rw.off(sw.Tag.End())
	rw.add(at, at, tmp+" := ")
	rw.add(tagEnd, tagEnd, ";")
	for _, st := range sw.Body.List {
		cc, ok := st.(*ast.CaseClause)
		if !ok {
			continue
		}
		for k, e := range cc.List {
			at, end := rw.off(e.Pos()), rw.off(e.End())
			if isNilIdent(e) {
				rw.add(at, at, tmp+" == ")
			} else {
				rw.add(at, at, runtimeName+".Equal("+tmp+", ")
				rw.edits = append(rw.edits, edit{at: end, end: end, with: ")", seq: 1 << 30})
				rw.importRuntime()
			}
			if k+1 < len(cc.List) {
				// case a, b tests only a in a switch without a tag.
				next := rw.off(cc.List[k+1].Pos())
				if c := strings.IndexByte(rw.text[end:next], ','); c >= 0 {
					rw.add(end+c, end+c+1, " ||")
				}
			}
		}
	}
}

func isNilIdent(e ast.Expr) bool {
	id, ok := unparen(e).(*ast.Ident)
	return ok && id.Name == "nil"
}

// isInterface reports whether t is an interface type, not a type
// parameter's constraint.
func isInterface(t types.Type) bool {
	if _, ok := t.(*types.TypeParam); ok {
		return false
	}
	_, ok := t.Underlying().(*types.Interface)
	return ok
}

// nilAssertion rewrites x.(T), the value of a comma-ok assignment, with x
// an any (or a recover()) and T error or a package's interface, to
// func(v any) (T, bool) { if v == nil { ... }; t, ok := v.(T); ... }(x).
func (rw *rewriter) nilAssertion(e ast.Expr, typeOf func(ast.Expr) types.Type) {
	a, ok := unparen(e).(*ast.TypeAssertExpr)
	if !ok || a.Type == nil {
		return
	}
	switch t := a.Type.(type) {
	case *ast.Ident:
		if t.Obj != nil && rw.isInterface(t) && rw.ownInterfaceValue(a.X) {
			rw.nilSafeAssertion(a)
			return
		}
		if t.Name != "error" || t.Obj != nil {
			return
		}
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); !ok || rw.imports[x.Name] == "" {
			return
		}
	case *ast.InterfaceType:
		if rw.ownInterfaceValue(a.X) {
			rw.nilSafeAssertion(a)
		}
		return
	default:
		return
	}
	tx := typeOf(a.X)
	if tx == nil {
		return
	}
	if i, ok := tx.Underlying().(*types.Interface); !ok || !i.Empty() {
		return
	}
	rw.nilSafeAssertion(a)
}

// nilSafeAssertion makes the comma-ok assertion a answer nil, false for
// a nil value (see nilAssertion; an assertion to an interface from a nil
// value of the file's interface type panicked too).
func (rw *rewriter) nilSafeAssertion(a *ast.TypeAssertExpr) {
	param := "any"
	if rw.ownInterfaceValue(a.X) {
		p, ok := rw.typeSource(rw.typeOf(a.X))
		if !ok {
			return
		}
		param = p
	}
	typ := rw.src(a.Type)
	xend, end := rw.off(a.X.End()), rw.off(a.End())
	if strings.Contains(typ, "\n") || rw.edited(xend, end) || rw.replaced(xend, end) {
		return
	}
	v, t, ok2 := rw.tmp(), rw.tmp(), rw.tmp()
	lit := "func(" + v + " " + param + ") (" + t + " " + typ + ", " + ok2 + " bool) { if " + v + " == nil { return }; " +
		t + ", " + ok2 + " = " + v + ".(" + typ + "); return }("
	// Before any other insertion at the same place (recovers' wrapper of a
	// recover() call): the literal takes the wrapped value.
	at := rw.off(a.X.Pos())
	rw.edits = append(rw.edits, edit{at: at, end: at, with: lit, seq: -1})
	rw.add(xend, end, ")")
}

// namedResultReturns rewrites the returns of a function body (not of the
// literals in it) that name the function's named results among several
// values.
func (rw *rewriter) namedResultReturns(ft *ast.FuncType, body *ast.BlockStmt) {
	if ft.Results == nil || ft.Results.NumFields() < 2 {
		return
	}
	named := map[*ast.Object]bool{}
	for _, f := range ft.Results.List {
		for _, n := range f.Names {
			if n.Obj != nil {
				named[n.Obj] = true
			}
		}
	}
	var types []string
	for _, f := range ft.Results.List {
		t := rw.src(f.Type)
		if strings.Contains(t, "\n") {
			return
		}
		for range max(1, len(f.Names)) {
			types = append(types, t)
		}
	}
	if len(named) == 0 {
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) < 2 || !mentions(n.Results, named) {
				return true
			}
			at := rw.off(n.Pos())
			if len(n.Results) != len(types) || rw.replaced(at, at+len("return")) {
				return true
			}
			// return a, b => { var t1 T1 = a; var t2 T2 = b; return t1, t2 }
			// (a var with its type, as a value may be an untyped nil).
			tmps := make([]string, len(n.Results))
			for k := range tmps {
				tmps[k] = rw.tmp()
			}
			var commas []int
			for k := 0; k+1 < len(n.Results); k++ {
				e, next := rw.off(n.Results[k].End()), rw.off(n.Results[k+1].Pos())
				c := strings.IndexByte(rw.text[e:next], ',')
				if c < 0 || rw.replaced(e+c, e+c+1) {
					return true
				}
				commas = append(commas, e+c)
			}
			rw.add(at, at+len("return"), "{ var "+tmps[0]+" "+types[0]+" =")
			for k, c := range commas {
				rw.add(c, c+1, "; var "+tmps[k+1]+" "+types[k+1]+" =")
			}
			// After whatever else is inserted where the last value ends
			// (returnedCalls' parenthesis).
			end := rw.off(n.End())
			rw.edits = append(rw.edits, edit{at: end, end: end, with: "; return " + strings.Join(tmps, ", ") + " }", seq: 1 << 30})
		}
		return true
	})
}

// mentions reports whether an identifier in exprs resolves to one of objs.
func mentions(exprs []ast.Expr, objs map[*ast.Object]bool) bool {
	found := false
	for _, e := range exprs {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && objs[id.Obj] {
				found = true
			}
			return !found
		})
	}
	return found
}

// selectCaseVars gives the variables a select case declares a copy of
// their own where the case body captures them.
func (rw *rewriter) selectCaseVars(cc *ast.CommClause) {
	a, ok := cc.Comm.(*ast.AssignStmt)
	if !ok || a.Tok != token.DEFINE {
		return
	}
	vars := map[*ast.Object]string{}
	for _, e := range a.Lhs {
		if id, ok := e.(*ast.Ident); ok && id.Obj != nil && id.Name != "_" {
			vars[id.Obj] = id.Name
		}
	}
	caught := map[*ast.Object]bool{}
	for _, st := range cc.Body {
		for o := range captured(st, vars) {
			caught[o] = true
		}
	}
	// case t := <-ch: x := t; (x := x would redeclare x in the case's
	// block, which the case's variables belong to).
	colon := rw.off(cc.Colon) + 1
	for _, e := range a.Lhs {
		id, ok := e.(*ast.Ident)
		if !ok || !caught[id.Obj] {
			continue
		}
		at, end := rw.off(id.Pos()), rw.off(id.End())
		if rw.replaced(at, end) {
			continue
		}
		t := rw.tmp()
		rw.add(at, end, t)
		rw.add(colon, colon, " "+id.Name+" := "+t+";")
	}
}

// receiveTargets rewrites target = <-ch, and the comma-ok assignments,
// for targets that are not all plain variables, in a statement list.
func (rw *rewriter) receiveTargets(stmts []ast.Stmt) {
	for _, st := range stmts {
		for {
			l, ok := st.(*ast.LabeledStmt)
			if !ok {
				break
			}
			st = l.Stmt
		}
		a, ok := st.(*ast.AssignStmt)
		if !ok || a.Tok != token.ASSIGN || len(a.Lhs) > 2 || len(a.Rhs) != 1 {
			continue
		}
		plain := true
		for _, l := range a.Lhs {
			_, id := unparen(l).(*ast.Ident)
			plain = plain && id
		}
		_, call := unparen(a.Rhs[0]).(*ast.CallExpr)
		if plain || !receive(a.Rhs[0]) && (len(a.Lhs) != 2 || !commaOK(a.Rhs[0])) && (len(a.Lhs) < 2 || !call) {
			continue
		}
		if call && callsIn(a.Lhs) {
			// m[f()], err = g(): Go evaluates f() before g(), which
			// moving the targets after the call would change.
			continue
		}
		start, rhs, end := rw.off(a.Pos()), rw.off(a.Rhs[0].Pos()), rw.off(a.End())
		if strings.ContainsAny(rw.text[start:rhs], "\n/") || rw.edited(start, rhs) || rw.replaced(start, end) {
			continue
		}
		tmps, assigns := make([]string, len(a.Lhs)), make([]string, len(a.Lhs))
		for k, l := range a.Lhs {
			tmps[k] = rw.tmp()
			assigns[k] = rw.src(l) + " = " + tmps[k]
		}
		rw.add(start, rhs, "{ "+strings.Join(tmps, ", ")+" := ")
		rw.add(end, end, "; "+strings.Join(assigns, "; ")+" }")
	}
}

// callsIn reports whether any of exprs holds a call.
func callsIn(exprs []ast.Expr) bool {
	found := false
	for _, e := range exprs {
		ast.Inspect(e, func(n ast.Node) bool {
			_, c := n.(*ast.CallExpr)
			found = found || c
			return !found
		})
	}
	return found
}

func receive(e ast.Expr) bool {
	u, ok := unparen(e).(*ast.UnaryExpr)
	return ok && u.Op == token.ARROW
}

// replaced reports whether an edit made so far replaces text that
// overlaps [at, end).
func (rw *rewriter) replaced(at, end int) bool {
	for _, e := range rw.edits {
		if e.at < e.end && e.at < end && at < e.end {
			return true
		}
	}
	return false
}

// straddles reports whether an edit made so far replaces text on both
// sides of p.
func (rw *rewriter) straddles(p int) bool {
	for _, e := range rw.edits {
		if e.at < p && p < e.end {
			return true
		}
	}
	return false
}

// importRuntime imports the rewrites' runtime package once.
func (rw *rewriter) importRuntime() {
	imp := "; import " + runtimeName + " \"" + RuntimePath + "\""
	for _, e := range rw.edits {
		if e.with == imp {
			return
		}
	}
	end := rw.off(rw.file.Name.End())
	rw.add(end, end, imp)
}

// equal is the runtime package's Equal: x == y for two interface values, compared
// as Go compares them (the same dynamic type and equal values; a panic
// for an uncomparable type). yaegi hands the values over unboxed, or in
// the wrapper it made for a host interface, whose value is unwrapped.
func equal(x, y any) bool {
	vx, vy := unboxed(x), unboxed(y)
	if !vx.IsValid() || !vy.IsValid() {
		return vx.IsValid() == vy.IsValid()
	}
	return vx.Interface() == vy.Interface()
}

// unboxed is the value v holds: v itself, or the value inside yaegi's
// wrapper for a host interface, or inside the box yaegi keeps a value of
// an interface type in (interp.valueInterface, which reaches host code
// where a value of an interface type with methods was converted to any:
// its value field is unexported, hence the unsafe read).
func unboxed(v any) reflect.Value {
	rv := reflect.ValueOf(v)
	for k := 0; k < 8 && rv.IsValid(); k++ {
		t := rv.Type()
		switch {
		case t.Kind() == reflect.Interface:
			rv = rv.Elem()
		case t.Kind() == reflect.Struct && t.NumField() > 0 && t.Field(0).Name == "IValue":
			rv = rv.Field(0).Elem()
		case t.Name() == "valueInterface" && t.PkgPath() == "github.com/traefik/yaegi/interp":
			c := reflect.New(t).Elem()
			c.Set(rv)
			f, ok := t.FieldByName("value")
			if !ok || f.Type != reflect.TypeFor[reflect.Value]() {
				return rv
			}
			rv = *(*reflect.Value)(unsafe.Pointer(c.Field(f.Index[0]).UnsafeAddr()))
		default:
			return rv
		}
	}
	return rv
}

func init() { runtimeSymbols["Equal"] = reflect.ValueOf(equal) }
