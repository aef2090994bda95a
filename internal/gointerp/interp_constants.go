package gointerp

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// A constant declared with a type and a value computed by an expression
// (const ( resend action = iota + 1; stop ), const half ratio = 1.0 / 2,
// const ab name = "a" + "b") was not equal to its own value: with
// x := action(1), x == resend and resend == 1 were false, while a switch
// case matched it and a constant of plain iota or of a literal compared
// right. Each such constant gets its value as a literal, computed by the
// type checker, in the same declaration: an implicit repetition of the
// expression in a group (stop above) gets its own type and literal, so
// the group keeps meaning what it meant (const ( resend action = 1; stop
// action = 2 )).

// typedConstants rewrites the constant declarations above.
func (rw *rewriter) typedConstants() {
	ast.Inspect(rw.file, func(n ast.Node) bool {
		if gd, ok := n.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			rw.constGroup(gd)
			return false
		}
		return true
	})
}

// constGroup rewrites one const declaration, all of it or nothing.
func (rw *rewriter) constGroup(gd *ast.GenDecl) {
	info := rw.typeInfo()
	type change struct {
		at, end int
		with    string
	}
	var changes []change
	var last *ast.ValueSpec // the spec whose expressions an implicit one repeats
	for _, s := range gd.Specs {
		vs := s.(*ast.ValueSpec)
		if vs.Values != nil {
			last = vs
		}
		src := last
		if src == nil || src.Type == nil || !computed(src.Values) {
			continue
		}
		lits := make([]string, len(vs.Names))
		for k, name := range vs.Names {
			c, ok := info.Defs[name].(*types.Const)
			if name.Name == "_" {
				// A blank constant has no object: its value does not
				// matter, any literal of its type does.
				lits[k] = zeroLiteral(info.Types[src.Type].Type)
				if lits[k] == "" {
					return
				}
				continue
			}
			if !ok {
				return
			}
			lit := constLiteral(c)
			if lit == "" {
				return
			}
			lits[k] = lit
		}
		if vs.Values != nil {
			if len(vs.Values) != len(lits) {
				return
			}
			for k, v := range vs.Values {
				changes = append(changes, change{rw.off(v.Pos()), rw.off(v.End()), lits[k]})
			}
			continue
		}
		typ := rw.src(src.Type)
		if strings.Contains(typ, "\n") {
			return
		}
		end := rw.off(vs.Names[len(vs.Names)-1].End())
		changes = append(changes, change{end, end, " " + typ + " = " + strings.Join(lits, ", ")})
	}
	for _, c := range changes {
		if rw.replaced(c.at, c.end) || rw.straddles(c.at) || rw.straddles(c.end) || c.at == c.end && rw.edited(c.at-1, c.at+1) {
			return
		}
	}
	for _, c := range changes {
		rw.add(c.at, c.end, c.with)
	}
}

// computed reports whether one of values is more than a literal or iota.
func computed(values []ast.Expr) bool {
	for _, v := range values {
		switch v := unparen(v).(type) {
		case *ast.BasicLit:
		case *ast.Ident:
			if v.Name != "iota" {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// constLiteral is the Go literal of c's value, or "" for one that has
// none here (a complex number).
func constLiteral(c *types.Const) string {
	v := c.Val()
	switch v.Kind() {
	case constant.Bool:
		return strconv.FormatBool(constant.BoolVal(v))
	case constant.String:
		return strconv.Quote(constant.StringVal(v))
	case constant.Int:
		return v.ExactString()
	case constant.Float:
		size := 64
		if b, ok := c.Type().Underlying().(*types.Basic); ok && b.Kind() == types.Float32 {
			size = 32
		}
		f, _ := constant.Float64Val(v)
		s := strconv.FormatFloat(f, 'g', -1, size)
		if !strings.ContainsAny(s, ".eEnN") {
			s += ".0"
		}
		return s
	}
	return ""
}

// zeroLiteral is a literal any constant of t may be given.
func zeroLiteral(t types.Type) string {
	if t == nil {
		return ""
	}
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return ""
	}
	switch {
	case b.Info()&types.IsBoolean != 0:
		return "false"
	case b.Info()&types.IsString != 0:
		return `""`
	case b.Info()&types.IsNumeric != 0 && b.Info()&types.IsComplex == 0:
		return "0"
	}
	return ""
}

// constantError reports whether msg, an error of the type check, is Go's
// compile error for a constant that does not fit its type: const x int8
// = 200, var b byte = 300, uint8(256), x = 1.5 for an int x. The
// interpreter took each silently (x was -56, or b 44), or refused it
// with words of its own.
func constantError(msg string) bool {
	return strings.HasSuffix(msg, "(overflows)") || strings.HasSuffix(msg, "(truncated)") ||
		strings.HasPrefix(msg, "constant ") && (strings.Contains(msg, " overflows ") || strings.Contains(msg, " truncated "))
}

// unusedError says msg is go/types' error for a local variable that is
// declared and never used, a compile error of Go's.
func unusedError(msg string) bool {
	return strings.HasPrefix(msg, "declared and not used")
}

// constantErrors gives each constant error of the check as Go's compiler
// gives it, at its line.
func (rw *rewriter) constantErrors() {
	for _, e := range rw.classes.constErrors {
		rw.refuse(e.Pos, e.Msg)
	}
}
