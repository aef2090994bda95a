package gointerp

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
)

// A type switch on a value of a host interface type (error, any,
// fmt.Stringer) whose cases name a type the file declares with methods
// (case *notFound:, case status:) matched none of them: the value reached
// the default, or the code after the switch. A comma-ok assertion to
// such a type is answered right, so the switch becomes a switch without a
// tag whose cases assert, on the same lines:
//
//	switch e := err.(type) {       switch faultlineTmp1 := err; {
//	case *notFound:                case func() bool { _, ok := faultlineTmp1.(*notFound); return ok }(): e := faultlineTmp1.(*notFound); _ = e
//	case nil, status:              case faultlineTmp1 == nil || func() bool {...}(): e := faultlineTmp1; _ = e
//	default:                       default: e := faultlineTmp1; _ = e
//
// An assertion to a struct type with methods held by value is not
// answered right either (yaegi hands the value over holding one of its
// fields), nor one to a type that is not a struct from an any (which
// keeps such a value as its underlying type, so a plain int matches
// case celsius): such a case is refused, with what to write instead.

// ownTypeSwitch rewrites s as above where it needs it.
func (rw *rewriter) ownTypeSwitch(s *ast.TypeSwitchStmt, info *types.Info) {
	if s.Init != nil {
		return
	}
	var bound string
	var subject ast.Expr
	switch a := s.Assign.(type) {
	case *ast.AssignStmt:
		if len(a.Lhs) != 1 || len(a.Rhs) != 1 {
			return
		}
		if id, ok := a.Lhs[0].(*ast.Ident); ok && id.Name != "_" {
			bound = id.Name
		}
		subject = a.Rhs[0]
	case *ast.ExprStmt:
		subject = a.X
	default:
		return
	}
	ta, ok := unparen(subject).(*ast.TypeAssertExpr)
	if !ok || ta.Type != nil {
		return
	}
	st := info.Types[ta.X].Type
	if st == nil || !isInterface(st) {
		return
	}
	if named, ok := st.(*types.Named); ok && named.Obj().Pkg() == rw.classes.pkg {
		return // an interface the file declares: its switches are matched
	}
	needed := false
	for _, c := range s.Body.List {
		for _, e := range c.(*ast.CaseClause).List {
			if t := info.Types[e].Type; t != nil && rw.ownWithMethods(t) {
				needed = true
			}
		}
	}
	if !needed {
		return
	}
	for _, c := range s.Body.List {
		for _, e := range c.(*ast.CaseClause).List {
			t := info.Types[e].Type
			if t == nil || !rw.ownWithMethods(t) {
				continue
			}
			held := types.TypeString(st, func(*types.Package) string { return "" })
			name := rw.src(e)
			_, isStruct := t.Underlying().(*types.Struct)
			if isStruct && rw.wrappedStruct(t, st) {
				rw.refuse(e.Pos(), fmt.Sprintf("a type switch case naming the struct type %s, which has methods, is not matched by the interpreter for a value held in %s: give %s's methods pointer receivers, use &%s{...} as the value, and switch on *%s", name, held, name, name, name))
				return
			}
			if _, isPtr := t.(*types.Pointer); !isPtr && !isStruct && st.Underlying().(*types.Interface).Empty() {
				rw.refuse(e.Pos(), fmt.Sprintf("a type switch case naming %s, which is not a struct, is not matched faithfully by the interpreter for a value held in %s: it keeps such a value there as its underlying type, so a plain %s matches the case too. Switch on a value of an interface with methods (error, or one you declare), or make %s a struct", name, held, types.TypeString(t.Underlying(), nil), name))
				return
			}
		}
	}
	start, body := rw.off(s.Assign.Pos()), rw.off(s.Body.Lbrace)
	if strings.Contains(rw.src(ta.X), "\n") || rw.edited(start, body) || rw.replaced(start, rw.off(s.Body.Rbrace)) {
		return
	}
	v := rw.tmp()
	rw.add(start, rw.off(s.Assign.End()), v+" := "+rw.src(ta.X)+";")
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		var conds []string
		single := ""
		for _, e := range cc.List {
			if isNilIdent(e) {
				conds = append(conds, v+" == nil")
				continue
			}
			typ := rw.src(e)
			if strings.Contains(typ, "\n") {
				return
			}
			conds = append(conds, "func() bool { _, ok := "+v+".("+typ+"); return ok }()")
			if len(cc.List) == 1 {
				single = typ
			}
		}
		if len(cc.List) > 0 {
			rw.add(rw.off(cc.List[0].Pos()), rw.off(cc.List[len(cc.List)-1].End()), strings.Join(conds, " || "))
		}
		if bound != "" {
			val := v
			if single != "" {
				val = v + ".(" + single + ")"
			}
			// Before what emptyTypeCases put there (_ = e;), which
			// uses it.
			colon := rw.off(cc.Colon) + 1
			rw.edits = append(rw.edits, edit{at: colon, end: colon, with: " " + bound + " := " + val + "; _ = " + bound + ";", seq: -1})
		}
	}
}

// wrappedStruct reports whether a value of the struct type t held in an
// interface of type held reaches yaegi's wrapper, which loses it: held
// has methods (error), or t has an Error or String method (fmt's
// interfaces, which yaegi wraps a value in even in an any). A struct
// with other methods in an any is matched.
func (rw *rewriter) wrappedStruct(t, held types.Type) bool {
	if !held.Underlying().(*types.Interface).Empty() {
		return true
	}
	ms := types.NewMethodSet(t)
	return ms.Lookup(rw.classes.pkg, "Error") != nil || ms.Lookup(rw.classes.pkg, "String") != nil
}

// ownWithMethods reports whether t is a type the file declares, or a
// pointer to one, not an interface, with methods on it or its pointer.
func (rw *rewriter) ownWithMethods(t types.Type) bool {
	n := t
	if p, ok := t.(*types.Pointer); ok {
		n = p.Elem()
	}
	named, ok := n.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg() != rw.classes.pkg || isInterface(named) {
		return false
	}
	return types.NewMethodSet(named).Len() > 0 || types.NewMethodSet(types.NewPointer(named)).Len() > 0
}

// typeSwitchOnOwn reports a type switch with a case naming a type the
// file declares (before types are checked: a name the parser resolved to
// a type of the file, or a pointer to one).
func typeSwitchOnOwn(s *ast.TypeSwitchStmt) bool {
	for _, c := range s.Body.List {
		for _, e := range c.(*ast.CaseClause).List {
			if ownTypeName(e) {
				return true
			}
		}
	}
	return false
}

// ownTypeName reports a name the parser resolved to a type of the file,
// or a pointer to one.
func ownTypeName(e ast.Expr) bool {
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	id, ok := e.(*ast.Ident)
	return ok && id.Obj != nil && id.Obj.Kind == ast.Typ
}

// ownAssertion refuses x.(T) where a type switch's case T is refused
// above: T a struct type with methods and x of a host interface type
// (err.(notFound) answered false for a notFound), or T not a struct and
// x an any (v.(celsius) answered true for a plain int). From an any,
// only the comma-ok form is refused: a single-value assertion that Go
// answers is answered right.
func (rw *rewriter) ownAssertion(a *ast.TypeAssertExpr, info *types.Info, commaOK bool) {
	if a.Type == nil {
		return
	}
	st, t := info.Types[a.X].Type, info.Types[a.Type].Type
	if st == nil || t == nil || !isInterface(st) || !rw.ownWithMethods(t) {
		return
	}
	if named, ok := st.(*types.Named); ok && named.Obj().Pkg() == rw.classes.pkg {
		return
	}
	if !commaOK && st.Underlying().(*types.Interface).Empty() {
		// From an any, a single-value assertion of a value of the type is
		// answered right; only one that Go fails with a panic may pass.
		return
	}
	held := types.TypeString(st, func(*types.Package) string { return "" })
	name := rw.src(a.Type)
	_, isStruct := t.Underlying().(*types.Struct)
	if isStruct && rw.wrappedStruct(t, st) {
		rw.refuse(a.Pos(), fmt.Sprintf("a type assertion to the struct type %s, which has methods, is not answered right by the interpreter for a value held in %s: give %s's methods pointer receivers, use &%s{...} as the value, and assert to *%s (or use errors.As with a *%s target)", name, held, name, name, name, name))
		return
	}
	if _, isPtr := t.(*types.Pointer); !isPtr && !isStruct && st.Underlying().(*types.Interface).Empty() {
		rw.refuse(a.Pos(), fmt.Sprintf("a type assertion to %s, which is not a struct, is not answered faithfully by the interpreter for a value held in %s: it keeps such a value there as its underlying type, so a plain %s passes the assertion too. Assert from a value of an interface with methods (error, or one you declare), or make %s a struct", name, held, types.TypeString(t.Underlying(), nil), name))
	}
}
