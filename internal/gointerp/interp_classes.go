package gointerp

// Rewrites that need the file's types (interp_types.go), for valid Go that
// yaegi v0.16.1 does not run at all:
//
//   - min, max and clear are not builtins of the interpreter ("undefined:
//     min"). Each call gets a function of the file, appended after its last
//     line, for the call's type: min(a, b) => faultlineTmpMin1(a, b). A
//     constant call becomes its value (a fraction, its nearest float).
//   - for i := range n, with n an integer that is not a literal, crashes
//     the interpreter's compiler ("nil type"). Rewritten to a three-clause
//     loop over a copy of n, with the variable assigned afresh at the top
//     of each iteration, as Go 1.22 does.
//   - for x := range seq, with seq a function that takes a yield function
//     (an iterator), crashes it too. Rewritten to the call Go makes of it:
//     seq(func(x T) bool { ...; return true }), with break, continue and
//     return turned into what they mean from inside the function (see
//     rangeOverFunc); what cannot be turned is refused at its line.
//   - a generic function instantiated with a named type of an imported
//     package (Clamp(d, time.Second, time.Minute)) crashes the compiler
//     where its result is assigned. Each instantiation gets a copy of the
//     function with its type arguments written in (genericInstances).
//
// Every edit keeps the lines where they were.

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/interp"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// classState is what the rewrites of this file keep in the rewriter.
type classState struct {
	// constErrors are the type check's errors of constants that do not
	// fit their type (constantErrors, interp_constants.go).
	constErrors []types.Error
	// recoverVars are the variables assigned a function literal that
	// calls recover (deferredRecoverVar).
	recoverVars map[*types.Var]bool
	info        *types.Info
	pkg         *types.Package
	refused     []gradewire.Diagnostic
	// done are the range statements rewritten here, which the other
	// rewrites of ranges (rangeAssign, loopVarsRange) leave alone.
	done map[*ast.RangeStmt]bool
	// helpers are functions appended after the file's last line, by the
	// key that makes them (see helper).
	helpers     map[string]string
	helperOrder []string
	// imports are packages the helpers name that the file does not
	// import, by path, with the name they are imported as.
	imports map[string]string
	// instances are the copies of generic functions (appendInstances).
	instances []instance
	// structHelpers are the helpers printing the file's structs, by type
	// (structHelper, interp_fmtargs.go).
	structHelpers map[*types.Named]string
	// results are the temporaries of the outermost ranges over functions
	// (funcResults).
	results map[*ast.RangeStmt]resultVars
	// edits counts the edits classRewrites made, the first ones; -1
	// while it makes them.
	edits int
}

// refusals are the file's refusals in line order, one per line and
// message.
func (rw *rewriter) refusals() []gradewire.Diagnostic {
	out := append([]gradewire.Diagnostic(nil), rw.classes.refused...)
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Line != out[b].Line {
			return out[a].Line < out[b].Line
		}
		return out[a].Column < out[b].Column
	})
	seen := map[string]bool{}
	kept := out[:0]
	for _, d := range out {
		k := fmt.Sprintf("%d\x00%s", d.Line, d.Message)
		if !seen[k] {
			seen[k] = true
			kept = append(kept, d)
		}
	}
	return kept
}

// classRewrites runs the rewrites of this file, before the others (which
// leave the ranges rewritten here alone), only for a file that has one of
// their forms. The type check they share may still run later, for the
// typed rewrites (interp_typed.go): a file comparing two values with ==
// or switching on one is checked whatever its forms.
func (rw *rewriter) classRewrites() {
	rw.classes.done = map[*ast.RangeStmt]bool{}
	rw.classes.edits = -1
	defer func() { rw.classes.edits = len(rw.edits) }() // last, after any recovery below
	if !rw.mayNeedTypes() {
		return
	}
	// A panic here (go/types on a symbol table it did not expect) would
	// be the grader's fault: the file is then rewritten as without these.
	edits, refused, ntmp := len(rw.edits), len(rw.classes.refused), rw.ntmp
	first := rw.refused
	defer func() {
		if recover() != nil {
			rw.edits, rw.classes.refused, rw.refused = rw.edits[:edits], rw.classes.refused[:refused], first
			rw.classes = classState{done: map[*ast.RangeStmt]bool{}, refused: rw.classes.refused, edits: edits}
			rw.ntmp = ntmp
		}
	}()
	rw.builtinCalls()
	rw.shiftOperands() // interp_shifts.go
	// Instances first: a range over a function copies its operand
	// (All(xs), which genericInstances names All[string]) with classSrc.
	rw.genericInstances()
	rw.rangeStatements()
	rw.lateFuncValues(true) // interp_latefuncs.go
}

// classSrc is the text from at to end with this file's edits inside it
// applied: a rewrite that copies a span elsewhere (a deferred call's
// arguments into temporaries, a tuple's values) replaces the span itself,
// so the copy must carry them, and dropNestedClassEdits drops them where
// they were.
func (rw *rewriter) classSrc(at, end int) string {
	n := rw.classes.edits
	if n < 0 || n > len(rw.edits) {
		n = len(rw.edits)
	}
	var inside []edit
	for _, e := range rw.edits[:n] { // classRewrites' edits come first
		if rw.isClassEdit(e) && e.at >= at && e.end <= end {
			inside = append(inside, edit{at: e.at - at, end: e.end - at, with: e.with, seq: e.seq})
		}
	}
	if len(inside) == 0 {
		return rw.text[at:end]
	}
	out, err := applyEdits(rw.text[at:end], inside)
	if err != nil {
		return rw.text[at:end]
	}
	return out
}

// isClassEdit reports an edit classRewrites made (they come first; while
// they are made, every edit is one).
func (rw *rewriter) isClassEdit(e edit) bool {
	return rw.classes.edits < 0 || e.seq < rw.classes.edits
}

// dropNestedClassEdits drops each edit of classRewrites that lies inside a
// span a later edit replaces: that edit's text was made with classSrc,
// which applied it.
func (rw *rewriter) dropNestedClassEdits() {
	kept := rw.edits[:0]
	for _, e := range rw.edits {
		nested := false
		if rw.isClassEdit(e) {
			for _, r := range rw.edits {
				if r.seq > e.seq && r.at < r.end && r.at <= e.at && e.end <= r.end && (e.at < e.end || r.at < e.at && e.at < r.end) {
					nested = true
					break
				}
			}
		}
		if !nested {
			kept = append(kept, e)
		}
	}
	rw.edits = kept
}

// mayNeedTypes reports whether the file has a form this file rewrites: a
// call of min, max or clear, a range over something that is not plainly a
// container, or a generic function.
func (rw *rewriter) mayNeedTypes() bool {
	found := false
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Obj == nil && (id.Name == "min" || id.Name == "max" || id.Name == "clear") {
				found = true
			}
		case *ast.RangeStmt:
			found = found || !plainContainer(n.X)
		case *ast.BinaryExpr:
			found = found || untypedShift(n)
		case *ast.FuncDecl:
			found = found || n.Type.TypeParams != nil && len(n.Type.TypeParams.List) > 0
		case *ast.StructType:
			// An embedded field of an imported type (a lock, the
			// harness's interface): embeddedInterfaces asks its methods.
			for _, f := range n.Fields.List {
				t := f.Type
				if st, ok := t.(*ast.StarExpr); ok {
					t = st.X
				}
				if _, ok := t.(*ast.SelectorExpr); ok && len(f.Names) == 0 {
					found = true
				}
			}
		}
		return !found
	})
	return found || rw.lateFuncValues(false)
}

// plainContainer reports a range operand the syntax shows is a slice,
// map, string or channel: a composite literal, a conversion to a slice, or
// a variable declared with such a type or a make or literal of one.
func plainContainer(x ast.Expr) bool {
	switch e := unparen(x).(type) {
	case *ast.CompositeLit:
		return true
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.SliceExpr:
		return true
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && id.Obj == nil && id.Name == "make" {
			return true
		}
		switch e.Fun.(type) {
		case *ast.ArrayType, *ast.MapType, *ast.ChanType:
			return true
		}
	case *ast.Ident:
		if e.Obj == nil {
			return false
		}
		switch d := e.Obj.Decl.(type) {
		case *ast.Field:
			return containerType(d.Type)
		case *ast.ValueSpec:
			if d.Type != nil {
				return containerType(d.Type)
			}
			for k, n := range d.Names {
				if n.Name == e.Name && k < len(d.Values) && len(d.Values) == len(d.Names) {
					return plainContainer(d.Values[k])
				}
			}
		case *ast.AssignStmt:
			if len(d.Lhs) != len(d.Rhs) {
				return false
			}
			for k, l := range d.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == e.Name {
					return plainContainer(d.Rhs[k])
				}
			}
		}
	}
	return false
}

func containerType(t ast.Expr) bool {
	switch t := t.(type) {
	case *ast.ArrayType, *ast.MapType, *ast.ChanType:
		return true
	case *ast.Ident:
		return t.Obj == nil && t.Name == "string"
	case *ast.Ellipsis:
		return true
	}
	return false
}

// helper returns the name of a function appended to the file, made once
// per key by text (given the name).
func (rw *rewriter) helper(key string, text func(name string) string) string {
	if rw.classes.helpers == nil {
		rw.classes.helpers = map[string]string{}
	}
	if name, ok := rw.classes.helpers[key]; ok {
		return name
	}
	name := rw.tmp()
	rw.classes.helpers[key] = name
	rw.classes.helperOrder = append(rw.classes.helperOrder, text(name))
	return name
}

// builtinCalls rewrites the calls of min, max and clear (see the top of
// the file).
func (rw *rewriter) builtinCalls() {
	info := rw.typesInfo()
	ast.Inspect(rw.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := call.Fun.(*ast.Ident)
		if !ok {
			return true
		}
		if _, builtin := info.Uses[id].(*types.Builtin); !builtin || len(call.Args) == 0 {
			return true
		}
		switch id.Name {
		case "min", "max":
			tv := info.Types[call]
			if tv.Value != nil {
				// A constant: its value, typed as Go types it.
				v := tv.Value.ExactString()
				if strings.Contains(v, "/") {
					// A fraction (max(2.5, 1) is 5/2): its nearest float64,
					// the value Go gives it.
					f, _ := constant.Float64Val(tv.Value)
					v = strconv.FormatFloat(f, 'g', -1, 64)
					if b, ok := tv.Type.Underlying().(*types.Basic); ok && b.Kind() == types.Float32 {
						f32, _ := constant.Float32Val(tv.Value)
						v = strconv.FormatFloat(float64(f32), 'g', -1, 32)
					}
				}
				if t, ok := rw.typeSource(tv.Type); ok && !isUntyped(tv.Type) {
					v = t + "(" + v + ")"
				} else if isUntyped(tv.Type) && tv.Type.(*types.Basic).Info()&types.IsFloat != 0 && !strings.ContainsAny(v, ".e/") {
					v += ".0"
				}
				rw.add(rw.off(call.Pos()), rw.off(call.End()), v)
				return false
			}
			cmp := "<"
			if id.Name == "max" {
				cmp = ">"
			}
			t, ok := rw.typeSource(rw.typeOf(call))
			if !ok {
				// Values of a type parameter (min(a, b) in a generic
				// function): a generic helper. Its constraint is any, as
				// yaegi lets < through on it: the check above accepted
				// min over the parameter, so its type set is ordered. (The
				// parameter's own constraint would meet yaegi's check,
				// which refuses time.Duration for ~int64 there; a function
				// literal over the parameter crashes it.)
				if _, isParam := rw.typeOf(call).(*types.TypeParam); !isParam {
					return true
				}
				name := rw.helper(id.Name+" of a type parameter", func(name string) string {
					return fmt.Sprintf("func %s[T any](x T, ys ...T) T { for _, y := range ys { if y != y || y %s x { x = y } }; return x }", name, cmp)
				})
				rw.add(rw.off(id.Pos()), rw.off(id.End()), name)
				return true
			}
			name := rw.helper(id.Name+" "+t, func(name string) string {
				// x != x is a NaN, which min and max give if any operand is one.
				return fmt.Sprintf("func %s(x %s, ys ...%s) %s { for _, y := range ys { if y != y || y %s x { x = y } }; return x }", name, t, t, t, cmp)
			})
			rw.add(rw.off(id.Pos()), rw.off(id.End()), name)
		case "clear":
			at := rw.typeOf(call.Args[0])
			if at == nil {
				return true
			}
			t, ok := rw.typeSource(at)
			if !ok {
				return true
			}
			var body string
			switch at.Underlying().(type) {
			case *types.Map:
				body = "for k := range m { delete(m, k) }"
			case *types.Slice:
				elem, ok := rw.typeSource(at.Underlying().(*types.Slice).Elem())
				if !ok {
					return true
				}
				body = "var zero " + elem + "; for i := range m { m[i] = zero }"
			default:
				return true
			}
			name := rw.helper("clear "+t, func(name string) string {
				return fmt.Sprintf("func %s(m %s) { %s }", name, t, body)
			})
			rw.add(rw.off(id.Pos()), rw.off(id.End()), name)
		}
		return true
	})
}

func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

// labels maps each labelled range statement to its label.
func (rw *rewriter) labels() map[*ast.RangeStmt]*ast.LabeledStmt {
	out := map[*ast.RangeStmt]*ast.LabeledStmt{}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			if r, ok := l.Stmt.(*ast.RangeStmt); ok {
				out[r] = l
			}
		}
		return true
	})
	return out
}

// rangeStatements rewrites ranges over integers and over functions,
// innermost first. A range over a function inside another's body (in the
// same function) shares the outermost one's results: a return in it ends
// both calls of iterators.
func (rw *rewriter) rangeStatements() {
	labels := rw.labels()
	var ranges []*ast.RangeStmt
	roots := map[*ast.RangeStmt]*ast.RangeStmt{} // a nested range over a function: its outermost
	var visit func(n ast.Node, root *ast.RangeStmt) bool
	visit = func(n ast.Node, root *ast.RangeStmt) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, nil) })
			return false
		case *ast.RangeStmt:
			ranges = append(ranges, n)
			if _, ok := rw.iterator(n); ok {
				if root != nil {
					roots[n] = root
				} else {
					root = n
				}
				ast.Inspect(n.X, func(m ast.Node) bool { return visit(m, nil) })
				ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, root) })
				return false
			}
		}
		return true
	}
	ast.Inspect(rw.file, func(n ast.Node) bool { return visit(n, nil) })
	for k := len(ranges) - 1; k >= 0; k-- {
		s := ranges[k]
		if yield, ok := rw.iterator(s); ok {
			rw.rangeOverFunc(s, yield, labels[s], roots[s])
			continue
		}
		if t := rw.typeOf(s.X); t != nil {
			if u, ok := t.Underlying().(*types.Basic); ok && u.Info()&types.IsInteger != 0 {
				rw.rangeOverInt(s, labels[s])
			}
		}
	}
}

// iterator is the yield function's type of a range over a function (an
// iterator: a function of one yield function giving a bool).
func (rw *rewriter) iterator(s *ast.RangeStmt) (*types.Signature, bool) {
	t := rw.typeOf(s.X)
	if t == nil {
		return nil, false
	}
	sig, ok := t.Underlying().(*types.Signature)
	if !ok || sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return nil, false
	}
	yield, ok := sig.Params().At(0).Type().Underlying().(*types.Signature)
	if !ok || yield.Results().Len() != 1 || yield.Params().Len() > 2 {
		return nil, false
	}
	return yield, true
}

// rangeOverInt rewrites for i := range n { to
// { n1 := n; for k := T(0); k < n1; k++ { i := k; (the block only where n
// is not a constant).
func (rw *rewriter) rangeOverInt(s *ast.RangeStmt, label *ast.LabeledStmt) {
	tv := rw.typesInfo().Types[s.X]
	t, ok := rw.typeSource(types.Default(tv.Type))
	if !ok {
		return
	}
	if rw.multiline(s.For, s.Body.Lbrace) {
		rw.refuse(s.Pos(), "the interpreter cannot run a range over an integer written over several lines: write for i := range n { on one line")
		return
	}
	rw.classes.done[s] = true
	k := rw.tmp()
	bound := "(" + rw.src(s.X) + ")"
	if tv.Value == nil {
		n := rw.tmp()
		start := s.Pos()
		if label != nil {
			start = label.Pos()
		}
		rw.add(rw.off(start), rw.off(start), "{ "+n+" := "+t+bound+"; ")
		rw.add(rw.off(s.End()), rw.off(s.End()), " }")
		bound = n
	}
	head := fmt.Sprintf("for %s := %s(0); %s < %s; %s++ {", k, t, k, bound, k)
	if s.Key != nil {
		if id, ok := s.Key.(*ast.Ident); !ok || id.Name != "_" {
			head += " " + rw.src(s.Key) + " " + s.Tok.String() + " " + k + ";"
		}
	}
	rw.add(rw.off(s.For), rw.off(s.Body.Lbrace)+1, head)
}

// multiline reports whether the text from a to b spans lines.
func (rw *rewriter) multiline(a, b token.Pos) bool {
	return rw.line(a) != rw.line(b)
}

// rangeOverFuncAdvice ends every refusal of a range over a function.
const rangeOverFuncAdvice = "call the iterator with a function instead: seq(func(v T) bool { ...; return true }), where returning false stops it"

// resultVars are the temporaries that carry a return out of the calls of
// iterators of one function: done, and one per result.
type resultVars struct {
	ok      bool
	done    string
	vars    []string
	types   []string
	names   []string // the function's result names ("" for none)
	refused bool
}

// funcResults makes the result temporaries for the ranges over functions
// of the function around s.
func (rw *rewriter) funcResults(s *ast.RangeStmt, pos token.Pos) resultVars {
	if rw.classes.results == nil {
		rw.classes.results = map[*ast.RangeStmt]resultVars{}
	}
	if v, ok := rw.classes.results[s]; ok {
		return v
	}
	var v resultVars
	defer func() { rw.classes.results[s] = v }()
	var results *types.Tuple // nil for none, as go/types has it
	switch fn := rw.enclosingFunc(s).(type) {
	case *ast.FuncLit:
		ft, ok := rw.typeOf(fn).(*types.Signature)
		if !ok {
			return v
		}
		results = ft.Results()
	case *ast.FuncDecl:
		obj, ok := rw.typesInfo().Defs[fn.Name].(*types.Func)
		if !ok {
			return v
		}
		results = obj.Type().(*types.Signature).Results()
	default:
		return v
	}
	v.done = rw.tmp()
	for k := 0; k < results.Len(); k++ {
		t, ok := rw.typeSource(results.At(k).Type())
		if !ok {
			v.refused = true
			rw.refuse(pos, "the interpreter cannot run this range over a function (its function's results have a type the file cannot name): "+rangeOverFuncAdvice)
			return v
		}
		v.vars = append(v.vars, rw.tmp())
		v.types = append(v.types, t)
		v.names = append(v.names, results.At(k).Name())
	}
	v.ok = true
	return v
}

// rangeOverFunc rewrites for k, v := range seq { body } to
//
//	{ var r1 R1; var done bool; var br int; seq(func(k K, v V) bool { body'; return true }); if done { return r1 }; if br == 1 { continue L } }
//
// where body' is body with each break of the loop as return false, each
// continue as return true, each return as setting the function's results
// and done and returning false, and each branch to a statement around
// the range as setting br and returning false. A range nested in another
// one's body (root) uses root's results and done, and ends with if done {
// return false }, which ends root's call too.
func (rw *rewriter) rangeOverFunc(s *ast.RangeStmt, yield *types.Signature, label *ast.LabeledStmt, root *ast.RangeStmt) {
	pos := s.Pos()
	if label != nil {
		pos = label.Pos()
	}
	if rw.multiline(s.For, s.Body.Lbrace) {
		rw.refuse(pos, "the interpreter cannot run a range over a function written over several lines: "+rangeOverFuncAdvice)
		return
	}
	// The yield function's parameters, and the assignments of the range's
	// variables.
	var params, assigns []string
	vars := []ast.Expr{s.Key, s.Value}
	for k := 0; k < yield.Params().Len(); k++ {
		t, ok := rw.typeSource(yield.Params().At(k).Type())
		if !ok {
			rw.refuse(pos, "the interpreter cannot run this range over a function (its values have a type the file cannot name): "+rangeOverFuncAdvice)
			return
		}
		name := "_"
		if v := vars[k]; v != nil {
			if id, ok := v.(*ast.Ident); !ok || id.Name != "_" {
				if s.Tok == token.DEFINE {
					name = rw.src(v)
				} else {
					name = rw.tmp()
					assigns = append(assigns, rw.src(v)+" = "+name+";")
				}
			}
		}
		params = append(params, name+" "+t)
	}
	top := s
	if root != nil {
		top = root
	}
	res := rw.funcResults(top, pos)
	if !res.ok {
		return
	}
	// The body's branches and returns. outer are the branches to
	// statements around the range, by their code in branch.
	var edits []edit
	var outer []string
	branch := rw.tmp()
	bad := false
	var visit func(n ast.Node, breakable, loops int) bool
	visit = func(n ast.Node, breakable, loops int) bool {
		if bad {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.RangeStmt:
			if _, ok := rw.iterator(n); ok {
				return false // rewritten on its own, first
			}
			ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, breakable+1, loops+1) })
			return false
		case *ast.ForStmt:
			ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, breakable+1, loops+1) })
			return false
		case *ast.SwitchStmt:
			ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, breakable+1, loops) })
			return false
		case *ast.TypeSwitchStmt:
			ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, breakable+1, loops) })
			return false
		case *ast.SelectStmt:
			ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, breakable+1, loops) })
			return false
		case *ast.DeferStmt:
			bad = true // refused as every defer inside a loop is (defers)
		case *ast.BranchStmt:
			mine := n.Label == nil || label != nil && n.Label.Name == label.Label.Name
			switch {
			case n.Tok == token.GOTO:
				bad = true
				rw.refuse(n.Pos(), fmt.Sprintf("the interpreter cannot run %s inside a range over a function: %s", rw.src(n), rangeOverFuncAdvice))
			case n.Label != nil && !mine:
				target, _ := n.Label.Obj.Decl.(ast.Node)
				if target == nil || rw.inside(target, s.Body) {
					return true // a label inside the body
				}
				if root != nil && !rw.inside(target, root.Body) {
					bad = true
					rw.refuse(n.Pos(), fmt.Sprintf("the interpreter cannot run %s out of two nested ranges over functions: %s", rw.src(n), rangeOverFuncAdvice))
					return false
				}
				// To a statement around the range: leave the call, then
				// branch there.
				outer = append(outer, rw.src(n))
				edits = append(edits, edit{at: rw.off(n.Pos()), end: rw.off(n.End()), with: fmt.Sprintf("{ %s = %d; return false }", branch, len(outer))})
			case n.Tok == token.BREAK && (n.Label != nil || breakable == 0):
				edits = append(edits, edit{at: rw.off(n.Pos()), end: rw.off(n.End()), with: "return false"})
			case n.Tok == token.CONTINUE && (n.Label != nil || loops == 0):
				edits = append(edits, edit{at: rw.off(n.Pos()), end: rw.off(n.End()), with: "return true"})
			}
		case *ast.ReturnStmt:
			at, end := rw.off(n.Pos()), rw.off(n.End())
			if len(n.Results) == 0 {
				// With named results, what they hold now.
				var named []string
				for k, v := range res.vars {
					named = append(named, v+" = "+res.names[k]+"; ")
				}
				edits = append(edits, edit{at: at, end: at, with: "{ " + res.done + " = true; " + strings.Join(named, "")}, edit{at: end, end: end, with: " false }"})
			} else {
				edits = append(edits,
					edit{at: at, end: at, with: fmt.Sprintf("{ %s = true; %s = func() (%s) { ", res.done, strings.Join(res.vars, ", "), strings.Join(res.types, ", "))},
					edit{at: end, end: end, with: " }(); return false }"})
			}
		}
		return true
	}
	ast.Inspect(s.Body, func(m ast.Node) bool { return visit(m, 0, 0) })
	if bad {
		return
	}
	if label != nil {
		used := false
		ast.Inspect(rw.file, func(n ast.Node) bool {
			if b, ok := n.(*ast.BranchStmt); ok && b.Label != nil && b.Label.Obj == label.Label.Obj && !rw.inside(b, s.Body) {
				used = true
			}
			return !used
		})
		if used {
			rw.refuse(pos, "the interpreter cannot run a labelled range over a function: "+rangeOverFuncAdvice)
			return
		}
	}
	rw.classes.done[s] = true
	var head strings.Builder
	head.WriteString("{ ")
	if root == nil {
		for k, v := range res.vars {
			fmt.Fprintf(&head, "var %s %s; ", v, res.types[k])
		}
		fmt.Fprintf(&head, "var %s bool; ", res.done)
	}
	// A primary expression is called as it is: yaegi's call of a
	// parenthesised function of the file, (seq)(f), panicked "call of
	// reflect.Value.Call on ptr Value".
	seq := rw.src(s.X)
	switch s.X.(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.CallExpr, *ast.IndexExpr, *ast.IndexListExpr, *ast.ParenExpr:
	default:
		seq = "(" + seq + ")"
	}
	fmt.Fprintf(&head, "var %s int; _ = %s; %s(func(%s) bool { %s", branch, branch, seq, strings.Join(params, ", "), strings.Join(assigns, " "))
	start := rw.off(s.For)
	if label != nil {
		// The label goes: every branch to it is now a return.
		start = rw.off(label.Pos())
	}
	lb := rw.off(s.Body.Lbrace) + 1
	head.WriteString(strings.Repeat("\n", strings.Count(rw.text[start:lb], "\n")))
	rw.add(start, lb, head.String())
	for _, e := range edits {
		rw.add(e.at, e.end, e.with)
	}
	tail := "; return true }); "
	if root == nil {
		tail += fmt.Sprintf("if %s { return %s }", res.done, strings.Join(res.vars, ", "))
	} else {
		tail += fmt.Sprintf("if %s { return false }", res.done)
	}
	for k, b := range outer {
		tail += fmt.Sprintf("; if %s == %d { %s }", branch, k+1, b)
	}
	tail += " }"
	rb := rw.off(s.Body.Rbrace)
	rw.add(rb, rb+1, tail)
}

// inside reports whether n lies within outer.
func (rw *rewriter) inside(n, outer ast.Node) bool {
	return n.Pos() >= outer.Pos() && n.End() <= outer.End()
}

// enclosingFunc is the innermost function declaration or literal around n.
func (rw *rewriter) enclosingFunc(n ast.Node) ast.Node {
	var found ast.Node
	ast.Inspect(rw.file, func(m ast.Node) bool {
		if m == nil || !rw.inside(n, m) {
			return false
		}
		switch m.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			found = m
		}
		return true
	})
	return found
}

// typedMethods are the methods of an imported interface type that
// hostInterfaces does not list (the harness's), from the type check,
// written as the file can write them; false if they are not known.
func (rw *rewriter) typedMethods(e ast.Expr) (map[string]signature, bool) {
	t := rw.typeOf(e)
	if t == nil {
		return nil, false
	}
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return nil, false
	}
	out := map[string]signature{}
	for k := 0; k < it.NumMethods(); k++ {
		m := it.Method(k)
		if !m.Exported() {
			return nil, false
		}
		sig := m.Type().(*types.Signature)
		var s signature
		for j := 0; j < sig.Params().Len(); j++ {
			pt := sig.Params().At(j).Type()
			dots := ""
			if sig.Variadic() && j == sig.Params().Len()-1 {
				pt, dots = pt.(*types.Slice).Elem(), "..."
			}
			src, ok := rw.typeSource(pt)
			if !ok {
				return nil, false
			}
			s.params = append(s.params, dots+src)
		}
		var res []string
		for j := 0; j < sig.Results().Len(); j++ {
			src, ok := rw.typeSource(sig.Results().At(j).Type())
			if !ok {
				return nil, false
			}
			res = append(res, src)
		}
		if len(res) > 0 {
			s.results = " (" + strings.Join(res, ", ") + ")"
		}
		out[m.Name()] = s
	}
	return out, true
}

// concreteMethods are the names of the methods an embedded field of a type
// that is not an interface (sync.Mutex, *bytes.Buffer) promotes, from the
// type check: the forwarders of an interface embedded beside it must not
// hide them. ok is false if they are not known.
func (rw *rewriter) concreteMethods(e ast.Expr) (methods map[string]signature, ok, concrete bool) {
	t := rw.typeOf(e)
	if t == nil {
		return nil, false, false
	}
	if _, isIface := t.Underlying().(*types.Interface); isIface {
		return nil, false, false
	}
	if _, isPtr := t.(*types.Pointer); !isPtr {
		t = types.NewPointer(t)
	}
	ms := types.NewMethodSet(t)
	methods = map[string]signature{}
	for k := 0; k < ms.Len(); k++ {
		methods[ms.At(k).Obj().Name()] = signature{}
	}
	return methods, true, true
}

// lineOfCompilerPanic words a panic that escaped the compiler with no
// position. One of yaegi's own is the interpreter's failure, not the
// code's: the message says so, and names the function whose body makes
// the compiler fail, found by compiling the file again with that one body
// emptied (a panic("") that keeps its lines), function by function.
func lineOfCompilerPanic(src *Source, msg string) gradewire.Diagnostic {
	if !IsInterpreterPanic(msg) { // panics.go
		return gradewire.Diagnostic{Message: "loading the code panicked (in the interpreter or in package initialisation): " + msg}
	}
	d := gradewire.Diagnostic{Message: "the interpreter failed to compile this code (" + msg + "): this is a limit of the grader's Go interpreter, not an error in your code. Writing the function in a plainer form usually avoids it"}
	f, _ := src.parsedText()
	if f == nil {
		return d
	}
	offset := func(p token.Pos) int { return int(p) - 1 } // the file's base is 1
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		lb, rb := offset(fd.Body.Lbrace)+1, offset(fd.Body.Rbrace)
		if lb > rb || rb > len(src.Text) {
			continue
		}
		stub := src.Text[:lb] + ` panic("")` + strings.Repeat("\n", strings.Count(src.Text[lb:rb], "\n")) + src.Text[rb:]
		if compiles(stub) {
			line, col := src.originalPosition(strings.Count(src.Text[:offset(fd.Pos())], "\n")+1, 1)
			d.Line, d.Column = line, col
			d.Message = fmt.Sprintf("the interpreter failed to compile %s (%s): this is a limit of the grader's Go interpreter, not an error in your code. Writing it in a plainer form usually avoids it", fd.Name.Name, msg)
			return d
		}
	}
	return d
}

// compiles reports whether text compiles in a fresh interpreter with the
// registered host packages, without a panic.
func compiles(text string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	exports := interp.Exports{}
	hostExports.Range(func(k, v any) bool {
		exports[k.(string)] = v.(map[string]reflect.Value)
		return true
	})
	i, err := NewInterpreter(InterpreterOptions{Packages: exports})
	if err != nil {
		return false
	}
	_, err = i.Compile(text)
	return err == nil
}
