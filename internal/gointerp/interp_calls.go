package gointerp

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
	"sync/atomic"
)

// SlowMethodCalls turns directMethodCalls off, for the benchmarks that
// measure what it saves (the kits' BenchmarkDirectMethodCalls). Sources
// parsed while it is set keep their method calls as written.
var SlowMethodCalls atomic.Bool

// directMethodCalls is a rewrite for speed, not for meaning: yaegi v0.16.1
// calls a method of an interpreted type, even x.M() with x's type known,
// through a function value it wraps for the host (reflect.MakeFunc), so
// each such call costs a reflect.Value.Call and a fresh frame of
// reflect.New'd slots on top of the call itself, where a call of a plain
// function is direct. Solutions keep their state in a struct and split
// their work into its methods (c.send(ctx), r.finish(...)), so in a
// grade's CPU profile these calls were a sixth to a quarter of the time.
//
// Each method M of a type T declared in the file (not generic, with a
// body) becomes, on its own lines, a plain function that takes the
// receiver first:
//
//	func (c *T) M(a int) error {   =>   func faultlineTmpM_T_M(c *T, a int) error {
//
// and a method M of the same signature, appended after the file's last
// line, forwards to it, so that T's method set, interface satisfaction,
// method values and promotion through embedding are what they were. A
// call x.M(args) whose x is the receiver of a method of T (the name the
// parser resolved to that receiver, not a shadowing one) becomes
// faultlineTmpM_T_M(x, args), with *x or &x where Go would take them
// (a method of T called on a *T receiver copies the value at the call, as
// Go does). Calls in go and defer statements, calls whose only argument
// is itself a call (it may give several values), calls spread over lines
// and calls inside a span another rewrite replaces are left alone: they
// run as before, through the wrapper method.
func (rw *rewriter) directMethodCalls() {
	type method struct {
		fn  string // the plain function holding the body
		ptr bool   // declared on *T
	}
	methods := map[string]map[string]method{}
	var wrappers []string
	for _, d := range rw.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Body == nil || fd.Name.Name == "_" {
			continue
		}
		field := fd.Recv.List[0]
		base, ptr, ok := receiverBase(field.Type)
		if !ok || rw.line(fd.Pos()) != rw.line(fd.Type.Params.Opening) {
			continue
		}
		name := fd.Name.Name
		if methods[base] == nil {
			methods[base] = map[string]method{}
		}
		fn := fmt.Sprintf("%sM_%s_%s", tmpPrefix, base, name)
		methods[base][name] = method{fn: fn, ptr: ptr}
		recvName := ""
		if len(field.Names) == 1 {
			recvName = field.Names[0].Name
		}
		if recvName == "" {
			recvName = rw.tmp()
		}
		recvType := rw.src(field.Type)
		rw.add(rw.off(fd.Pos()), rw.off(fd.Type.Params.Opening)+1, "func "+fn+"("+recvName+" "+recvType+", ")
		wrappers = append(wrappers, rw.forwardingMethod(recvType, name, signatureOf(fd.Type, rw.text, rw.off), func(recv string, args []string) string {
			return fn + "(" + strings.Join(append([]string{recv}, args...), ", ") + ")"
		}))
	}
	if len(wrappers) == 0 {
		return
	}
	receivers := rw.typedNames(func(base string) bool { return methods[base] != nil })
	skip := map[*ast.CallExpr]bool{}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			skip[n.Call] = true
		case *ast.GoStmt:
			skip[n.Call] = true
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || skip[n] {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok || x.Obj == nil {
				return true
			}
			r, ok := receivers[x.Obj]
			if !ok {
				return true
			}
			m, ok := methods[r.base][sel.Sel.Name]
			if !ok || rw.line(x.Pos()) != rw.line(n.Lparen) {
				return true
			}
			if len(n.Args) == 1 {
				if _, call := n.Args[0].(*ast.CallExpr); call {
					return true
				}
			}
			at, end := rw.off(x.Pos()), rw.off(n.Lparen)+1
			if rw.edited(at, end) {
				return true
			}
			arg := x.Name
			switch {
			case r.ptr && !m.ptr:
				arg = "*" + arg
			case !r.ptr && m.ptr:
				arg = "&" + arg
			}
			rw.add(at, end, m.fn+"("+arg+", ")
		}
		return true
	})
	end := len(rw.text)
	rw.add(end, end, "\n"+strings.Join(wrappers, "\n")+"\n")
}

// fileMethods are the methods the file declares, by their receiver's type
// name (for a generic type's, none).
func (rw *rewriter) fileMethods() map[string]map[string]*ast.FuncDecl {
	out := map[string]map[string]*ast.FuncDecl{}
	for _, d := range rw.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
			continue
		}
		if base, _, ok := receiverBase(fd.Recv.List[0].Type); ok {
			if out[base] == nil {
				out[base] = map[string]*ast.FuncDecl{}
			}
			out[base][fd.Name.Name] = fd
		}
	}
	return out
}

// typed is what the file says of a variable's type: a named type of the
// file, or a pointer to one.
type typed struct {
	base string
	ptr  bool
}

// typedNames finds the variables whose type the syntax alone tells, as one
// of the file's types T (for which want is true) or *T: receivers,
// parameters and results declared T or *T, var x T and var x *T, and
// x := T{...} or x := &T{...}. T must be the file's own type, not one a
// function declares with the same name.
func (rw *rewriter) typedNames(want func(base string) bool) map[*ast.Object]typed {
	fileTypes := map[*ast.Object]bool{}
	for _, d := range rw.file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
			for _, sp := range gd.Specs {
				if ts := sp.(*ast.TypeSpec); ts.Name.Obj != nil && ts.TypeParams == nil && !ts.Assign.IsValid() {
					fileTypes[ts.Name.Obj] = true
				}
			}
		}
	}
	// of is the type an expression names, if it is one of the file's.
	of := func(e ast.Expr) (typed, bool) {
		base, ptr, ok := receiverBase(e)
		if !ok {
			return typed{}, false
		}
		id := unparen(e)
		if st, isStar := id.(*ast.StarExpr); isStar {
			id = unparen(st.X)
		}
		// A receiver's type is resolved by the parser only at file scope;
		// elsewhere the name must resolve to the file's declaration.
		if ident := id.(*ast.Ident); ident.Obj != nil && !fileTypes[ident.Obj] || !want(base) {
			return typed{}, false
		}
		return typed{base: base, ptr: ptr}, true
	}
	out := map[*ast.Object]typed{}
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			if t, ok := of(f.Type); ok {
				for _, n := range f.Names {
					if n.Obj != nil {
						out[n.Obj] = t
					}
				}
			}
		}
	}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			fields(n.Recv)
			fields(n.Type.Params)
			fields(n.Type.Results)
		case *ast.FuncLit:
			fields(n.Type.Params)
			fields(n.Type.Results)
		case *ast.ValueSpec:
			if n.Type != nil {
				if t, ok := of(n.Type); ok {
					for _, name := range n.Names {
						if name.Obj != nil {
							out[name.Obj] = t
						}
					}
				}
			}
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE || len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for k, l := range n.Lhs {
				name, ok := l.(*ast.Ident)
				if !ok || name.Obj == nil || name.Obj.Decl != n {
					continue
				}
				rhs, ptr := unparen(n.Rhs[k]), false
				if u, ok := rhs.(*ast.UnaryExpr); ok && u.Op == token.AND {
					rhs, ptr = unparen(u.X), true
				}
				if cl, ok := rhs.(*ast.CompositeLit); ok && cl.Type != nil {
					if t, ok := of(cl.Type); ok && !t.ptr {
						out[name.Obj] = typed{base: t.base, ptr: ptr}
					}
				}
			}
		}
		return true
	})
	return out
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// receiverBase is the name of a method receiver's type and whether the
// receiver is a pointer; ok is false for a generic type's receiver.
func receiverBase(t ast.Expr) (base string, ptr, ok bool) {
	t = unparen(t)
	if s, isStar := t.(*ast.StarExpr); isStar {
		ptr, t = true, unparen(s.X)
	}
	id, isIdent := t.(*ast.Ident)
	if !isIdent {
		return "", false, false
	}
	return id.Name, ptr, true
}

// forwardingMethod is a method of recvType named name, with sig's
// parameter types (renamed) and results, whose body is call(receiver,
// arguments), returned if the method gives values.
func (rw *rewriter) forwardingMethod(recvType, name string, sig signature, call func(recv string, args []string) string) string {
	recv := rw.tmp()
	var params, args []string
	for _, t := range sig.params {
		p := rw.tmp()
		params = append(params, p+" "+t)
		if strings.HasPrefix(t, "...") {
			p += "..."
		}
		args = append(args, p)
	}
	body := call(recv, args)
	if sig.results != "" {
		body = "return " + body
	}
	return fmt.Sprintf("func (%s %s) %s(%s)%s { %s }", recv, recvType, name, strings.Join(params, ", "), sig.results, body)
}

func (rw *rewriter) line(p token.Pos) int { return rw.fset.Position(p).Line }

// edited reports whether an edit made so far replaces text that overlaps
// [at, end) or inserts strictly inside it.
func (rw *rewriter) edited(at, end int) bool {
	for _, e := range rw.edits {
		if e.at == e.end {
			if e.at > at && e.at < end {
				return true
			}
		} else if e.at < end && at < e.end {
			return true
		}
	}
	return false
}

// callResultArgs puts parentheses around a call passed straight to a
// host function (fmt.Println(level(3)), fmt.Errorf("%v", c.state())):
// yaegi v0.16.1 passes an interpreted call's result to host code without
// the wrapper that carries its methods, so fmt printed a value's fields
// where Go calls its String or Error method. A parenthesised call gets
// the wrapper. A call that is the only argument may give several values
// (fmt.Println(pair())), which parentheses would not allow: it is wrapped
// only where it calls a function or method of the file that gives one.
func (rw *rewriter) callResultArgs() {
	single := map[string]bool{} // the file's functions giving one value
	for _, d := range rw.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Type.Results.NumFields() == 1 {
			single[fd.Name.Name] = true
		}
	}
	methods := rw.fileMethods()
	names := rw.typedNames(func(base string) bool { return methods[base] != nil })
	oneValue := func(c *ast.CallExpr) bool {
		switch fn := unparen(c.Fun).(type) {
		case *ast.Ident:
			return fn.Obj != nil && fn.Obj.Kind == ast.Fun && single[fn.Name]
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok && x.Obj != nil {
				t, ok := names[x.Obj]
				m := methods[t.base][fn.Sel.Name]
				return ok && m != nil && m.Type.Results.NumFields() == 1
			}
		}
		return false
	}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Obj != nil || rw.imports[pkg.Name] == "" {
			return true
		}
		for _, a := range call.Args {
			arg, ok := a.(*ast.CallExpr)
			if !ok || len(call.Args) == 1 && !oneValue(arg) {
				continue
			}
			rw.parenthesise(arg)
		}
		return true
	})
}

// parenthesise puts e in parentheses, unless an edit made so far
// replaces text across either end of it.
func (rw *rewriter) parenthesise(e ast.Expr) {
	at, end := rw.off(e.Pos()), rw.off(e.End())
	if rw.splits(at) || rw.splits(end) {
		return
	}
	rw.add(at, at, "(")
	rw.add(end, end, ")")
}

// splits reports whether an edit made so far replaces text on both sides
// of offset p, where an insertion cannot go.
func (rw *rewriter) splits(p int) bool {
	for _, e := range rw.edits {
		if e.at < p && p < e.end {
			return true
		}
	}
	return false
}

// returnedCalls puts parentheses around each call among a return
// statement's several results (return n, len(s)): yaegi v0.16.1 stores a
// builtin's result (len, cap, append, new, make...) straight into the
// first result's slot, so return n, len(s) gave len(s) twice, and
// return nil, len(s) panicked. Parenthesised, the call's value is stored
// where it belongs; parentheses never change a single-valued result.
func (rw *rewriter) returnedCalls() {
	ast.Inspect(rw.file, func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || len(ret.Results) < 2 {
			return true
		}
		for _, r := range ret.Results {
			if _, ok := r.(*ast.CallExpr); !ok {
				continue
			}
			rw.parenthesise(r)
		}
		return true
	})
}

// hostInterfaces are the methods of the allowed packages' interfaces a
// struct may embed, by import path and name, as Go source.
var hostInterfaces = map[string][]string{
	"fmt.Stringer":   {"String() string"},
	"sort.Interface": {"Len() int", "Less(i, j int) bool", "Swap(i, j int)"},
	"sync.Locker":    {"Lock()", "Unlock()"},
}

// signature is a method's parameter types and results as Go source.
type signature struct {
	params  []string // one type per parameter; a variadic one starts with ...
	results string   // with a leading space; empty for none
}

// signatureOf reads ft, whose source is text at the offsets off gives.
func signatureOf(ft *ast.FuncType, text string, off func(token.Pos) int) signature {
	src := func(n ast.Node) string { return text[off(n.Pos()):off(n.End())] }
	var sig signature
	for _, f := range ft.Params.List {
		for range max(1, len(f.Names)) {
			sig.params = append(sig.params, src(f.Type))
		}
	}
	if ft.Results != nil && ft.Results.NumFields() > 0 {
		sig.results = " " + src(ft.Results)
	}
	return sig
}

// embeddedInterfaces gives a struct type that embeds an interface a
// method forwarding to the field for each of the interface's methods it
// does not declare: yaegi v0.16.1 panics ("invalid interface value")
// calling a method promoted from an embedded interface field of a struct
// with other fields, and host code (fmt, sort) does not find such methods.
// The forwarders, appended after the file's last line, are the methods Go
// promotes: same names and signatures, value receivers. Only interfaces
// whose methods the file shows (its own, through its own embedded
// interfaces, and those of hostInterfaces) get them, and only where
// nothing else in the struct has the method's name at that depth or above.
func (rw *rewriter) embeddedInterfaces() {
	ifaces := map[string]*ast.InterfaceType{}
	var structs []*ast.TypeSpec
	declared := rw.fileMethods()
	for _, d := range rw.file.Decls {
		if d, ok := d.(*ast.GenDecl); ok && d.Tok == token.TYPE {
			for _, sp := range d.Specs {
				ts := sp.(*ast.TypeSpec)
				if ts.TypeParams != nil || ts.Assign.IsValid() {
					continue
				}
				switch t := ts.Type.(type) {
				case *ast.InterfaceType:
					ifaces[ts.Name.Name] = t
				case *ast.StructType:
					structs = append(structs, ts)
				}
			}
		}
	}
	// methods are an embedded interface's methods, false if some are not
	// known.
	var methods func(e ast.Expr, depth int) (map[string]signature, bool)
	methods = func(e ast.Expr, depth int) (map[string]signature, bool) {
		out := map[string]signature{}
		switch t := e.(type) {
		case *ast.Ident:
			it, ok := ifaces[t.Name]
			if !ok || depth > 8 {
				return nil, false
			}
			for _, f := range it.Methods.List {
				ft, isFunc := f.Type.(*ast.FuncType)
				if len(f.Names) == 0 || !isFunc {
					sub, ok := methods(f.Type, depth+1)
					if !ok {
						return nil, false
					}
					for k, v := range sub {
						out[k] = v
					}
					continue
				}
				for _, n := range f.Names {
					out[n.Name] = signatureOf(ft, rw.text, rw.off)
				}
			}
			return out, true
		case *ast.SelectorExpr:
			pkg, ok := t.X.(*ast.Ident)
			if !ok || pkg.Obj != nil {
				return nil, false
			}
			list, ok := hostInterfaces[rw.imports[pkg.Name]+"."+t.Sel.Name]
			if !ok {
				return rw.typedMethods(t) // interp_classes.go
			}
			for _, m := range list {
				name, rest, _ := strings.Cut(m, "(")
				fset := token.NewFileSet()
				src := "func(" + rest
				e, err := parser.ParseExprFrom(fset, "", src, 0)
				if err != nil {
					return nil, false
				}
				out[name] = signatureOf(e.(*ast.FuncType), src, func(p token.Pos) int { return fset.Position(p).Offset })
			}
			return out, true
		}
		return nil, false
	}
	var forwarders []string
	for _, ts := range structs {
		type embed struct {
			field   string
			methods map[string]signature
			known   bool
			typ     string // a type of the file, if it is one
			// concrete: not an interface, whose methods are known only
			// to tell whether they hide an interface's.
			concrete bool
		}
		var embeds []embed
		fields := map[string]bool{}
		for _, f := range ts.Type.(*ast.StructType).Fields.List {
			for _, n := range f.Names {
				fields[n.Name] = true
			}
			if len(f.Names) != 0 {
				continue
			}
			t := f.Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			var e embed
			switch t := t.(type) {
			case *ast.Ident:
				e.field, e.typ = t.Name, t.Name
			case *ast.SelectorExpr:
				e.field = t.Sel.Name
			}
			e.methods, e.known = methods(f.Type, 0)
			if !e.known {
				e.methods, e.known, e.concrete = rw.concreteMethods(f.Type)
			}
			fields[e.field] = true
			embeds = append(embeds, e)
		}
		name := ts.Name.Name
		for k, e := range embeds {
			if !e.known || e.concrete {
				continue
			}
			names := make([]string, 0, len(e.methods))
			for m := range e.methods {
				names = append(names, m)
			}
			sort.Strings(names)
		method:
			for _, m := range names {
				if declared[name][m] != nil || fields[m] {
					continue
				}
				for j, o := range embeds {
					if j == k {
						continue
					}
					_, has := o.methods[m]
					if !o.known && (o.typ == "" || declared[o.typ][m] != nil || ifaces[o.typ] != nil) || has {
						continue method // another field may promote it too
					}
				}
				forwarders = append(forwarders, rw.forwardingMethod(name, m, e.methods[m], func(recv string, args []string) string {
					return recv + "." + e.field + "." + m + "(" + strings.Join(args, ", ") + ")"
				}))
			}
		}
	}
	if len(forwarders) > 0 {
		end := len(rw.text)
		rw.add(end, end, "\n"+strings.Join(forwarders, "\n")+"\n")
	}
}

// interfaceConversionCalls rewrites a method called on a conversion to an
// interface, I(x).M(args), as func() I { return x }().M(args): yaegi
// v0.16.1 panics ("invalid interface value") calling the method of the
// converted value directly, and runs the same call on a function's result
// correctly. The conversion is the same one, made by the return: to an
// interface, a value converts exactly where it may be assigned. Only
// conversions to the interfaces isInterface knows are rewritten: to other
// types an explicit conversion allows what an assignment would not.
func (rw *rewriter) interfaceConversionCalls() {
	ast.Inspect(rw.file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		conv, ok := unparen(sel.X).(*ast.CallExpr)
		if !ok || len(conv.Args) != 1 || conv.Ellipsis.IsValid() || !rw.isInterface(conv.Fun) {
			return true
		}
		at, lp, rp := rw.off(conv.Pos()), rw.off(conv.Lparen), rw.off(conv.Rparen)
		if rw.edited(at, lp+1) || rw.edited(rp, rp+1) {
			return true
		}
		rw.add(at, lp+1, "func() "+rw.src(conv.Fun)+" { return ")
		rw.add(rp, rp+1, " }()")
		return true
	})
}
