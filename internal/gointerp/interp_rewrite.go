package gointerp

// Source rewrites that keep yaegi v0.16.1 from changing what Go code means.
// Each form below is valid Go that the interpreter runs wrongly (found by
// probes and by the differential test of testdata/forms, which runs the same
// programs natively and interpreted). The rewrite turns it into an
// equivalent form the interpreter runs correctly; where no equivalent form
// is safe, the submission is refused at the line with a message saying what
// to write instead. Every edit stays on the line it replaces, so the line
// numbers in the interpreter's messages are the submission's.
//
//   - a, b = f(), X: a tuple assignment with a call among other values keeps
//     only the call's value; one with nil among other values panics
//     (reflect: New(nil)); a map index on the left may be lost. Rewritten to
//     { t1 := f(); a = t1; b = X }.
//   - case v = <-ch / case v, ok = <-ch in a select panics (reflect.Select:
//     invalid Dir). Rewritten to case t1 := <-ch: v = t1; ...
//   - for k, v = range x assigns fresh variables instead of k and v, which
//     keep their old values. Rewritten to for t1, t2 := range x { k = t1; ... }.
//   - loop variables have pre-Go 1.22 semantics: every closure captures one
//     shared variable. A loop whose variables a closure (or &) captures gets a
//     per-iteration copy at the top of its body (i := i), as Go 1.22 does; a
//     three-clause loop whose body also changes the variable is refused, since
//     the copy would not carry the change into the next iteration.
//   - in a switch with no tag, case a, b: tests only a (joinCaseConditions).
//   - a function or closure with a parameter that has no name (func(int),
//     func(context.Context, string)) that calls compiled code panics
//     (reflect.Set: value of type int is not assignable to type func...):
//     the unnamed parameter lands in the slot of the called function's
//     value. Each such parameter is named _ (unnamedParams), which Go reads
//     the same way.
//   - return n, len(s): a builtin's result among several returned values
//     lands in the first result's slot (n is lost; return nil, len(s)
//     panics). Each call among the results is parenthesised
//     (returnedCalls, interp_calls.go).
//   - fmt.Println(f()), fmt.Errorf("%v", x.state()): a call's result passed
//     straight to a host function loses the methods fmt looks for (String,
//     Error). Such an argument is parenthesised (callResultArgs). The
//     interfaces fmt looks for are registered for every fmt function
//     (NewInterpreter), the Print functions the grader replaces included.
//   - a method promoted from an interface embedded in a struct with other
//     fields panics (invalid interface value), and host code does not find
//     it (sort.Sort of a struct embedding sort.Interface). The struct gets
//     forwarding methods (embeddedInterfaces).
//   - I(x).M(): a method called on a conversion to an interface panics.
//     Rewritten to func() I { return x }().M() (interfaceConversionCalls).
//   - v.(interface{ M() }) and v.(I) for an interface the file declares
//     answer false or panic even where v has the methods, for v an error
//     or an any: refused (interfaceAssertion), as type switch cases
//     naming interfaces are. From a v of an interface type the file
//     declares, they are answered right and left alone.
//   - break L and continue L in a select's case become gotos
//     (interp_selectbreak.go); a deferred call, in a function literal, of
//     the file's function or method is made from a literal of its own
//     (deferredLater, interp_deferlater.go).
//
// One rewrite is for speed alone: method calls on variables whose type the
// syntax tells become plain function calls (directMethodCalls,
// interp_calls.go). Those that need the file's types (min, max, clear,
// ranges over integers and functions, generic instances, embedded locks
// and harness interfaces) are in interp_classes.go, and shifts of untyped
// constants in interp_shifts.go; interp_typed.go has the others that need
// them, with fmt's arguments and conversions to interfaces
// (interp_fmtargs.go), type switches and assertions by the file's own
// types (interp_typeswitch.go) and errors.Is (interp_errorsis.go).
// zeroNamedResults (interp_recoverresults.go) zeroes the named results
// of a function that recovers.

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// tmpPrefix names the variables the rewrites introduce.
const tmpPrefix = "faultlineTmp"

type edit struct {
	at, end int // replace text[at:end]; at == end inserts
	with    string
	seq     int
}

type rewriter struct {
	fset    *token.FileSet
	file    *ast.File
	text    string
	imports map[string]string
	edits   []edit
	ntmp    int
	refused *gradewire.Diagnostic
	classes classState // interp_classes.go
	// selectLabels are the labels selectBranch added, by the statement
	// (labelled, for a break; the loop, for a continue) they stand for.
	selectLabels map[ast.Stmt]string
	// funcLits are the offsets of the function literals' bodies
	// (inFuncLit).
	funcLits [][2]int
	// site, where set, is where the text a rewrite makes goes: a type
	// declared in a function may be named there (namedAtSite).
	site token.Pos
}

// rewriteForInterpreter applies every rewrite above to text (the source of
// f), or returns a diagnostic for the first form it refuses.
func rewriteForInterpreter(fset *token.FileSet, f *ast.File, text string, imports map[string]string) (string, []edit, []gradewire.Diagnostic) {
	rw := &rewriter{fset: fset, file: f, text: text, imports: imports}
	if strings.Contains(text, tmpPrefix) {
		return "", nil, []gradewire.Diagnostic{*rw.diag(f.Pos(), "identifiers starting with "+tmpPrefix+" are reserved for the grader's rewrites: rename them")}
	}
	if strings.Contains(text, runtimeName) {
		return "", nil, []gradewire.Diagnostic{*rw.diag(f.Pos(), "the identifier "+runtimeName+" is reserved for the grader's rewrites: rename it")}
	}
	rw.classRewrites()
	rw.twinStructErrors() // interp_twinstructs.go
	rw.joinCaseConditions()
	rw.unnamedParams()
	rw.zeroNamedResults() // interp_recoverresults.go
	rw.walk()
	rw.methodValues()
	rw.recovers()
	rw.typedRewrites() // interp_typed.go
	rw.chainMethods()  // interp_refuse.go
	rw.loadCrashes()   // interp_refuse.go
	rw.exoticForms()   // interp_exotic.go
	if rw.refused != nil {
		return "", nil, rw.refusals()
	}
	rw.returnedCalls()
	rw.callResultArgs()
	rw.embeddedInterfaces()
	rw.interfaceConversionCalls()
	if !SlowMethodCalls.Load() {
		rw.directMethodCalls()
	}
	if rw.refused != nil {
		return "", nil, rw.refusals()
	}
	rw.indexChecks()        // interp_index.go
	rw.deferFrameLiterals() // interp_deferframes.go
	rw.appendInstances()
	out, err := applyEdits(text, rw.edits)
	if err != nil {
		return "", nil, []gradewire.Diagnostic{*rw.diag(f.Pos(), "the grader could not rewrite this file for the interpreter ("+err.Error()+"): please report it")}
	}
	return out, rw.edits, nil
}

func (rw *rewriter) off(p token.Pos) int { return rw.fset.Position(p).Offset }

func (rw *rewriter) src(n ast.Node) string { return rw.classSrc(rw.off(n.Pos()), rw.off(n.End())) }

func (rw *rewriter) add(at, end int, with string) {
	rw.edits = append(rw.edits, edit{at: at, end: end, with: with, seq: len(rw.edits)})
}

func (rw *rewriter) tmp() string {
	rw.ntmp++
	return fmt.Sprintf("%s%d", tmpPrefix, rw.ntmp)
}

func (rw *rewriter) diag(p token.Pos, msg string) *gradewire.Diagnostic {
	pos := rw.fset.Position(p)
	return &gradewire.Diagnostic{Line: pos.Line, Column: pos.Column, Message: msg}
}

// refuse records a form the interpreter cannot run faithfully. Every
// refusal of the file is collected, so that the user sees them all at once
// (rewriteForInterpreter returns them in line order).
func (rw *rewriter) refuse(p token.Pos, msg string) {
	d := rw.diag(p, msg)
	if rw.refused == nil {
		rw.refused = d
	}
	rw.classes.refused = append(rw.classes.refused, *d)
}

// unnamedParams names _ every parameter without a name of a function
// declaration or literal: a parameter list either names all its
// parameters or none, so each of the list's fields gets one.
func (rw *rewriter) unnamedParams() {
	ast.Inspect(rw.file, func(n ast.Node) bool {
		var ft *ast.FuncType
		switch n := n.(type) {
		case *ast.FuncDecl:
			ft = n.Type
		case *ast.FuncLit:
			ft = n.Type
		}
		if ft == nil || ft.Params == nil {
			return true
		}
		for _, field := range ft.Params.List {
			if len(field.Names) == 0 {
				at := rw.off(field.Type.Pos())
				rw.add(at, at, "_ ")
			}
		}
		return true
	})
}

// RuntimePath is the package the rewrites call into; NewInterpreter
// provides it to every interpreter, and a submission cannot import it by
// name (it is not on the allowlist).
const RuntimePath = "faultline.internal/rt"

const runtimeName = "faultlineRT"

// recovers rewrites recover() to faultlineRT.Recovered(recover()): the
// interpreter panics with its own wrapper (a reflect.Value) around the
// value given to panic, and recover returns the wrapper, so r.(error)
// fails and fmt prints "<error Value>". Recovered unwraps it. recover is
// still called directly by the deferred function, as Go requires.
func (rw *rewriter) recovers() {
	found := false
	ast.Inspect(rw.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "recover" && id.Obj == nil && len(call.Args) == 0 {
			found = true
			// With no panic the interpreter's recover() yields a value it
			// cannot pass to a host function, hence the test in a literal.
			rw.add(rw.off(call.Pos()), rw.off(call.Pos()), "func(v any) any { if v == nil { return nil }; return "+runtimeName+".Recovered(v) }(")
			rw.add(rw.off(call.End()), rw.off(call.End()), ")")
		}
		return true
	})
	if found {
		rw.importRuntime()
	}
}

// walk visits every statement with its context: the forms depend on where a
// statement stands (in a list, as an if's init, as a for's post).
func (rw *rewriter) walk() {
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.BlockStmt:
			rw.list(s.List)
		case *ast.CaseClause:
			rw.list(s.Body)
		case *ast.CommClause:
			rw.list(s.Body)
			rw.selectAssign(s)
		case *ast.IfStmt:
			rw.hoistInit(s, s.Init)
		case *ast.SwitchStmt:
			rw.hoistInit(s, s.Init)
		case *ast.TypeSwitchStmt:
			rw.hoistInit(s, s.Init)
			rw.interfaceCases(s)
			rw.emptyTypeCases(s)
		case *ast.ForStmt:
			rw.hoistInit(s, s.Init)
			if a, ok := s.Post.(*ast.AssignStmt); ok && isTuple(a) {
				if !rw.plainTuple(a) {
					rw.refuse(a.Pos(), "the interpreter runs this assignment wrongly as a for loop's post statement: assign the values one by one at the end of the loop body instead")
				}
			}
			rw.loopVars3(s)
		case *ast.RangeStmt:
			if !rw.classes.done[s] {
				rw.rangeAssign(s)
				rw.loopVarsRange(s)
			}
		case *ast.FuncDecl:
			if s.Body != nil {
				rw.defers(s.Body)
			}
		case *ast.FuncLit:
			rw.defers(s.Body)
		case *ast.SelectStmt:
			rw.breakFromSelect(s)
		case *ast.SelectorExpr:
			rw.methodExpr(s)
		case *ast.TypeAssertExpr:
			rw.interfaceAssertion(s)
		}
		return true
	})
}

// interfaceAssertion refuses a type assertion to an interface literal or
// to an interface the file declares (v.(interface{ Timeout() bool }),
// v.(retrier)): the interpreter answers false, or panics, even where the
// value has the methods, for the harness's values and the file's alike.
// An assertion to a concrete type, to error, to any and to the allowed
// packages' interfaces is left alone.
func (rw *rewriter) interfaceAssertion(a *ast.TypeAssertExpr) {
	if a.Type == nil {
		return // a type switch's x.(type)
	}
	_, literal := a.Type.(*ast.InterfaceType)
	id, named := a.Type.(*ast.Ident)
	if (literal || named && id.Obj != nil && rw.isInterface(id)) && !rw.ownInterfaceValue(a.X) {
		rw.refuse(a.Pos(), fmt.Sprintf("a type assertion to an interface (%s) is not run faithfully by the interpreter: it answers false, or panics, even for a value that has the methods. Assert to the concrete type, use errors.As with a pointer to a concrete error type, or call a method of a type you know", rw.src(a)))
	}
}

// ownInterfaceValue reports whether x is of an interface type the file
// declares: an assertion from such a value to another interface is
// answered right (measured with values of the file's types, pointers and
// not, and with nil), where one from an error or an any is not.
func (rw *rewriter) ownInterfaceValue(x ast.Expr) bool {
	named, ok := rw.typeOf(x).(*types.Named)
	return ok && rw.classes.pkg != nil && named.Obj().Pkg() == rw.classes.pkg && isInterface(named) && named.TypeParams() == nil
}

// list rewrites the tuple assignments and defers of a statement list.
func (rw *rewriter) list(stmts []ast.Stmt) {
	for _, st := range stmts {
		for {
			l, ok := st.(*ast.LabeledStmt)
			if !ok {
				break
			}
			st = l.Stmt
		}
		switch st := st.(type) {
		case *ast.AssignStmt:
			if isTuple(st) {
				rw.tupleInPlace(st)
			}
		case *ast.DeferStmt:
			rw.deferArgs(st)
		}
	}
}

// defers refuses a defer inside a loop of one function body: the
// interpreter evaluates a deferred call's function and arguments when the
// function returns, not at the defer statement, so every deferred call of
// the loop would see the last iteration's values.
func (rw *rewriter) defers(body *ast.BlockStmt) {
	var visit func(n ast.Node, loops int) bool
	visit = func(n ast.Node, loops int) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its own body, visited on its own
		case *ast.ForStmt:
			ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, loops+1) })
			return false
		case *ast.RangeStmt:
			ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, loops+1) })
			return false
		case *ast.DeferStmt:
			if loops > 0 {
				rw.refuse(n.Pos(), "defer inside a loop is not supported by the interpreter: it evaluates a deferred call when the function returns, so every deferred call would see the last iteration's values. Move the loop body into a function of its own and defer there")
				return false
			}
		}
		return true
	}
	for _, st := range body.List {
		ast.Inspect(st, func(n ast.Node) bool { return visit(n, 0) })
	}
}

// deferArgs evaluates a deferred call's arguments at the defer statement,
// as Go does: { t1 := a; defer f(t1) }. Each temporary is assigned once, so
// its value at return is its value at the defer. A call of a function
// variable is wrapped in a literal (deferring one directly hangs the
// interpreter): { t0 := f; t1 := a; defer func() { t0(t1) }() }.
func (rw *rewriter) deferArgs(d *ast.DeferStmt) {
	call := d.Call
	fnVar := false
	if id, ok := call.Fun.(*ast.Ident); ok && id.Obj != nil && id.Obj.Kind == ast.Var {
		fnVar = true
	}
	var pre []string
	late, recv := rw.deferredLater(d) // interp_deferlater.go
	if late {
		fnVar = true
		if recv != "" {
			r := rw.tmp()
			pre = append(pre, r+" := "+recv)
			call = &ast.CallExpr{Fun: &ast.Ident{Name: r + "." + call.Fun.(*ast.SelectorExpr).Sel.Name}, Lparen: call.Lparen, Args: call.Args, Ellipsis: call.Ellipsis, Rparen: call.Rparen}
		}
	}
	args := make([]string, len(call.Args))
	for k, a := range call.Args {
		if rw.direct(a) {
			args[k] = rw.src(a)
			continue
		}
		args[k] = rw.tmp()
		pre = append(pre, args[k]+" := "+rw.src(a))
	}
	if len(pre) == 0 && !fnVar {
		rw.deferredPrint(call)
		return
	}
	if strings.Contains(rw.src(d), "\n") && !isFuncLit(call.Fun) {
		rw.refuse(d.Pos(), "the interpreter cannot run this defer faithfully: write the deferred call on one line")
		return
	}
	fn := rw.exprText(call.Fun)
	if name := printBuiltin(call.Fun); name != "" {
		fn = runtimeName + "." + name
		rw.importRuntime()
	}
	if fnVar && !late {
		t := rw.tmp()
		pre = append([]string{t + " := " + fn}, pre...)
		fn = t
	}
	dots := ""
	if call.Ellipsis.IsValid() {
		dots = "..."
	}
	var deferred string
	if fnVar {
		deferred = "defer func() { " + fn + "(" + strings.Join(args, ", ") + dots + ") }()"
	} else if isFuncLit(call.Fun) {
		// Keep the literal's text (and lines) where it is; only its
		// arguments change.
		at := rw.off(d.Pos())
		rw.add(at, at, "{ "+strings.Join(pre, "; ")+"; ")
		lp := rw.off(call.Lparen) + 1
		rw.add(lp, rw.off(call.Rparen), strings.Join(args, ", ")+dots)
		rw.add(rw.off(d.End()), rw.off(d.End()), " }")
		return
	} else {
		deferred = "defer " + fn + "(" + strings.Join(args, ", ") + dots + ")"
	}
	rw.add(rw.off(d.Pos()), rw.off(d.End()), "{ "+strings.Join(pre, "; ")+"; "+deferred+" }"+strings.Repeat("\n", strings.Count(rw.src(d), "\n")))
}

// printBuiltin is the runtime package's function for the builtin print
// or println that fun names (see printBuiltins), or "".
func printBuiltin(fun ast.Expr) string {
	id, ok := fun.(*ast.Ident)
	if !ok || id.Obj != nil {
		return ""
	}
	switch id.Name {
	case "print":
		return "Print"
	case "println":
		return "Println"
	}
	return ""
}

// deferredPrint makes a deferred print or println whose arguments need no
// temporaries print as Go's runtime does.
func (rw *rewriter) deferredPrint(call *ast.CallExpr) {
	if name := printBuiltin(call.Fun); name != "" {
		rw.add(rw.off(call.Fun.Pos()), rw.off(call.Fun.End()), runtimeName+"."+name)
		rw.importRuntime()
	}
}

func isFuncLit(e ast.Expr) bool {
	_, ok := e.(*ast.FuncLit)
	return ok
}

// breakFromSelect refuses break L and continue L inside a select's cases
// where L labels an enclosing loop: the interpreter never leaves the loop.
// Those selectBranch can turn into a goto it runs right are rewritten.
func (rw *rewriter) breakFromSelect(s *ast.SelectStmt) {
	ast.Inspect(s.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BranchStmt:
			if n.Label != nil && (n.Tok == token.BREAK || n.Tok == token.CONTINUE) && !rw.selectBranch(n) { // interp_selectbreak.go
				rw.refuse(n.Pos(), fmt.Sprintf("%s %s inside a select is not supported by the interpreter: it does not leave the select's loop. Set a variable and test it in the loop's condition, or return", n.Tok, n.Label.Name))
			}
		}
		return true
	})
}

// emptyTypeCases gives every empty case of a type switch a statement that
// does nothing: at an empty case the interpreter returns from the enclosing
// function (or its compiler panics), where Go goes on after the switch.
func (rw *rewriter) emptyTypeCases(s *ast.TypeSwitchStmt) {
	bound := ""
	if a, ok := s.Assign.(*ast.AssignStmt); ok && len(a.Lhs) == 1 {
		if id, ok := a.Lhs[0].(*ast.Ident); ok && id.Name != "_" {
			bound = id.Name
		}
	}
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		if len(cc.Body) > 0 {
			continue
		}
		noop := " _ = 0;"
		if bound != "" {
			noop = " _ = " + bound + ";"
		}
		at := rw.off(cc.Colon) + 1
		rw.add(at, at, noop)
	}
}

// interfaceCases refuses a type switch case naming an interface type: the
// interpreter does not match it (an error value falls through case error
// to default).
func (rw *rewriter) interfaceCases(s *ast.TypeSwitchStmt) {
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		for _, e := range cc.List {
			if rw.isInterface(e) {
				rw.refuse(e.Pos(), fmt.Sprintf("a type switch case naming an interface type (%s) is not matched by the interpreter: switch on the concrete types, or use errors.As with a pointer to a concrete error type", rw.src(e)))
				return
			}
		}
	}
}

// isInterface recognises the interface types a case can name: error, any,
// an interface literal, one declared in the file, or a well-known one of
// the allowed packages.
func (rw *rewriter) isInterface(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.InterfaceType:
		return true
	case *ast.Ident:
		if e.Obj == nil {
			return e.Name == "error" || e.Name == "any"
		}
		if ts, ok := e.Obj.Decl.(*ast.TypeSpec); ok {
			_, iface := ts.Type.(*ast.InterfaceType)
			return iface
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && x.Obj == nil {
			name := rw.imports[x.Name] + "." + e.Sel.Name
			_, known := hostInterfaces[name]
			return known || name == "fmt.Formatter" || name == "context.Context"
		}
	}
	return false
}

// methodValues refuses a method value (f := x.M, not called at once) of a
// method with a value receiver: Go copies x when the value is made, the
// interpreter reads x when it is called, so later changes to x show.
// Without types a name is all there is to go on: a method of the file
// with a value receiver, and no struct field of that name.
func (rw *rewriter) methodValues() {
	valueMethods, fields, ptrMethods := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, d := range rw.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) == 1 {
			if _, ptr := fd.Recv.List[0].Type.(*ast.StarExpr); !ptr {
				valueMethods[fd.Name.Name] = true
			} else {
				ptrMethods[fd.Name.Name] = true
			}
		}
	}
	called := map[*ast.SelectorExpr]bool{}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.StructType:
			for _, f := range n.Fields.List {
				for _, name := range f.Names {
					fields[name.Name] = true
				}
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				called[sel] = true
			}
		case *ast.RangeStmt:
			// for v := range x.All, rewritten to the call x.All(func...)
			// (rangeOverFunc), which reads x when Go would copy it.
			if sel, ok := n.X.(*ast.SelectorExpr); ok && rw.classes.done[n] {
				called[sel] = true
			}
		}
		return true
	})
	ast.Inspect(rw.file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || called[sel] || !valueMethods[sel.Sel.Name] || fields[sel.Sel.Name] {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil && rw.imports[x.Name] != "" {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Obj != nil && x.Obj.Kind == ast.Typ {
			return true // a method expression, refused on its own
		}
		if rw.pointerMethod(sel.Sel) || rw.unchangingReceiver(sel.X, ptrMethods) {
			return true
		}
		rw.refuse(sel.Pos(), fmt.Sprintf("the method value %s is not supported by the interpreter: it reads the receiver when the value is called, where Go copies it when the value is made. Write a function literal instead (func() { ... %s() ... }) after copying the receiver if it may change", rw.src(sel), rw.src(sel)))
		return false
	})
}

// unchangingReceiver reports a receiver whose value cannot change between
// the method value's making and its calls, so that reading it late reads
// what Go copied: a call's result or a composite literal (made afresh,
// once), or a variable, not a pointer, that the file never assigns after
// declaring it, never increments, never takes the address of and never
// calls a method with a pointer receiver (of the file's methods' names) on.
func (rw *rewriter) unchangingReceiver(x ast.Expr, ptrMethods map[string]bool) bool {
	switch e := unparen(x).(type) {
	case *ast.CallExpr:
		_, conv := rw.typeInfo().Types[e.Fun]
		return !conv || !rw.typeInfo().Types[e.Fun].IsType()
	case *ast.CompositeLit:
		return true
	case *ast.Ident:
		if e.Obj == nil || e.Obj.Kind != ast.Var {
			return false
		}
		t := rw.typeOf(e)
		if t == nil {
			return false
		}
		if _, ptr := t.Underlying().(*types.Pointer); ptr {
			return false
		}
		return !rw.changed(e.Obj, ptrMethods)
	}
	return false
}

// pointerMethod reports whether the type check found name to be a method
// with a pointer receiver: its method value holds &x, as the interpreter
// reads x, so a later change shows in both.
func (rw *rewriter) pointerMethod(name *ast.Ident) bool {
	return rw.receiverIsPointer(name) == 1
}

// valueMethod reports whether the type check found name to be a method
// with a value receiver, which cannot change its receiver.
func (rw *rewriter) valueMethod(name *ast.Ident) bool {
	return rw.receiverIsPointer(name) == 0
}

// receiverIsPointer is 1 where name is a method of a pointer receiver, 0
// of a value receiver, -1 where the type check cannot tell.
func (rw *rewriter) receiverIsPointer(name *ast.Ident) int {
	f, ok := rw.typesInfo().Uses[name].(*types.Func)
	if !ok {
		return -1
	}
	sig, ok := f.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return -1
	}
	if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
		return 1
	}
	return 0
}

// changed reports whether the file may change the variable obj after its
// declaration (see unchangingReceiver).
func (rw *rewriter) changed(obj *ast.Object, ptrMethods map[string]bool) bool {
	found := false
	isObj := func(e ast.Expr) bool {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
			case *ast.SelectorExpr:
				e = x.X
			case *ast.IndexExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			case *ast.Ident:
				return x.Obj == obj
			default:
				return false
			}
		}
	}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && n.Tok == token.DEFINE && id.Obj == obj && obj.Decl == n {
					continue // its declaration
				}
				found = found || isObj(l)
			}
		case *ast.IncDecStmt:
			found = found || isObj(n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				found = found || n.Key != nil && isObj(n.Key) || n.Value != nil && isObj(n.Value)
			}
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && isObj(n.X)
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && ptrMethods[sel.Sel.Name] && !rw.valueMethod(sel.Sel) {
				found = found || isObj(sel.X)
			}
		}
		return !found
	})
	return found
}

// methodExpr refuses method expressions (T.M, (*T).M) of the file's types:
// the interpreter panics calling them. Write a function literal instead.
func (rw *rewriter) methodExpr(s *ast.SelectorExpr) {
	x := s.X
	if p, ok := x.(*ast.ParenExpr); ok {
		x = p.X
	}
	if st, ok := x.(*ast.StarExpr); ok {
		x = st.X
	}
	if id, ok := x.(*ast.Ident); ok && id.Obj != nil && id.Obj.Kind == ast.Typ {
		rw.refuse(s.Pos(), fmt.Sprintf("method expressions (%s) are not supported by the interpreter: write a function literal that calls the method instead", rw.src(s)))
	}
}

// isTuple reports an assignment (=) of several values, one per variable.
func isTuple(a *ast.AssignStmt) bool {
	return a.Tok == token.ASSIGN && len(a.Lhs) >= 2 && len(a.Lhs) == len(a.Rhs)
}

// plainTuple reports a tuple assignment the interpreter runs correctly: to
// variables, of values with no call, no receive and no nil (i, j = i+1, j-1).
func (rw *rewriter) plainTuple(a *ast.AssignStmt) bool {
	for _, l := range a.Lhs {
		if _, ok := l.(*ast.Ident); !ok {
			return false
		}
	}
	for _, r := range a.Rhs {
		bad := false
		ast.Inspect(r, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr, *ast.FuncLit, *ast.CompositeLit:
				bad = true
			case *ast.UnaryExpr:
				bad = bad || n.Op == token.ARROW
			case *ast.Ident:
				bad = bad || n.Name == "nil" && n.Obj == nil
			}
			return !bad
		})
		if bad {
			return false
		}
	}
	return true
}

// checkTargets refuses left-hand sides that the rewrites could evaluate in
// another order than Go does: a call inside one, or a variable assigned by
// one and used by another (i, a[i] = ...).
func (rw *rewriter) checkTargets(lhs []ast.Expr) bool {
	assigned := map[*ast.Object]bool{}
	for _, l := range lhs {
		if id, ok := l.(*ast.Ident); ok && id.Obj != nil {
			assigned[id.Obj] = true
		}
	}
	for _, l := range lhs {
		if strings.ContainsAny(rw.src(l), "\n") {
			rw.refuse(l.Pos(), "the interpreter cannot run this assignment faithfully: keep each variable of it on one line")
			return false
		}
		if _, ok := l.(*ast.Ident); ok {
			continue
		}
		ok := true
		ast.Inspect(l, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr, *ast.UnaryExpr, *ast.FuncLit:
				if u, isUnary := n.(*ast.UnaryExpr); !isUnary || u.Op == token.ARROW {
					ok = false
				}
			case *ast.Ident:
				if n.Obj != nil && assigned[n.Obj] {
					ok = false
				}
			}
			return ok
		})
		if !ok {
			rw.refuse(l.Pos(), "the interpreter cannot run this assignment faithfully (a target depends on a call or on another target): assign the values in separate statements")
			return false
		}
	}
	return true
}

// direct reports a value that no assignment or call can change (a literal,
// a constant, nil, a name from an imported package), so the rewrite may
// evaluate it after the others, and must: an untyped constant or nil takes
// its type from the variable it is assigned to.
func (rw *rewriter) direct(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		if e.Obj == nil {
			return e.Name == "nil" || e.Name == "true" || e.Name == "false" || e.Name == "iota"
		}
		return e.Obj.Kind == ast.Con
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok || x.Obj != nil {
			return false
		}
		_, imported := rw.imports[x.Name]
		return imported
	case *ast.ParenExpr:
		return rw.direct(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && e.Op != token.AND && rw.direct(e.X)
	case *ast.BinaryExpr:
		return rw.direct(e.X) && rw.direct(e.Y)
	}
	return false
}

// tupleInPlace rewrites a, b = f(), X where it stands:
// { t1 := f(); ; a = t1; b = X }. The values that need a temporary keep their
// place (and their lines); the direct ones and the targets move to the end.
func (rw *rewriter) tupleInPlace(a *ast.AssignStmt) {
	if !rw.checkTargets(a.Lhs) {
		return
	}
	start, rhs0 := rw.off(a.Pos()), rw.off(a.Rhs[0].Pos())
	if strings.Contains(rw.text[start:rhs0], "\n") || strings.Contains(rw.text[start:rhs0], "/*") {
		rw.refuse(a.Pos(), "the interpreter cannot run this assignment faithfully: put its variables and its = on one line")
		return
	}
	rw.add(start, rhs0, "{ ")
	vals := make([]string, len(a.Rhs))
	for k, r := range a.Rhs {
		s, e := rw.off(r.Pos()), rw.off(r.End())
		if rw.direct(r) {
			if strings.Contains(rw.text[s:e], "\n") {
				rw.refuse(r.Pos(), "the interpreter cannot run this assignment faithfully: keep this value on one line")
				return
			}
			vals[k] = "(" + rw.text[s:e] + ")"
			rw.add(s, e, "")
		} else {
			vals[k] = rw.tmp()
			rw.add(s, s, vals[k]+" := ")
		}
		if k+1 < len(a.Rhs) {
			next := rw.off(a.Rhs[k+1].Pos())
			comma := strings.IndexByte(rw.text[e:next], ',')
			if comma < 0 {
				rw.refuse(r.Pos(), "the grader could not rewrite this assignment: please report it")
				return
			}
			rw.add(e+comma, e+comma+1, ";")
		}
	}
	rw.add(rw.off(a.End()), rw.off(a.End()), "; "+rw.assignments(a.Lhs, vals)+" }")
}

// assignments assigns vals to the targets one by one, left to right.
func (rw *rewriter) assignments(lhs []ast.Expr, vals []string) string {
	parts := make([]string, len(lhs))
	for k, l := range lhs {
		parts[k] = rw.src(l) + " = " + vals[k]
	}
	return strings.Join(parts, "; ")
}

// hoistInit moves a tuple assignment out of an if, switch or for
// statement's init, into a block around the statement.
func (rw *rewriter) hoistInit(owner ast.Stmt, init ast.Stmt) {
	a, ok := init.(*ast.AssignStmt)
	if !ok || !isTuple(a) || !rw.checkTargets(a.Lhs) {
		return
	}
	if strings.Contains(rw.src(a), "\n") {
		rw.refuse(a.Pos(), "the interpreter cannot run this assignment faithfully: write it on one line, or before the statement")
		return
	}
	var pre strings.Builder
	pre.WriteString("{ ")
	vals := make([]string, len(a.Rhs))
	for k, r := range a.Rhs {
		if rw.direct(r) {
			vals[k] = "(" + rw.src(r) + ")"
			continue
		}
		vals[k] = rw.tmp()
		fmt.Fprintf(&pre, "%s := %s; ", vals[k], rw.src(r))
	}
	pre.WriteString(rw.assignments(a.Lhs, vals) + "; ")
	at := rw.off(owner.Pos())
	rw.add(at, at, pre.String())
	rw.add(rw.off(a.Pos()), rw.off(a.End()), "")
	rw.add(rw.off(owner.End()), rw.off(owner.End()), " }")
}

// selectAssign rewrites case v, ok = <-ch: to case t1, t2 := <-ch: v = t1;
// ok = t2. Go evaluates the targets only when the case is chosen, as the
// rewrite does.
func (rw *rewriter) selectAssign(cc *ast.CommClause) {
	a, ok := cc.Comm.(*ast.AssignStmt)
	if !ok || a.Tok != token.ASSIGN || !rw.checkTargets(a.Lhs) {
		return
	}
	start, rhs0 := rw.off(a.Pos()), rw.off(a.Rhs[0].Pos())
	if strings.Contains(rw.text[start:rhs0], "\n") {
		rw.refuse(a.Pos(), "the interpreter cannot run this receive faithfully: put its variables and its = on one line")
		return
	}
	names, vals, assigns := rw.targets(a.Lhs)
	rw.add(start, rhs0, strings.Join(names, ", ")+" := ")
	colon := rw.off(cc.Colon) + 1
	rw.add(colon, colon, " "+assigns(vals)+";")
}

// targets makes a temporary for each target other than _, and returns the
// names to declare, the temporaries, and a function writing the assignments.
func (rw *rewriter) targets(lhs []ast.Expr) (names, vals []string, assigns func([]string) string) {
	for _, l := range lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name == "_" {
			names = append(names, "_")
			vals = append(vals, "")
			continue
		}
		t := rw.tmp()
		names = append(names, t)
		vals = append(vals, t)
	}
	return names, vals, func(vals []string) string {
		var parts []string
		for k, l := range lhs {
			if vals[k] != "" {
				parts = append(parts, rw.src(l)+" = "+vals[k])
			}
		}
		return strings.Join(parts, "; ")
	}
}

// rangeAssign rewrites for k, v = range x { to for t1, t2 := range x { k =
// t1; v = t2;.
func (rw *rewriter) rangeAssign(s *ast.RangeStmt) {
	if s.Tok != token.ASSIGN {
		return
	}
	lhs := []ast.Expr{s.Key}
	if s.Value != nil {
		lhs = append(lhs, s.Value)
	}
	if !rw.checkTargets(lhs) {
		return
	}
	start, tokEnd := rw.off(s.Key.Pos()), rw.off(s.TokPos)+1
	if strings.Contains(rw.text[start:tokEnd], "\n") {
		rw.refuse(s.Pos(), "the interpreter cannot run this range faithfully: put its variables and its = on one line")
		return
	}
	names, vals, assigns := rw.targets(lhs)
	if assigned := assigns(vals); assigned != "" {
		rw.add(start, tokEnd, strings.Join(names, ", ")+" :=")
		lb := rw.off(s.Body.Lbrace) + 1
		rw.add(lb, lb, " "+assigned+";")
	}
}

// captured returns the loop variables (by object) that a function literal
// in body refers to, or whose address body takes.
func captured(body ast.Node, vars map[*ast.Object]string) map[*ast.Object]bool {
	out := map[*ast.Object]bool{}
	var inFunc int
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			inFunc++
			ast.Inspect(n.Body, visit)
			inFunc--
			return false
		case *ast.UnaryExpr:
			if id, ok := n.X.(*ast.Ident); ok && n.Op == token.AND && id.Obj != nil && vars[id.Obj] != "" {
				out[id.Obj] = true
			}
		case *ast.Ident:
			if inFunc > 0 && n.Obj != nil && vars[n.Obj] != "" {
				out[n.Obj] = true
			}
		}
		return true
	}
	ast.Inspect(body, visit)
	return out
}

// perIteration inserts name := name at the top of body for each captured
// loop variable, in declaration order.
func (rw *rewriter) perIteration(body *ast.BlockStmt, order []*ast.Object, vars map[*ast.Object]string, caught map[*ast.Object]bool) {
	var names []string
	for _, o := range order {
		if caught[o] {
			names = append(names, vars[o])
		}
	}
	if names == nil {
		return
	}
	lb := rw.off(body.Lbrace) + 1
	rw.add(lb, lb, " "+strings.Join(names, ", ")+" := "+strings.Join(names, ", ")+";")
}

func (rw *rewriter) loopVarsRange(s *ast.RangeStmt) {
	if s.Tok != token.DEFINE {
		return
	}
	vars := map[*ast.Object]string{}
	var order []*ast.Object
	for _, e := range []ast.Expr{s.Key, s.Value} {
		if id, ok := e.(*ast.Ident); ok && id.Obj != nil && id.Name != "_" {
			vars[id.Obj] = id.Name
			order = append(order, id.Obj)
		}
	}
	// A range variable is assigned afresh each iteration, so a copy at the
	// top of the body is exactly Go 1.22's per-iteration variable.
	rw.perIteration(s.Body, order, vars, captured(s.Body, vars))
}

func (rw *rewriter) loopVars3(s *ast.ForStmt) {
	init, ok := s.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE {
		return
	}
	vars := map[*ast.Object]string{}
	var order []*ast.Object
	for _, e := range init.Lhs {
		if id, ok := e.(*ast.Ident); ok && id.Obj != nil && id.Name != "_" {
			vars[id.Obj] = id.Name
			order = append(order, id.Obj)
		}
	}
	caught := captured(s.Body, vars)
	if len(caught) == 0 {
		return
	}
	// The copy is Go 1.22's per-iteration variable only if the body leaves
	// the variable alone: Go carries a change made in the body into the
	// post statement, the copy would not.
	var changed ast.Node
	ast.Inspect(s.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Obj != nil && caught[id.Obj] {
					changed = n
				}
			}
		case *ast.IncDecStmt:
			if id, ok := n.X.(*ast.Ident); ok && id.Obj != nil && caught[id.Obj] {
				changed = n
			}
		case *ast.UnaryExpr:
			if id, ok := n.X.(*ast.Ident); ok && n.Op == token.AND && id.Obj != nil && caught[id.Obj] {
				changed = n
			}
		}
		return changed == nil
	})
	if changed != nil {
		rw.refuse(changed.Pos(), fmt.Sprintf("the interpreter shares one loop variable between all iterations (Go before 1.22), so a closure capturing a loop variable that the loop body also changes would run wrongly: copy it first (v := %s) and capture the copy", vars[order[0]]))
		return
	}
	rw.perIteration(s.Body, order, vars, caught)
}

// joinCaseConditions works around a yaegi v0.16.1 bug: in a switch with no
// tag, a case listing several conditions (case a, b:) tests only the first,
// so `case errors.Is(err, X), errors.Is(err, Y):` silently misses Y. The
// rewrite turns each such list into one condition, (a) || (b), which means
// the same in Go.
func (rw *rewriter) joinCaseConditions() {
	ast.Inspect(rw.file, func(n ast.Node) bool {
		sw, ok := n.(*ast.SwitchStmt)
		if !ok || sw.Tag != nil {
			return true
		}
		for _, stmt := range sw.Body.List {
			cc, ok := stmt.(*ast.CaseClause)
			if !ok || len(cc.List) < 2 {
				continue
			}
			for k, e := range cc.List {
				start, end := rw.off(e.Pos()), rw.off(e.End())
				rw.add(start, start, "(")
				rw.add(end, end, ")")
				if k+1 < len(cc.List) {
					next := rw.off(cc.List[k+1].Pos())
					if comma := strings.IndexByte(rw.text[end:next], ','); comma >= 0 {
						rw.add(end+comma, end+comma+1, " ||")
					}
				}
			}
		}
		return true
	})
}

// originalOffset is the offset in the text before edits (applied, so
// sorted) of offset q in the text after them; an offset inside an edit's
// new text is that edit's start.
func originalOffset(edits []edit, q int) int {
	delta := 0 // the edited text's offset minus the original's, so far
	for _, e := range edits {
		at := e.at + delta
		if q < at {
			break
		}
		if q < at+len(e.with) {
			return e.at
		}
		delta += len(e.with) - (e.end - e.at)
	}
	return q - delta
}

// applyEdits applies non-overlapping edits. At one offset, insertions come
// before a replacement that starts there, in the order they were added.
func applyEdits(text string, edits []edit) (string, error) {
	if len(edits) == 0 {
		return text, nil
	}
	sort.SliceStable(edits, func(a, b int) bool {
		ea, eb := edits[a], edits[b]
		if ea.at != eb.at {
			return ea.at < eb.at
		}
		ia, ib := ea.at == ea.end, eb.at == eb.end
		if ia != ib {
			return ia
		}
		return ea.seq < eb.seq
	})
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		if e.at < pos {
			return "", fmt.Errorf("overlapping rewrites at offset %d", e.at)
		}
		b.WriteString(text[pos:e.at])
		b.WriteString(e.with)
		pos = e.end
	}
	b.WriteString(text[pos:])
	return b.String(), nil
}
