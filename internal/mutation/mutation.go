// Package mutation makes mutants of a Go source file: each one small change
// a stranger's bug might be (a dropped statement, a negated condition, two
// error cases swapped or merged, a constant zeroed, an early return, an
// empty idempotency key). A kit's mutation test grades every mutant of its
// correct solutions; one that passes every scenario shows a check the
// suite lacks, or is an equivalent change, which the rules of rules.go
// classify where they can prove it.
package mutation

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strings"
)

// Mutation operators: each makes one small change a stranger's bug might
// be, so a mutant that passes every scenario shows a check the suite lacks
// (or a change that does not matter: an equivalent mutant).
const (
	OpNegateCondition = "negate-condition" // if c  ->  if !(c)
	OpDropStatement   = "drop-statement"   // a call, assignment or if statement removed
	OpZeroConstant    = "zero-constant"    // an integer literal becomes 0
	OpEmptyKey        = "empty-key"        // IdempotencyKey: x  ->  IdempotencyKey: ""
	OpSwapCases       = "swap-cases"       // two neighbouring cases of a switch swap bodies
	OpReturnEarly     = "return-early"     // a function body starts with its last return
	OpMergeCases      = "merge-cases"      // two neighbouring cases of a switch become one, with either body
)

// Ops lists the operators in the order Mutants applies them.
var Ops = []string{OpNegateCondition, OpDropStatement, OpZeroConstant, OpEmptyKey, OpSwapCases, OpMergeCases, OpReturnEarly}

// Mutant is a source with one change.
type Mutant struct {
	ID       string // operator and position: "negate-condition@42:5"
	Operator string
	Line     int
	Source   string
	// Before and After are the lines the change touches, as the formatted
	// original and the mutant read: what a reviewer of a survivor needs.
	Before, After string
	// Equivalent names the rule (RuleTraceOnly) that shows the change
	// cannot alter what the code does to the world; "" when none applies.
	Equivalent string
}

// Options say what the equivalence rules may assume of the file's imports.
type Options struct {
	// Trace is a function whose only effect is a line in the run's trace,
	// as import path, a dot and its name ("example.com/kit/api.Logf"):
	// with it, RuleTraceOnly classifies the mutants that only change such
	// calls. Empty: no mutant is classified.
	Trace string
}

// Mutants returns every mutant of src the operators make, in source order
// per operator. A mutant that does not compile is still returned; grading
// it reports the compile error (a stillborn mutant, not a survivor).
func Mutants(src string, opt Options) ([]Mutant, error) {
	fset := token.NewFileSet()
	f0, err := parser.ParseFile(fset, "source.go", src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	var base bytes.Buffer
	if err := format.Node(&base, fset, f0); err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	tracePath, traceFunc := "", ""
	if opt.Trace != "" {
		dot := strings.LastIndex(opt.Trace, ".")
		if dot <= 0 || dot == len(opt.Trace)-1 {
			return nil, fmt.Errorf("mutation: Options.Trace %q: want an import path, a dot and a function name", opt.Trace)
		}
		tracePath, traceFunc = opt.Trace[:dot], opt.Trace[dot+1:]
	}
	var out []Mutant
	seen := map[string]bool{}
	for _, op := range Ops {
		// Each mutant edits a fresh parse, found again by its index among
		// the nodes the operator applies to.
		for k := 0; ; k++ {
			fset := token.NewFileSet()
			f, _ := parser.ParseFile(fset, "source.go", src, parser.ParseComments)
			rules := newRuleFile(f, tracePath, traceFunc)
			pos, touched, ok := applyOp(op, f, k)
			if !ok {
				break
			}
			var b bytes.Buffer
			if err := format.Node(&b, fset, f); err != nil || sameTokens(b.String(), base.String()) {
				// Not Go the printer can write, or no change but in layout
				// (a swap of two equal bodies): nothing to grade.
				continue
			}
			p := fset.Position(pos)
			id := fmt.Sprintf("%s@%d:%d", op, p.Line, p.Column)
			// Two merges can start at one case: the second is id/2.
			for n := 2; seen[id]; n++ {
				id = fmt.Sprintf("%s@%d:%d/%d", op, p.Line, p.Column, n)
			}
			seen[id] = true
			before, after := changedLines(base.String(), b.String())
			out = append(out, Mutant{ID: id, Operator: op, Line: p.Line, Source: b.String(),
				Before: before, After: after, Equivalent: rules.equivalent(op, touched)})
		}
	}
	return out, nil
}

// FirstChanged is the first non-blank line the mutant changes, trimmed:
// what a survivors file quotes to pin an entry to its line.
func (m Mutant) FirstChanged() string {
	for _, l := range strings.Split(m.Before+m.After, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// applyOp applies the k-th instance of op to f and reports where and the
// node it changed (the statement dropped, the literal zeroed, the if
// negated), or false when f has no k-th instance.
func applyOp(op string, f *ast.File, k int) (token.Pos, ast.Node, bool) {
	n := 0
	var at token.Pos
	var touched ast.Node
	done := false
	hit := func(pos token.Pos) bool {
		if done {
			return false
		}
		if n == k {
			at, done = pos, true
			return true
		}
		n++
		return false
	}
	switch op {
	case OpNegateCondition:
		ast.Inspect(f, func(x ast.Node) bool {
			if s, ok := x.(*ast.IfStmt); ok && hit(s.Cond.Pos()) {
				s.Cond = &ast.UnaryExpr{Op: token.NOT, X: &ast.ParenExpr{X: s.Cond}}
				touched = s
			}
			return !done
		})
	case OpDropStatement:
		ast.Inspect(f, func(x ast.Node) bool {
			b, ok := x.(*ast.BlockStmt)
			if !ok {
				return !done
			}
			for i, s := range b.List {
				switch s.(type) {
				case *ast.ExprStmt, *ast.AssignStmt, *ast.IfStmt, *ast.DeferStmt, *ast.IncDecStmt:
					if hit(s.Pos()) {
						b.List = append(b.List[:i:i], b.List[i+1:]...)
						touched = s
						return false
					}
				}
			}
			return !done
		})
	case OpZeroConstant:
		ast.Inspect(f, func(x ast.Node) bool {
			if l, ok := x.(*ast.BasicLit); ok && l.Kind == token.INT && l.Value != "0" && hit(l.Pos()) {
				l.Value = "0"
				touched = l
			}
			return !done
		})
	case OpEmptyKey:
		ast.Inspect(f, func(x ast.Node) bool {
			if kv, ok := x.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "IdempotencyKey" && hit(kv.Pos()) {
					kv.Value = &ast.BasicLit{Kind: token.STRING, Value: `""`}
				}
			}
			return !done
		})
	case OpSwapCases:
		ast.Inspect(f, func(x ast.Node) bool {
			var body *ast.BlockStmt
			switch s := x.(type) {
			case *ast.SwitchStmt:
				body = s.Body
			case *ast.TypeSwitchStmt:
				body = s.Body
			default:
				return !done
			}
			for i := 0; i+1 < len(body.List); i++ {
				a, b := body.List[i].(*ast.CaseClause), body.List[i+1].(*ast.CaseClause)
				if a.List == nil || b.List == nil || len(a.Body)+len(b.Body) == 0 {
					continue
				}
				if hit(a.Pos()) {
					a.Body, b.Body = b.Body, a.Body
					return false
				}
			}
			return !done
		})
	case OpMergeCases:
		// Two neighbouring cases become one clause in the first's place,
		// with the first's body (the second's values now act like the
		// first's) or the second's: an error classified as its neighbour.
		ast.Inspect(f, func(x ast.Node) bool {
			s, ok := x.(*ast.SwitchStmt)
			if !ok {
				return !done
			}
			for i := 0; i+1 < len(s.Body.List); i++ {
				a, b := s.Body.List[i].(*ast.CaseClause), s.Body.List[i+1].(*ast.CaseClause)
				if a.List == nil || b.List == nil || sameTokens(nodeText(a.Body), nodeText(b.Body)) {
					// Merging cases with one body changes nothing.
					continue
				}
				for _, body := range [][]ast.Stmt{a.Body, b.Body} {
					if hit(a.Pos()) {
						a.List = append(a.List[:len(a.List):len(a.List)], b.List...)
						a.Body = body
						s.Body.List = append(s.Body.List[:i+1:i+1], s.Body.List[i+2:]...)
						return false
					}
				}
			}
			return !done
		})
	case OpReturnEarly:
		ast.Inspect(f, func(x ast.Node) bool {
			fn, ok := x.(*ast.FuncDecl)
			if !ok || fn.Body == nil || len(fn.Body.List) < 2 {
				return !done
			}
			last, ok := fn.Body.List[len(fn.Body.List)-1].(*ast.ReturnStmt)
			if ok && len(last.Results) > 0 && hit(fn.Pos()) {
				fn.Body.List = append([]ast.Stmt{last}, fn.Body.List...)
			}
			return !done
		})
	}
	return at, touched, done
}

// nodeText prints statements without their file: enough to compare them.
func nodeText(list []ast.Stmt) string {
	var b bytes.Buffer
	for _, s := range list {
		_ = format.Node(&b, token.NewFileSet(), s)
		b.WriteString("\n")
	}
	return b.String()
}

// sameTokens reports whether a and b differ at most in spacing.
func sameTokens(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}

// changedLines returns the lines of a and of b between their common first
// and last lines.
func changedLines(a, b string) (string, string) {
	al, bl := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	j := 0
	for j < len(al)-i && j < len(bl)-i && al[len(al)-1-j] == bl[len(bl)-1-j] {
		j++
	}
	return strings.Join(al[i:len(al)-j], ""), strings.Join(bl[i:len(bl)-j], "")
}
