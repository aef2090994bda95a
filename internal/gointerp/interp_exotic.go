package gointerp

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"sort"
	"strings"
)

// Rare forms the interpreter runs silently wrong, found by go/types before
// it sees the file (each measured against Go's own test programs by
// bench/gotests.sh, where it gave a wrong answer and no error). No
// rewrite makes them safe, so each is refused at its line with what to
// write instead; a refused Grade or Check is graded by the native referee
// (internal/grading), so a refusal never blames a candidate. Each test is
// narrow, to leave the forms candidates write every day alone (the kits'
// reference and corpus solutions, TestExoticFormsLeaveSolutionsAlone):
//
//   - len(f()) or cap(<-c) of a pointer to an array: Go runs the call or
//     the receive and gives the array's length without reading the
//     pointer; the interpreter reads through it and fails on nil.
//   - a type declared in a function with the name and the underlying type
//     of a package-level type: the interpreter takes one for the other (a
//     type assertion to one matched a value of the other).
//   - a, b = f() or a, ok = m[k] whose target calls a function (m[g()]):
//     Go evaluates the target's operands first, the interpreter after the
//     value.
//   - append(s[:n], v1, v2) whose later value reads s: the interpreter
//     stores v1 before it reads v2.
//   - go x.M() or defer x.M() of a method with a value receiver, where the
//     function changes x later: Go copies x at the statement, the
//     interpreter reads it when M runs.
//   - copy(f()), delete(f()), append(f()): a builtin given a call's
//     several results.
//   - *p += func() int { p = q; ... }(): an operator assignment whose value
//     changes a variable its target goes through.
//   - package variables the interpreter initialises in another order than
//     Go, where the order shows (initOrder).
//   - x - 0 for a float x: the interpreter gives +0 for x = -0.
//   - _ = *p: the interpreter does not dereference, so a nil p does not
//     panic.
//   - a select whose case calls a function of the file to get its channel,
//     with a case sending a value: Go evaluates every case's channel and
//     value in order on entering the select, the interpreter the send's
//     value after the call.
//   - a switch on a nil converted to a type (switch []T(nil)), or on a
//     channel: the interpreter's comparison of the cases is wrong.
//   - defer of a nil function: Go panics when the function returns,
//     where recover can stop it; the interpreter's panic escapes.
//   - a type switch case naming a type parameter: matched wrongly when the
//     parameter is an interface.
//
// x.f where f is promoted from embedded fields at two depths, the deeper
// through a field declared first (Go takes the shallowest, the
// interpreter took the deeper one), is written out with the embedded
// fields Go goes through (promotedPath): x.Outer.f. It is refused only
// where another rewrite covers the point.
//
// m[k] = *p is rewritten to m[k] = (T)(*p): the interpreter stored a
// zero value for a nil p, where Go panics, and panics for the conversion.
//
// Two are rewritten instead (constantForms): an untyped constant of 2^63
// or more given an unsigned type by its context (z = 1<<63, return 1e19)
// failed to load ("constant 9223372036854775808 overflows int64"); it is
// converted to its type explicitly (uint64(1<<63)), which the interpreter
// loads. A float literal given an integer type (case 1e16:) was compared
// as a float; it is written as the integer.
func (rw *rewriter) exoticForms() {
	info := rw.typesInfo()
	if rw.classes.pkg == nil {
		return
	}
	rw.constantErrors() // interp_constants.go
	rw.constantForms(info)
	rw.shadowedLocalTypes(info)
	rw.initOrder(info)
	var funcs []*ast.BlockStmt // bodies of the file's functions, outermost
	for _, d := range rw.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			funcs = append(funcs, fd.Body)
		}
	}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			rw.exoticBuiltin(n, info)
		case *ast.AssignStmt:
			rw.exoticAssign(n, info)
		case *ast.BinaryExpr:
			if n.Op == token.SUB && isFloat(rw.typeOf(n.X)) && isZeroConst(info, n.Y) && info.Types[n.X].Value == nil {
				rw.refuse(n.OpPos, fmt.Sprintf("the interpreter gives +0 for %s when %s is -0, where Go keeps -0: write %s", rw.src(n), rw.src(n.X), rw.src(n.X)))
			}
		case *ast.GoStmt:
			rw.copiedReceiver(n.Call, "go", funcs, info)
		case *ast.DeferStmt:
			if late, _ := rw.deferredLater(n); !late {
				// A late call's receiver is copied at the defer
				// (deferArgs).
				rw.copiedReceiver(n.Call, "defer", funcs, info)
			}
			rw.deferredRecoverVar(n, info) // interp_deferframes.go
			if fun := unparen(n.Call.Fun); info.Types[fun].IsNil() || isNilConversion(info, fun) {
				rw.refuse(n.Pos(), "deferring a nil function is not run faithfully by the interpreter: Go panics when the function returns, and a deferred recover stops the panic; the interpreter's panic escapes it. Defer a function that is not nil")
			}
		case *ast.SelectStmt:
			rw.selectOrder(n, info)
		case *ast.SelectorExpr:
			if t := rw.typeOf(n.X); t != nil && !isInterface(t) {
				if found, shallow, deep := deeperFirst(t, n.Sel.Name); found && shallow > 0 && !rw.promotedPath(n, info) {
					rw.refuse(n.Sel.Pos(), fmt.Sprintf("%s is promoted from embedded fields at depths %d and %d, and the interpreter picks the deeper one, declared first, where Go picks the shallowest: name the field you mean (x.Field.%s)", n.Sel.Name, shallow, deep, n.Sel.Name))
				}
			}
		case *ast.SwitchStmt:
			if n.Tag == nil {
				break
			}
			if isNilConversion(info, unparen(n.Tag)) {
				rw.refuse(n.Tag.Pos(), fmt.Sprintf("a switch on %s is not run faithfully by the interpreter: test it with if %s == nil instead", rw.src(n.Tag), rw.src(n.Tag)))
			} else if t := rw.typeOf(n.Tag); t != nil {
				if _, ok := t.Underlying().(*types.Chan); ok {
					rw.refuse(n.Tag.Pos(), "a switch on a channel is not run faithfully by the interpreter (a case of another direction never matches): compare the channels with == in if statements")
				}
			}
		case *ast.TypeSwitchStmt:
			for _, s := range n.Body.List {
				for _, e := range s.(*ast.CaseClause).List {
					if tv, ok := info.Types[e]; ok && tv.IsType() {
						if _, ok := tv.Type.(*types.TypeParam); ok {
							rw.refuse(e.Pos(), fmt.Sprintf("a type switch case naming the type parameter %s is not matched faithfully by the interpreter: switch on concrete types, or give the function the value's type as an argument", rw.src(e)))
						}
					}
				}
			}
		}
		return true
	})
}

func isFloat(t types.Type) bool {
	b, ok := t.(*types.Basic)
	if t != nil && !ok {
		b, ok = t.Underlying().(*types.Basic)
	}
	return ok && b.Info()&types.IsFloat != 0
}

func isZeroConst(info *types.Info, e ast.Expr) bool {
	v := info.Types[e].Value
	return v != nil && constant.Sign(v) == 0
}

// isNilConversion reports a conversion of nil to a type: []T(nil).
func isNilConversion(info *types.Info, e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	return ok && len(call.Args) == 1 && info.Types[call.Fun].IsType() && isNilIdent(unparen(call.Args[0]))
}

// builtinName is the name of the builtin function call calls, or "".
func builtinName(info *types.Info, call *ast.CallExpr) string {
	id, ok := unparen(call.Fun).(*ast.Ident)
	if !ok {
		return ""
	}
	if b, ok := info.Uses[id].(*types.Builtin); ok {
		return b.Name()
	}
	return ""
}

// exoticBuiltin refuses len and cap of a pointer to an array, a builtin
// given a call's several results, and an append whose later value reads
// the slice appended to.
func (rw *rewriter) exoticBuiltin(call *ast.CallExpr, info *types.Info) {
	name := builtinName(info, call)
	if name == "" || len(call.Args) == 0 {
		return
	}
	if len(call.Args) == 1 && name != "print" && name != "println" { // printBuiltins rewrites those
		if _, ok := rw.typeOf(call.Args[0]).(*types.Tuple); ok {
			rw.refuse(call.Pos(), fmt.Sprintf("the interpreter cannot pass a call's several results to %s: assign them to variables first (a, b := %s; %s(a, b))", name, rw.src(call.Args[0]), name))
			return
		}
	}
	switch name {
	case "len", "cap":
		// Only where the pointer comes from a call or a receive, which
		// Go runs and the interpreter then reads through (a nil one
		// fails); a variable's len is right unless it is nil, which no
		// check before running can tell.
		if p, ok := underlying(rw.typeOf(call.Args[0])).(*types.Pointer); ok && (firstCall(info, call.Args[0]) != nil || hasReceive(call.Args[0])) {
			if a, ok := underlying(p.Elem()).(*types.Array); ok {
				rw.refuse(call.Pos(), fmt.Sprintf("%s of a pointer to an array is not run faithfully by the interpreter: it reads through the pointer (and fails on nil), where Go gives the array's length, %d, without reading it. Write the length, or %s of the array itself", name, a.Len(), name))
			}
		}
	case "append":
		// Only where the slice appended to is a slice expression
		// (append(s[:n], v1, s[k])): there the values stored may be
		// where a later value reads.
		if _, resliced := unparen(call.Args[0]).(*ast.SliceExpr); !resliced || call.Ellipsis.IsValid() || len(call.Args) < 3 {
			return
		}
		root := rootObject(info, call.Args[0])
		if root == nil {
			return
		}
		for _, v := range call.Args[2:] {
			if readsThrough(info, v, root) {
				rw.refuse(v.Pos(), fmt.Sprintf("the interpreter stores each value append adds before it reads the next, so %s may read a value this append stored, where Go reads every value first: read it into a variable before the append", rw.src(v)))
				return
			}
		}
	}
}

func underlying(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// rootObject is the variable e indexes, slices or selects from: s for
// s[:n], s.f[i].
func rootObject(info *types.Info, e ast.Expr) types.Object {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.Ident:
			if v, ok := info.Uses[x].(*types.Var); ok {
				return v
			}
			return nil
		default:
			return nil
		}
	}
}

// readsThrough reports whether e indexes or slices the variable obj.
func readsThrough(info *types.Info, e ast.Expr, obj types.Object) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IndexExpr:
			found = found || rootObject(info, x.X) == obj
		case *ast.SliceExpr:
			found = found || rootObject(info, x.X) == obj
		}
		return !found
	})
	return found
}

// exoticAssign refuses the assignments of the list above.
func (rw *rewriter) exoticAssign(a *ast.AssignStmt, info *types.Info) {
	switch {
	case a.Tok == token.ASSIGN && len(a.Lhs) >= 2 && len(a.Rhs) == 1:
		for _, l := range a.Lhs {
			if _, plain := l.(*ast.Ident); plain {
				continue
			}
			if call := firstCall(info, l); call != nil {
				rw.refuse(call.Pos(), fmt.Sprintf("the interpreter calls %s after the value on the right, where Go evaluates the targets first: call it before this assignment and use a variable", rw.src(call)))
				return
			}
		}
	case a.Tok == token.ASSIGN && len(a.Lhs) == 1 && len(a.Rhs) == 1 && isMapIndex(info, a.Lhs[0]):
		// m[k] = *p stored a zero value for a nil p where Go panics;
		// a conversion to the value's own type, m[k] = T(*p), panics.
		if star, ok := unparen(a.Rhs[0]).(*ast.StarExpr); ok {
			if name, ok := rw.typeSource(rw.typeOf(star)); ok {
				rw.add(rw.off(star.Pos()), rw.off(star.Pos()), "("+name+")(")
				rw.add(rw.off(star.End()), rw.off(star.End()), ")")
			}
		}
	case a.Tok == token.ASSIGN && len(a.Lhs) == 1 && len(a.Rhs) == 1 && isBlank(a.Lhs[0]):
		if star, ok := unparen(a.Rhs[0]).(*ast.StarExpr); ok {
			rw.refuse(star.Pos(), fmt.Sprintf("the interpreter does not evaluate _ = %s, so a nil pointer does not panic as in Go: compare the pointer with nil instead", rw.src(star)))
		}
	case a.Tok != token.ASSIGN && a.Tok != token.DEFINE && len(a.Lhs) == 1:
		if _, plain := unparen(a.Lhs[0]).(*ast.Ident); plain {
			return
		}
		targets := map[types.Object]bool{}
		ast.Inspect(a.Lhs[0], func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && info.Uses[id] != nil {
				targets[info.Uses[id]] = true
			}
			return true
		})
		ast.Inspect(a.Rhs[0], func(n ast.Node) bool {
			lit, ok := n.(*ast.FuncLit)
			if !ok {
				return true
			}
			ast.Inspect(lit.Body, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok {
					for _, l := range as.Lhs {
						if id, ok := unparen(l).(*ast.Ident); ok && targets[info.Uses[id]] {
							rw.refuse(a.TokPos, fmt.Sprintf("the value of this %s changes %s, which its target goes through: Go finds the target first, the interpreter after the value. Compute the value into a variable first", a.Tok, id.Name))
						}
					}
				}
				return true
			})
			return false
		})
	}
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// firstCall is the first call in e that is not a conversion or a builtin.
func firstCall(info *types.Info, e ast.Expr) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(e, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && found == nil && !info.Types[call.Fun].IsType() && builtinName(info, call) == "" {
			found = call
		}
		return found == nil
	})
	return found
}

// copiedReceiver refuses go x.M() and defer x.M() where M has a value
// receiver and x is a local variable the function changes (assigns, or
// takes the address of) after the statement.
func (rw *rewriter) copiedReceiver(call *ast.CallExpr, stmt string, funcs []*ast.BlockStmt, info *types.Info) {
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok {
		return
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return
	}
	if _, ptr := sig.Recv().Type().(*types.Pointer); ptr || isInterface(sig.Recv().Type()) {
		return
	}
	id, ok := unparen(sel.X).(*ast.Ident)
	if !ok {
		return
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.Parent() == rw.classes.pkg.Scope() {
		return
	}
	for _, body := range funcs {
		if body.Pos() > call.Pos() || body.End() < call.End() {
			continue
		}
		changed := false
		ast.Inspect(body, func(n ast.Node) bool {
			if changed || n == nil || n.End() <= call.End() {
				return !changed
			}
			switch x := n.(type) {
			case *ast.AssignStmt:
				for _, l := range x.Lhs {
					changed = changed || rootObject(info, l) == v
				}
			case *ast.IncDecStmt:
				changed = changed || rootObject(info, x.X) == v
			case *ast.UnaryExpr:
				changed = changed || x.Op == token.AND && rootObject(info, x.X) == v
			}
			return !changed
		})
		if changed {
			rw.refuse(call.Pos(), fmt.Sprintf("the interpreter reads %s when %s runs, where Go copies it at the %s statement, and this function changes %s later: copy it first (c := %s; %s c.%s(...))", id.Name, sel.Sel.Name, stmt, id.Name, id.Name, stmt, sel.Sel.Name))
		}
		return
	}
}

// selectOrder refuses a select with a case sending a value that is not a
// constant and a case whose channel is got by calling a function of the
// file.
func (rw *rewriter) selectOrder(s *ast.SelectStmt, info *types.Info) {
	sends := false
	for _, c := range s.Body.List {
		if send, ok := c.(*ast.CommClause).Comm.(*ast.SendStmt); ok && info.Types[send.Value].Value == nil {
			sends = true
		}
	}
	if !sends {
		return
	}
	for _, c := range s.Body.List {
		var ch ast.Expr
		switch comm := c.(*ast.CommClause).Comm.(type) {
		case *ast.SendStmt:
			ch = comm.Chan
		case *ast.ExprStmt:
			ch = comm.X
		case *ast.AssignStmt:
			ch = comm.Rhs[0]
		}
		if ch == nil {
			continue
		}
		ast.Inspect(ch, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var id *ast.Ident
			switch f := unparen(call.Fun).(type) {
			case *ast.Ident:
				id = f
			case *ast.SelectorExpr:
				id = f.Sel
			}
			if id != nil {
				if fn, ok := info.Uses[id].(*types.Func); ok && fn.Pkg() == rw.classes.pkg {
					rw.refuse(call.Pos(), fmt.Sprintf("the interpreter calls %s after it evaluates the value a case of this select sends, where Go evaluates every case in order: call it before the select and use a variable", rw.src(call)))
					return false
				}
			}
			return true
		})
	}
}

// shadowedLocalTypes refuses a type declared in a function with the name
// of another type the file declares.
func (rw *rewriter) shadowedLocalTypes(info *types.Info) {
	byName := map[string][]*types.TypeName{}
	for _, obj := range info.Defs {
		if tn, ok := obj.(*types.TypeName); ok && tn.Pkg() == rw.classes.pkg && !tn.IsAlias() {
			if _, param := tn.Type().(*types.TypeParam); !param {
				byName[tn.Name()] = append(byName[tn.Name()], tn)
			}
		}
	}
	for name, tns := range byName {
		if len(tns) < 2 {
			continue
		}
		sort.Slice(tns, func(a, b int) bool { return tns[a].Pos() < tns[b].Pos() })
		for _, tn := range tns {
			if tn.Parent() == rw.classes.pkg.Scope() || isInterface(tn.Type()) {
				continue // interfaces are told apart by their methods
			}
			var other *types.TypeName
			for _, o := range tns {
				if o.Parent() == rw.classes.pkg.Scope() && types.Identical(o.Type().Underlying(), tn.Type().Underlying()) {
					other = o
					break
				}
			}
			if other == nil {
				continue
			}
			rw.refuse(tn.Pos(), fmt.Sprintf("the interpreter takes the type %s declared here for the type %s declared at line %d: give this one a name of its own", name, name, rw.fset.Position(other.Pos()).Line))
		}
	}
}

// initOrder refuses package variables the interpreter initialises in
// another order than Go, where that shows: an initialiser that runs code
// (a call) using a package variable, itself or through the file's
// functions, that the interpreter sets (or zeroes, for one with no
// initialiser) only after it; or two initialisers that run code in
// another order than Go's, one of them of a blank variable (var _ = f()):
// the interpreter ordered named variables that read each other as Go
// does (go/test/fixedbugs/issue43444.go), not blank ones. Go orders them by every dependency, function
// bodies included (types.Info.InitOrder); the interpreter, as measured,
// by the variables an initialiser reads, outside the file's functions
// alone, in levels (those reading none first, in the file's order, then
// those reading only those, ...), and zeroes a variable with no
// initialiser at its place in the file. So with var c = newClient(); var timeout = 5,
// newClient saw timeout 0, and with var n = count(); var calls int,
// calls was 0 again after count set it.
func (rw *rewriter) initOrder(info *types.Info) {
	scope := rw.classes.pkg.Scope()
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, d := range rw.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
				decls[fn] = fd
			}
		}
	}
	type unit struct {
		spec        *ast.ValueSpec
		runs        bool
		direct      []*types.Var // package variables read outside the file's functions
		uses        []*types.Var // used anywhere, in the file's functions called too
		level, goAt int
	}
	var units []*unit
	of := map[*types.Var]*unit{}
	for _, d := range rw.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			u := &unit{spec: spec.(*ast.ValueSpec), level: -1, goAt: -1}
			units = append(units, u)
			for _, n := range u.spec.Names {
				if v, ok := info.Defs[n].(*types.Var); ok {
					of[v] = u
				}
			}
		}
	}
	pkgVar := func(id *ast.Ident) *types.Var {
		v, ok := info.Uses[id].(*types.Var)
		if ok && v.Parent() == scope {
			return v
		}
		return nil
	}
	// written are the identifiers code assigns to (or takes the address
	// of): a variable with no initialiser matters only if code sets it.
	written := map[*ast.Ident]bool{}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if id, ok := unparen(l).(*ast.Ident); ok {
					written[id] = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := unparen(x.X).(*ast.Ident); ok {
				written[id] = true
			}
		case *ast.UnaryExpr:
			if id, ok := unparen(x.X).(*ast.Ident); ok && x.Op == token.AND {
				written[id] = true
			}
		}
		return true
	})
	for _, u := range units {
		seen := map[ast.Node]bool{}
		// walk notes the package variables n uses; direct is false in
		// the bodies of the file's functions, which the interpreter's
		// order does not look into (it does into function literals
		// of the initialiser, for the variables they read).
		var walk func(n ast.Node, direct bool)
		walk = func(n ast.Node, direct bool) {
			if seen[n] {
				return
			}
			seen[n] = true
			ast.Inspect(n, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CallExpr:
					u.runs = u.runs || !info.Types[x.Fun].IsType() && builtinName(info, x) == ""
				case *ast.Ident:
					if v := pkgVar(x); v != nil {
						if of[v] != nil && (of[v].spec.Values != nil || written[x]) {
							u.uses = append(u.uses, v)
						}
						if direct && !written[x] {
							u.direct = append(u.direct, v)
						}
					} else if fn, ok := info.Uses[x].(*types.Func); ok && decls[fn] != nil {
						walk(decls[fn].Body, false)
					}
				}
				return true
			})
		}
		for _, v := range u.spec.Values {
			walk(v, true)
		}
	}
	var level func(u *unit, depth int) int
	level = func(u *unit, depth int) int {
		if u.level >= 0 || depth > len(units) {
			return max(u.level, 0)
		}
		l := 0
		for _, v := range u.direct {
			if w := of[v]; w != nil && w != u {
				l = max(l, level(w, depth+1)+1)
			}
		}
		u.level = l
		return l
	}
	for _, u := range units {
		level(u, 0)
	}
	for k, init := range info.InitOrder {
		if len(init.Lhs) > 0 && of[init.Lhs[0]] != nil && of[init.Lhs[0]].goAt < 0 {
			of[init.Lhs[0]].goAt = k
		}
	}
	model := append([]*unit(nil), units...)
	sort.SliceStable(model, func(a, b int) bool { return model[a].level < model[b].level })
	at := map[*unit]int{}
	for k, u := range model {
		at[u] = k
	}
	for _, u := range units {
		if !u.runs {
			continue
		}
		for _, v := range u.uses {
			if w := of[v]; w != nil && w != u && at[w] > at[u] {
				rw.refuse(u.spec.Pos(), fmt.Sprintf("this package variable's initialiser runs code that uses %s (line %d), which the interpreter sets only after it, where Go sets it first: declare %s above this one, or set the variables in func init()", v.Name(), rw.fset.Position(v.Pos()).Line, v.Name()))
				return
			}
		}
		for _, w := range units {
			if w != u && w.runs && u.goAt < w.goAt && at[u] > at[w] && (blankSpec(u.spec) || blankSpec(w.spec)) {
				rw.refuse(w.spec.Pos(), fmt.Sprintf("Go runs this package variable's initialiser after the one at line %d, and the interpreter before it: declare them in the order Go initialises them, or set them in func init()", rw.fset.Position(u.spec.Pos()).Line))
				return
			}
		}
	}
}

func hasFuncLit(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		_, ok := n.(*ast.FuncLit)
		found = found || ok
		return !found
	})
	return found
}

// constantForms converts each constant of 2^63 or more that its context
// gives an unsigned type to that type explicitly, and writes each float
// literal given an integer type (case 1e16:) as the integer it is: the
// interpreter compared a value with such a case as floats, so that
// 10000000000000001 matched case 1e16.
func (rw *rewriter) constantForms(info *types.Info) {
	var wrapped [][2]token.Pos
	ast.Inspect(rw.file, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		tv, ok := info.Types[e]
		if !ok || tv.Value == nil {
			return true
		}
		if call, ok := e.(*ast.CallExpr); ok && info.Types[call.Fun].IsType() {
			return false // a conversion already
		}
		b, ok := underlying(tv.Type).(*types.Basic)
		if !ok || b.Info()&types.IsUnsigned == 0 {
			return false
		}
		v := constant.ToInt(tv.Value)
		if v.Kind() != constant.Int || constant.Compare(v, token.LEQ, constant.MakeUint64(math.MaxInt64)) {
			return false
		}
		name, ok := rw.typeSource(tv.Type)
		if !ok {
			return false
		}
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.FLOAT {
			rw.add(rw.off(e.Pos()), rw.off(e.End()), name+"("+v.ExactString()+")")
		} else {
			rw.add(rw.off(e.Pos()), rw.off(e.Pos()), name+"(")
			rw.add(rw.off(e.End()), rw.off(e.End()), ")")
		}
		wrapped = append(wrapped, [2]token.Pos{e.Pos(), e.End()})
		return false
	})
	ast.Inspect(rw.file, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.FLOAT {
			return true
		}
		tv := info.Types[lit]
		b, ok := underlying(tv.Type).(*types.Basic)
		if !ok || tv.Value == nil || b.Info()&types.IsInteger == 0 {
			return true
		}
		for _, w := range wrapped {
			if lit.Pos() >= w[0] && lit.End() <= w[1] {
				return true
			}
		}
		if v := constant.ToInt(tv.Value); v.Kind() == constant.Int {
			rw.add(rw.off(lit.Pos()), rw.off(lit.End()), v.ExactString())
		}
		return true
	})
}

// promotedPath writes out the embedded fields Go's selector sel goes
// through (b.val() => b.embedded.val()), where the interpreter would take
// another path, and reports whether it could: sel is a field or a method
// value of a variable's type (not a method expression) and no other edit
// covers the point.
func (rw *rewriter) promotedPath(sel *ast.SelectorExpr, info *types.Info) bool {
	s, ok := info.Selections[sel]
	if !ok || s.Kind() == types.MethodExpr || len(s.Index()) < 2 {
		return false
	}
	t := s.Recv()
	var path []string
	for _, k := range s.Index()[:len(s.Index())-1] {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok || k >= st.NumFields() || !st.Field(k).Embedded() {
			return false
		}
		path = append(path, st.Field(k).Name())
		t = st.Field(k).Type()
	}
	at := rw.off(sel.Sel.Pos())
	if rw.straddles(at) {
		return false
	}
	rw.add(at, at, strings.Join(path, ".")+".")
	return true
}

// deeperFirst reports whether t (a struct, or a pointer to one) has a
// field or method name promoted at two depths of embedding, the deeper
// one through an embedded field declared before the one the shallowest
// comes through: the interpreter, looking field by field and down each,
// took the deeper one, where Go takes the shallowest. depths are the two.
func deeperFirst(t types.Type, name string) (found bool, shallow, deep int) {
	type item struct {
		t    types.Type
		root int // the index of t's field embedded in t at depth 1
	}
	level := []item{{t, -1}}
	first, firstRoot := -1, 0
	for depth := 0; depth < 8 && len(level) > 0; depth++ {
		var next []item
		for _, it := range level {
			t := it.t
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			has := false
			if named, ok := t.(*types.Named); ok {
				for k := 0; k < named.NumMethods(); k++ {
					has = has || named.Method(k).Name() == name
				}
			}
			switch u := t.Underlying().(type) {
			case *types.Struct:
				for k := 0; k < u.NumFields(); k++ {
					f := u.Field(k)
					has = has || f.Name() == name
					if f.Embedded() {
						root := it.root
						if depth == 0 {
							root = k
						}
						next = append(next, item{f.Type(), root})
					}
				}
			case *types.Interface:
				for k := 0; k < u.NumMethods(); k++ {
					has = has || u.Method(k).Name() == name
				}
			}
			if !has {
				continue
			}
			switch {
			case first < 0:
				first, firstRoot = depth, it.root
			case depth > first && it.root < firstRoot:
				return true, first, depth
			}
		}
		level = next
	}
	return false, 0, 0
}

func hasReceive(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		u, ok := n.(*ast.UnaryExpr)
		found = found || ok && u.Op == token.ARROW
		return !found
	})
	return found
}

func blankSpec(vs *ast.ValueSpec) bool {
	for _, n := range vs.Names {
		if n.Name == "_" {
			return true
		}
	}
	return false
}

func isMapIndex(info *types.Info, e ast.Expr) bool {
	ix, ok := unparen(e).(*ast.IndexExpr)
	if !ok {
		return false
	}
	_, isMap := underlying(info.Types[ix.X].Type).(*types.Map)
	return isMap
}
