package gointerp

// Package state a submission can reset. Compiling a submission is nearly
// all the cost of running it, so an interpreter is reused from run to run;
// a file with package variables would carry them over, as no fresh process
// does. ParseResettable appends a function that re-runs the package's
// initialisation: every package variable assigned its initial value again
// (or its zero value), in Go's initialisation order, then the init
// functions (renamed so that loading does not run them; the grader calls
// the reset once per run, inside the run). The appended lines come after
// the file's last line, so every line of the submission keeps its number.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// ResetFunc is the function ParseResettable appends.
const ResetFunc = "faultlineResetPackageState"

const (
	initPrefix = "faultlineInit"
	zeroName   = "faultlineZero"
)

// ParseResettable is ParseSource for a file whose package state the caller
// resets between runs. When the file declares package variables or init
// functions, the returned Source has Resettable set and declares ResetFunc.
func ParseResettable(filename, text string, extra []string) (*Source, []gradewire.Diagnostic) {
	src, diags := ParseSource(filename, text, extra)
	if diags != nil {
		return nil, diags
	}
	for _, name := range []string{ResetFunc, initPrefix, zeroName} {
		if strings.Contains(text, name) {
			return nil, []gradewire.Diagnostic{{Line: 1, Column: 1, Message: "identifiers starting with " + name + " are reserved for the grader: rename them"}}
		}
	}
	with, ok := withStateReset(src.Fset, src.File, text)
	if !ok {
		return src, nil
	}
	fixed := onlyFixedState(src.File)
	src, diags = ParseSource(filename, with, extra)
	if diags != nil {
		return nil, diags
	}
	src.Resettable, src.FixedState = true, fixed
	return src, nil
}

// onlyFixedState reports whether f's package state is all fixed variables
// (see fixedVars), with no init function: nothing a run could change.
func onlyFixedState(f *ast.File) bool {
	var specs []*ast.ValueSpec
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				for _, s := range d.Specs {
					specs = append(specs, s.(*ast.ValueSpec))
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				return false
			}
		}
	}
	fixed := fixedVars(f, specs)
	for _, s := range specs {
		if !fixed[s] {
			return false
		}
	}
	return true
}

// fixedVars finds the package variables the reset may leave alone: their
// initial value is built from constants, literals, functions and the
// sentinel errors of errors.New and fmt.Errorf, so it is the same in every
// process and belongs to no run; and the file only reads them (indexes,
// len, range, calls, comparisons), never assigns, addresses or passes a
// table on where it could be changed. A read-only lookup table of
// thousands of entries then costs one build per interpreter, not one per
// run.
func fixedVars(f *ast.File, specs []*ast.ValueSpec) map[*ast.ValueSpec]bool {
	imports := map[string]string{}
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = path
	}
	objs := map[*ast.Object]*ast.ValueSpec{}
	table := map[*ast.Object]bool{} // a map or slice whose contents could change
	fixed := map[*ast.ValueSpec]bool{}
	for _, s := range specs {
		if len(s.Values) != len(s.Names) {
			continue
		}
		ok := true
		for k, v := range s.Values {
			ok = ok && staticValue(v, imports)
			if cl, isLit := v.(*ast.CompositeLit); isLit && s.Names[k].Obj != nil {
				switch cl.Type.(type) {
				case *ast.MapType:
					table[s.Names[k].Obj] = true
				case *ast.ArrayType:
					table[s.Names[k].Obj] = cl.Type.(*ast.ArrayType).Len == nil
				}
			}
		}
		if !ok {
			continue
		}
		fixed[s] = true
		for _, n := range s.Names {
			if n.Obj != nil {
				objs[n.Obj] = s
			}
		}
	}
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		defer func() { stack = append(stack, n) }()
		id, ok := n.(*ast.Ident)
		if !ok || id.Obj == nil || objs[id.Obj] == nil || len(stack) == 0 {
			return true
		}
		if vs, ok := stack[len(stack)-1].(*ast.ValueSpec); ok && vs == objs[id.Obj] {
			for _, name := range vs.Names {
				if name == id {
					return true // the declaration itself
				}
			}
		}
		if !readOnlyUse(id, stack, table[id.Obj], imports) {
			fixed[objs[id.Obj]] = false
		}
		return true
	})
	return fixed
}

// readOnlyUse reports whether the use of id, under the given ancestors
// (innermost last), only reads the variable.
func readOnlyUse(id *ast.Ident, stack []ast.Node, table bool, imports map[string]string) bool {
	child := ast.Node(id)
	k := len(stack) - 1
	parent := stack[k]
	// t[i] reads through the table; see what is done with the element.
	if ix, ok := parent.(*ast.IndexExpr); ok && ix.X == child {
		if k == 0 {
			return false
		}
		child, parent = ix, stack[k-1]
		if table {
			switch p := parent.(type) {
			case *ast.AssignStmt:
				for _, l := range p.Lhs {
					if l == child {
						return false
					}
				}
				return true
			case *ast.IncDecStmt:
				return false
			case *ast.UnaryExpr:
				return p.Op != token.AND
			}
			return true
		}
	}
	switch p := parent.(type) {
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			if l == child {
				return false
			}
		}
		return !table
	case *ast.IncDecStmt:
		return false
	case *ast.UnaryExpr:
		return p.Op != token.AND
	case *ast.SelectorExpr, *ast.SliceExpr:
		return false
	case *ast.RangeStmt:
		return p.X == child
	case *ast.CallExpr:
		if p.Fun == child {
			return true
		}
		switch fn := p.Fun.(type) {
		case *ast.Ident:
			return fn.Obj == nil && (fn.Name == "len" || fn.Name == "cap")
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok && x.Obj == nil {
				switch imports[x.Name] {
				case "fmt", "errors", "strings", "strconv":
					return fn.Sel.Name != "As"
				}
			}
		}
		return false
	case *ast.BinaryExpr, *ast.CaseClause, *ast.IfStmt, *ast.SwitchStmt, *ast.ParenExpr:
		return true
	case *ast.ReturnStmt, *ast.ValueSpec, *ast.CompositeLit, *ast.KeyValueExpr, *ast.SendStmt:
		// Passing a table on would let the receiver change it.
		return !table
	}
	return false
}

// staticValue reports an initial value that is the same in every process
// and belongs to no run (see fixedVars).
func staticValue(e ast.Expr, imports map[string]string) bool {
	switch e := e.(type) {
	case *ast.BasicLit, *ast.FuncLit:
		return true
	case *ast.Ident:
		if e.Obj == nil {
			return e.Name == "nil" || e.Name == "true" || e.Name == "false"
		}
		return e.Obj.Kind == ast.Con || e.Obj.Kind == ast.Fun
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Obj == nil && imports[x.Name] != ""
	case *ast.ParenExpr:
		return staticValue(e.X, imports)
	case *ast.UnaryExpr:
		return e.Op != token.AND && e.Op != token.ARROW && staticValue(e.X, imports)
	case *ast.BinaryExpr:
		return staticValue(e.X, imports) && staticValue(e.Y, imports)
	case *ast.KeyValueExpr:
		return staticValue(e.Key, imports) && staticValue(e.Value, imports)
	case *ast.CompositeLit:
		switch e.Type.(type) {
		case *ast.MapType, *ast.ArrayType, nil:
		default:
			return false
		}
		for _, el := range e.Elts {
			if !staticValue(el, imports) {
				return false
			}
		}
		return true
	case *ast.CallExpr:
		sel, ok := e.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Obj != nil {
			return false
		}
		switch imports[x.Name] + "." + sel.Sel.Name {
		case "errors.New", "fmt.Errorf":
		default:
			return false
		}
		for _, a := range e.Args {
			if !staticValue(a, imports) {
				return false
			}
		}
		return true
	}
	return false
}

// withStateReset returns text with ResetFunc appended and the init
// functions renamed, or false when the file has no package state.
func withStateReset(fset *token.FileSet, f *ast.File, text string) (string, bool) {
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	src := func(n ast.Node) string { return text[off(n.Pos()):off(n.End())] }

	var specs []*ast.ValueSpec
	var inits []*ast.FuncDecl
	funcs := map[*ast.Object]*ast.FuncDecl{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				for _, s := range d.Specs {
					specs = append(specs, s.(*ast.ValueSpec))
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				inits = append(inits, d)
			} else if d.Recv == nil && d.Name.Obj != nil {
				funcs[d.Name.Obj] = d
			}
		}
	}
	if len(specs) == 0 && len(inits) == 0 {
		return text, false
	}

	// Go initialises a package variable once every variable its initial
	// value refers to (directly, or through the functions it calls) is
	// initialised, taking the earliest ready one in declaration order.
	varOf := map[*ast.Object]*ast.ValueSpec{}
	for _, s := range specs {
		for _, n := range s.Names {
			if n.Obj != nil {
				varOf[n.Obj] = s
			}
		}
	}
	deps := map[*ast.ValueSpec]map[*ast.ValueSpec]bool{}
	for _, s := range specs {
		d := map[*ast.ValueSpec]bool{}
		seen := map[*ast.FuncDecl]bool{}
		var refs func(n ast.Node)
		refs = func(n ast.Node) {
			ast.Inspect(n, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok || id.Obj == nil {
					return true
				}
				if v := varOf[id.Obj]; v != nil && v != s {
					d[v] = true
				}
				if fd := funcs[id.Obj]; fd != nil && !seen[fd] {
					seen[fd] = true
					refs(fd.Body)
				}
				return true
			})
		}
		for _, v := range s.Values {
			refs(v)
		}
		deps[s] = d
	}
	var order []*ast.ValueSpec
	done := map[*ast.ValueSpec]bool{}
	for len(order) < len(specs) {
		progress := false
		for _, s := range specs {
			if done[s] {
				continue
			}
			ready := true
			for d := range deps[s] {
				ready = ready && done[d]
			}
			if ready {
				done[s], progress = true, true
				order = append(order, s)
				break
			}
		}
		if !progress {
			// A cycle the compiler would reject anyway: keep the rest in
			// declaration order.
			for _, s := range specs {
				if !done[s] {
					done[s] = true
					order = append(order, s)
				}
			}
		}
	}

	fixed := fixedVars(f, specs)

	var b strings.Builder
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n// %s re-runs the package's initialisation (added by the grader).\nfunc %s() {\n", ResetFunc, ResetFunc)
	for _, s := range order {
		if fixed[s] {
			continue
		}
		if len(s.Values) == 0 {
			for _, n := range s.Names {
				if n.Name == "_" {
					continue
				}
				fmt.Fprintf(&b, "\t{\n\t\tvar %s %s\n\t\t%s = %s\n\t}\n", zeroName, src(s.Type), n.Name, zeroName)
			}
			continue
		}
		names := make([]string, len(s.Names))
		for k, n := range s.Names {
			names[k] = n.Name
		}
		values := make([]string, len(s.Values))
		for k, v := range s.Values {
			values[k] = src(v)
		}
		if s.Type != nil && len(s.Values) == len(s.Names) {
			// The declared type converts untyped constants and nil.
			for k := range values {
				values[k] = "(" + src(s.Type) + ")(" + values[k] + ")"
			}
		}
		fmt.Fprintf(&b, "\t%s = %s\n", strings.Join(names, ", "), strings.Join(values, ", "))
	}
	for k := range inits {
		fmt.Fprintf(&b, "\t%s%d()\n", initPrefix, k+1)
	}
	b.WriteString("}\n")
	out := b.String()
	// Rename the init functions, from the last so offsets stay valid.
	for k := len(inits) - 1; k >= 0; k-- {
		at := off(inits[k].Name.Pos())
		out = out[:at] + fmt.Sprintf("%s%d", initPrefix, k+1) + out[at+len("init"):]
	}
	return out, true
}

// StateResetText is withStateReset for a caller that compiles the file
// natively (the differential test): text with ResetFunc appended and the
// init functions renamed, and whether the file has package state at all.
func StateResetText(filename, text string) (string, bool, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, text, parser.ParseComments)
	if err != nil {
		return "", false, err
	}
	out, ok := withStateReset(fset, f, text)
	return out, ok, nil
}
