package mutation

import (
	"go/ast"
	"go/token"
	"path"
	"strconv"
)

// Equivalence rules: a class of mutant that provably cannot change what a
// solution does to the world is classified by the tool instead of by hand.
// Each rule looks at what the changed statement does, never only at names:
// the call must resolve to the import Options.Trace names, and everything
// the statement evaluates must be free of effects.
//
// RuleTraceOnly: the change drops a call of the trace function (the refund
// kit's refundkit.Logf), changes only its arguments, drops or negates an
// if whose every path does nothing but such calls. Such a function writes
// a line to the run's trace and nothing else: it reads and writes no
// record, sends nothing, and takes no virtual time. (It is a scheduling
// point of the engine's explorer, but one that touches no state another
// worker can see, so the states a schedule can reach are the same without
// it.) The statement's arguments must be effect-free: literals,
// variable and field reads, operators other than a receive, a division or
// a shift (which can panic), and err.Error() calls. Formatting an argument
// calls its Error or String method, so a file that declares such a method
// (or Format, GoString) gets no trace rule at all: its method could act.
// One effect a read can have is a nil-pointer panic; the rule takes field
// reads as effect-free, which holds for the correct solutions it is run on
// (they pass every scenario, so they do not dereference nil on the way to
// a log line).
const RuleTraceOnly = "trace-only"

// ruleFile is what the rules need to know of the file a mutant comes from,
// taken before the change.
type ruleFile struct {
	parents map[ast.Node]ast.Node
	funcs   map[ast.Node]*ast.FuncDecl // a function's body -> the function
	kit     string                     // the trace function's package's name in the file; "" if none
	trace   string                     // the trace function's name
}

// newRuleFile reads f for the rules; tracePath and traceFunc are
// Options.Trace's parts, "" for no trace rule.
func newRuleFile(f *ast.File, tracePath, traceFunc string) *ruleFile {
	r := &ruleFile{parents: map[ast.Node]ast.Node{}, funcs: map[ast.Node]*ast.FuncDecl{}, trace: traceFunc}
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && tracePath != "" && p == tracePath {
			// The package's name as its path's last element spells it,
			// which the kits' harness packages keep.
			r.kit = path.Base(p)
			if imp.Name != nil {
				r.kit = imp.Name.Name
			}
		}
	}
	if r.kit == "_" || r.kit == "." {
		r.kit = ""
	}
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if len(stack) > 0 {
			r.parents[n] = stack[len(stack)-1]
		}
		if fn, ok := n.(*ast.FuncDecl); ok {
			if fn.Body != nil {
				r.funcs[fn.Body] = fn
			}
			switch fn.Name.Name {
			case "Error", "String", "GoString", "Format":
				if fn.Recv != nil {
					r.kit = "" // formatting a trace call's argument could run this method
				}
			}
		}
		stack = append(stack, n)
		return true
	})
	return r
}

// equivalent returns the rule that classifies the mutant op made by
// changing node, or "".
func (r *ruleFile) equivalent(op string, node ast.Node) string {
	if r.kit == "" || node == nil {
		return ""
	}
	switch op {
	case OpDropStatement:
		if s, ok := node.(ast.Stmt); ok && r.traceOnly(s) {
			return RuleTraceOnly
		}
	case OpZeroConstant:
		// The literal is changed in place: the statement holding it is
		// checked as it now reads.
		for n := r.parents[node]; n != nil; n = r.parents[n] {
			if s, ok := n.(ast.Stmt); ok {
				if r.traceCall(s) {
					return RuleTraceOnly
				}
				break
			}
		}
	case OpNegateCondition:
		if s, ok := node.(*ast.IfStmt); ok && r.negationTraceOnly(s) {
			return RuleTraceOnly
		}
	}
	return ""
}

// traceCall reports whether s is a call of the trace function with
// effect-free arguments.
func (r *ruleFile) traceCall(s ast.Stmt) bool {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || call.Ellipsis.IsValid() {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != r.trace {
		return false
	}
	// The parser resolves local names: an identifier with an object is a
	// variable (or a shadowing declaration), not the package.
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || pkg.Name != r.kit || pkg.Obj != nil {
		return false
	}
	for _, a := range call.Args {
		if !effectFree(a) {
			return false
		}
	}
	return true
}

// traceOnly reports whether running s does nothing but trace calls: it is
// one, or an if with no init statement, an effect-free condition and only
// trace-only statements in every branch.
func (r *ruleFile) traceOnly(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.IfStmt:
		if s.Init != nil || !effectFree(s.Cond) || !r.allTraceOnly(s.Body.List) {
			return false
		}
		switch e := s.Else.(type) {
		case nil:
			return true
		case *ast.BlockStmt:
			return r.allTraceOnly(e.List)
		case *ast.IfStmt:
			return r.traceOnly(e)
		}
		return false
	case *ast.BlockStmt:
		return r.allTraceOnly(s.List)
	}
	return r.traceCall(s)
}

func (r *ruleFile) allTraceOnly(list []ast.Stmt) bool {
	for _, s := range list {
		if !r.traceOnly(s) {
			return false
		}
	}
	return true
}

// negationTraceOnly reports whether negating s only swaps which trace
// lines run. The condition (and init) still run once either way. Both
// branches must be trace-only; or, for an if at the top of a function
// with no results and no else, the body may end in a bare return when
// every statement after the if is trace-only: then both ways the function
// writes trace lines and returns.
func (r *ruleFile) negationTraceOnly(s *ast.IfStmt) bool {
	elseOK := s.Else == nil
	if e, ok := s.Else.(ast.Stmt); ok {
		elseOK = r.traceOnly(e)
	}
	if elseOK && r.allTraceOnly(s.Body.List) {
		return true
	}
	body, ok := r.parents[s].(*ast.BlockStmt)
	fn := r.funcs[body]
	if !ok || fn == nil || s.Else != nil || (fn.Type.Results != nil && len(fn.Type.Results.List) > 0) {
		return false
	}
	list := s.Body.List
	if n := len(list); n > 0 {
		if ret, ok := list[n-1].(*ast.ReturnStmt); ok && len(ret.Results) == 0 {
			list = list[:n-1]
		}
	}
	if !r.allTraceOnly(list) {
		return false
	}
	for i, t := range body.List {
		if t == s {
			return r.allTraceOnly(body.List[i+1:])
		}
	}
	return false
}

// effectFree reports whether evaluating e can do nothing but yield a
// value: no calls (but err.Error()), no receives, nothing that panics on
// a bad operand (division, shifts, indexing, dereferences).
func effectFree(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit, *ast.Ident:
		return true
	case *ast.ParenExpr:
		return effectFree(e.X)
	case *ast.SelectorExpr:
		return effectFree(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && effectFree(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.QUO, token.REM, token.SHL, token.SHR:
			return false
		}
		return effectFree(e.X) && effectFree(e.Y)
	case *ast.CallExpr:
		sel, ok := e.Fun.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Error" && len(e.Args) == 0 && effectFree(sel.X)
	}
	return false
}
