package grader

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
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
)

// MutationOps lists the operators in the order Mutants applies them.
var MutationOps = []string{OpNegateCondition, OpDropStatement, OpZeroConstant, OpEmptyKey, OpSwapCases, OpReturnEarly}

// Mutant is a source with one change.
type Mutant struct {
	ID       string // operator and position: "negate-condition@42:5"
	Operator string
	Line     int
	Source   string
}

// Mutants returns every mutant of src the operators make, in source order
// per operator. A mutant that does not compile is still returned; grading
// it reports the compile error (a stillborn mutant, not a survivor).
func Mutants(src string) ([]Mutant, error) {
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "refund.go", src, parser.ParseComments); err != nil {
		return nil, fmt.Errorf("grader: mutate: %w", err)
	}
	var out []Mutant
	for _, op := range MutationOps {
		// Each mutant edits a fresh parse, found again by its index among
		// the nodes the operator applies to.
		for k := 0; ; k++ {
			fset := token.NewFileSet()
			f, _ := parser.ParseFile(fset, "refund.go", src, parser.ParseComments)
			pos, ok := applyOp(op, f, k)
			if !ok {
				break
			}
			var b bytes.Buffer
			if err := format.Node(&b, fset, f); err != nil {
				continue
			}
			p := fset.Position(pos)
			out = append(out, Mutant{ID: fmt.Sprintf("%s@%d:%d", op, p.Line, p.Column), Operator: op, Line: p.Line, Source: b.String()})
		}
	}
	return out, nil
}

// applyOp applies the k-th instance of op to f and reports where, or false
// when f has no k-th instance.
func applyOp(op string, f *ast.File, k int) (token.Pos, bool) {
	n := 0
	var at token.Pos
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
	return at, done
}
