package gointerp

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// %#v printed the interpreter's own types for values of the file's types:
// "struct { Xid int; Name string }{Xid:1, Name:"x"}" where Go prints
// "main.order{id:1, Name:"x"}", and []int for a []level. Where the
// argument's type is known from the file, its %#v argument goes to the
// runtime's GoSyntax with a description of that type (Go's names for it
// and its parts, each struct's fields as declared), which prints the
// value as fmt's %#v does from the description. A value held in an
// interface is described by its dynamic type, found among the file's
// package-level struct types as TypeName finds it (interp_typename.go);
// one of the host's types, or of a basic kind (whose %#v has no type
// name), is printed by fmt itself. Where an interface may hold a value of
// a type of the file that cannot be told from its underlying type (type
// list []int), the verb is refused at its line. (A struct type declared
// in a function is found where the verb is in its scope.)

// gsNode describes a type for GoSyntax.
type gsNode struct {
	S   string    `json:"s,omitempty"` // the type as %#v prints it
	K   string    `json:"k,omitempty"` // struct, slice, array, map, ptr, iface, leaf
	N   string    `json:"n,omitempty"` // a named type's name, described in gsDesc.Named
	F   []gsField `json:"f,omitempty"`
	E   *gsNode   `json:"e,omitempty"`
	Key *gsNode   `json:"key,omitempty"`
}

type gsField struct {
	N string  `json:"n"`
	T *gsNode `json:"t"`
}

type gsDesc struct {
	Root  *gsNode            `json:"root"`
	Named map[string]*gsNode `json:"named,omitempty"`
}

// goSyntaxVerbs rewrites the %#v arguments of a Printf-like call with a
// literal format.
func (rw *rewriter) goSyntaxVerbs(call *ast.CallExpr, typeOf func(ast.Expr) types.Type) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || call.Ellipsis.IsValid() {
		return
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Obj != nil || rw.imports[pkg.Name] != "fmt" {
		return
	}
	first := 1
	switch sel.Sel.Name {
	case "Printf", "Sprintf", "Errorf":
	case "Fprintf":
		first = 2
	default:
		return
	}
	if len(call.Args) < first {
		return
	}
	lit, ok := call.Args[first-1].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING || !strings.Contains(lit.Value, "#") {
		return
	}
	verbs, ok := formatVerbs(rw.src(lit))
	if !ok {
		return
	}
	for _, v := range verbs {
		k := first + v.arg
		if !v.sharp || v.verb != 'v' || k >= len(call.Args) {
			continue
		}
		if t := typeOf(call.Args[k]); t != nil {
			rw.goSyntaxArg(call.Args[k], t)
		}
	}
}

// goSyntaxArg rewrites arg, of type t, under %#v.
func (rw *rewriter) goSyntaxArg(arg ast.Expr, t types.Type) {
	if rw.classes.pkg == nil {
		return
	}
	d := &gsDesc{Named: map[string]*gsNode{}}
	b := &gsBuilder{rw: rw, d: d}
	d.Root = b.node(t)
	if !b.needed || b.bad || d.Root == nil {
		return
	}
	if r := d.Root; r.N != "" && d.Named[r.N] != nil && d.Named[r.N].K == "leaf" || r.K == "leaf" {
		return // a value of a basic kind: %#v prints no type name
	}
	var samples []string
	if b.iface {
		if names := rw.hiddenInInterfaces(); len(names) > 0 {
			rw.refuse(arg.Pos(), fmt.Sprintf("%%#v of a value that may hold this file's %s is not printed faithfully by the interpreter (it shows the type the value is stored as): print it with %%v or %%+v, or print the type's name yourself", strings.Join(names, ", ")))
			return
		}
		rw.site = arg.Pos()
		for _, tn := range rw.fileStructTypes() {
			n := b.node(tn.Type())
			if n != nil {
				samples = append(samples, strconv.Quote(n.N), tn.Name()+"{}")
			}
		}
		rw.site = token.NoPos
		if b.bad {
			return
		}
	}
	js, err := json.Marshal(d)
	if err != nil {
		return
	}
	at, end := rw.off(arg.Pos()), rw.off(arg.End())
	if rw.replaced(at, end) || rw.straddles(at) || rw.straddles(end) {
		return
	}
	rw.importRuntime()
	rest := ""
	if len(samples) > 0 {
		rest = ", " + strings.Join(samples, ", ")
	}
	rw.add(at, at, runtimeName+".GoSyntax(")
	rw.edits = append(rw.edits, edit{at: end, end: end, with: ", " + strconv.Quote(string(js)) + rest + ")", seq: 1 << 30})
}

// fileStructTypes are the file's struct types that are not generic and
// that rw.site may name: the package-level ones, and those declared in a
// function in scope there.
func (rw *rewriter) fileStructTypes() []*types.TypeName {
	var out []*types.TypeName
	for _, obj := range rw.typesInfo().Defs {
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.IsAlias() || tn.Pkg() != rw.classes.pkg {
			continue
		}
		if tn.Parent() != rw.classes.pkg.Scope() && !rw.namedAtSite(tn) {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok || named.TypeParams() != nil {
			continue
		}
		if _, ok := named.Underlying().(*types.Struct); ok {
			out = append(out, tn)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Pos() < out[b].Pos() })
	return out
}

// hiddenInInterfaces are the file's types whose values, held in an
// interface, GoSyntax cannot name: a named type of a composite kind that
// is not a struct (stored as its underlying type).
func (rw *rewriter) hiddenInInterfaces() []string {
	info := rw.typesInfo()
	var names []string
	seen := map[string]bool{}
	for id, obj := range info.Defs {
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.IsAlias() || tn.Pkg() != rw.classes.pkg || seen[id.Name] {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		switch named.Underlying().(type) {
		case *types.Basic, *types.Interface, *types.Struct:
			continue
		}
		seen[id.Name] = true
		names = append(names, "type "+id.Name)
	}
	sort.Strings(names)
	return names
}

// gsBuilder describes types for GoSyntax.
type gsBuilder struct {
	rw *rewriter
	d  *gsDesc
	// needed: the description names a type of the file, a struct
	// with unexported fields, or an interface; iface: it has an
	// interface; bad: a part cannot be described.
	needed, iface, bad bool
}

func (b *gsBuilder) name(n *types.Named) string {
	o := n.Obj()
	s := o.Name()
	if o.Pkg() != nil {
		s = o.Pkg().Name() + "." + s
	}
	if args := n.TypeArgs(); args != nil && args.Len() > 0 {
		var as []string
		for i := 0; i < args.Len(); i++ {
			as = append(as, b.str(args.At(i)))
		}
		s += "[" + strings.Join(as, ",") + "]"
	}
	return s
}

// str is t as the reflect package writes it (fmt's %#v uses it).
func (b *gsBuilder) str(t types.Type) string {
	switch t := t.(type) {
	case *types.Named:
		if t.Obj().Pkg() == nil {
			return t.Obj().Name() // error
		}
		return b.name(t)
	case *types.Alias:
		return b.str(types.Unalias(t))
	case *types.Basic:
		switch t.Kind() {
		case types.Byte:
			return "uint8"
		case types.Rune:
			return "int32"
		case types.UntypedNil, types.Invalid:
			b.bad = true
		}
		if t.Info()&types.IsUntyped != 0 {
			b.bad = true
		}
		return t.Name()
	case *types.Pointer:
		return "*" + b.str(t.Elem())
	case *types.Slice:
		return "[]" + b.str(t.Elem())
	case *types.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), b.str(t.Elem()))
	case *types.Map:
		return "map[" + b.str(t.Key()) + "]" + b.str(t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendOnly:
			return "chan<- " + b.str(t.Elem())
		case types.RecvOnly:
			return "<-chan " + b.str(t.Elem())
		}
		return "chan " + b.str(t.Elem())
	case *types.Struct:
		if t.NumFields() == 0 {
			return "struct {}"
		}
		var fs []string
		for i := 0; i < t.NumFields(); i++ {
			f := t.Field(i)
			if f.Embedded() {
				fs = append(fs, b.str(f.Type()))
			} else {
				fs = append(fs, f.Name()+" "+b.str(f.Type()))
			}
		}
		return "struct { " + strings.Join(fs, "; ") + " }"
	case *types.Interface:
		if t.NumMethods() == 0 {
			return "interface {}"
		}
		b.bad = true // rare: printed as reflect prints it, not written here
		return "interface {}"
	case *types.Signature:
		var ps []string
		for i := 0; i < t.Params().Len(); i++ {
			p := b.str(t.Params().At(i).Type())
			if t.Variadic() && i == t.Params().Len()-1 {
				p = "..." + strings.TrimPrefix(p, "[]")
			}
			ps = append(ps, p)
		}
		s := "func(" + strings.Join(ps, ", ") + ")"
		switch t.Results().Len() {
		case 0:
		case 1:
			s += " " + b.str(t.Results().At(0).Type())
		default:
			var rs []string
			for i := 0; i < t.Results().Len(); i++ {
				rs = append(rs, b.str(t.Results().At(i).Type()))
			}
			s += " (" + strings.Join(rs, ", ") + ")"
		}
		return s
	}
	b.bad = true
	return ""
}

// node describes t.
func (b *gsBuilder) node(t types.Type) *gsNode {
	if b.bad {
		return nil
	}
	if a, ok := t.(*types.Alias); ok {
		t = types.Unalias(a)
	}
	if _, ok := t.(*types.TypeParam); ok {
		b.bad = true
		return nil
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() == b.rw.classes.pkg {
		if isInterface(n) {
			b.needed, b.iface = true, true
			return &gsNode{S: b.name(n), K: "iface"}
		}
		if types.NewMethodSet(n).Lookup(n.Obj().Pkg(), "GoString") != nil || types.NewMethodSet(types.NewPointer(n)).Lookup(n.Obj().Pkg(), "GoString") != nil ||
			types.NewMethodSet(n).Lookup(n.Obj().Pkg(), "Format") != nil {
			b.bad = true // fmt calls the method: left as it is
			return nil
		}
		name := b.name(n)
		key := name
		if n.Obj().Parent() != b.rw.classes.pkg.Scope() {
			key = fmt.Sprintf("%s@%d", name, b.rw.off(n.Obj().Pos())) // local types may share a name
		}
		b.needed = true
		if _, ok := b.d.Named[key]; !ok {
			b.d.Named[key] = nil // described below; a field of its own type refers to it
			u := b.node(n.Underlying())
			if u == nil {
				return nil
			}
			c := *u
			c.S = name
			b.d.Named[key] = &c
		}
		return &gsNode{N: key}
	}
	switch u := t.(type) {
	case *types.Named:
		if isInterface(u) {
			b.iface = true
			return &gsNode{S: b.str(u), K: "iface"}
		}
		return &gsNode{K: "leaf"} // a host type: fmt prints it
	case *types.Basic:
		return &gsNode{K: "leaf"}
	case *types.Interface:
		b.iface = true
		if u.NumMethods() == 0 {
			b.needed = true // may hold a value of the file's types
		}
		return &gsNode{S: b.str(u), K: "iface"}
	case *types.Pointer:
		e := b.node(u.Elem())
		if e == nil || e.K == "leaf" {
			return &gsNode{K: "leaf"}
		}
		return &gsNode{S: b.str(u), K: "ptr", E: e}
	case *types.Slice:
		e := b.node(u.Elem())
		if e == nil || e.K == "leaf" {
			return &gsNode{K: "leaf"}
		}
		return &gsNode{S: b.str(u), K: "slice", E: e}
	case *types.Array:
		e := b.node(u.Elem())
		if e == nil || e.K == "leaf" {
			return &gsNode{K: "leaf"}
		}
		return &gsNode{S: b.str(u), K: "array", E: e}
	case *types.Map:
		k, e := b.node(u.Key()), b.node(u.Elem())
		if k == nil || e == nil || k.K == "leaf" && e.K == "leaf" {
			return &gsNode{K: "leaf"}
		}
		return &gsNode{S: b.str(u), K: "map", E: e, Key: k}
	case *types.Struct:
		n := &gsNode{S: b.str(u), K: "struct"}
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if !f.Exported() {
				b.needed = true // renamed by the interpreter
			}
			ft := b.node(f.Type())
			if ft == nil {
				return nil
			}
			n.F = append(n.F, gsField{N: f.Name(), T: ft})
		}
		return n
	}
	return &gsNode{K: "leaf"} // chan, func: fmt prints their addresses
}

// goSyntaxText is what GoSyntax gives: the text %#v prints.
type goSyntaxText string

func (g goSyntaxText) Format(f fmt.State, verb rune) { fmt.Fprint(f, string(g)) }

var gsDescs sync.Map // description text => *gsDesc

// goSyntax is the runtime's GoSyntax: v as %#v prints a value of the type
// desc describes, pairs the (name, zero value) of the file's struct types.
func goSyntax(v any, desc string, pairs ...any) any {
	d, ok := gsDescs.Load(desc)
	if !ok {
		var nd gsDesc
		if err := json.Unmarshal([]byte(desc), &nd); err != nil {
			return goSyntaxText(fmt.Sprintf("%#v", v))
		}
		d, _ = gsDescs.LoadOrStore(desc, &nd)
	}
	p := gsPrinter{d: d.(*gsDesc)}
	for k := 0; k+1 < len(pairs); k += 2 {
		name, _ := pairs[k].(string)
		if t := reflect.TypeOf(pairs[k+1]); t != nil && p.d.Named[name] != nil {
			if p.types == nil {
				p.types = map[reflect.Type]string{}
			}
			p.types[t] = name
		}
	}
	rv := reflect.ValueOf(&v).Elem() // an interface value, as the argument is to fmt
	if p.d.Root.K != "iface" {
		rv = rv.Elem()
	}
	p.value(rv, p.d.Root, 0)
	return goSyntaxText(p.b.String())
}

func init() { runtimeSymbols["GoSyntax"] = reflect.ValueOf(goSyntax) }

type gsPrinter struct {
	d     *gsDesc
	types map[reflect.Type]string
	b     strings.Builder
}

func (p *gsPrinter) leaf(v reflect.Value, depth int) {
	if !v.IsValid() {
		p.b.WriteString("<nil>")
		return
	}
	if depth > 0 && v.Kind() == reflect.Pointer {
		p.pointer(v, v.Type().String())
		return
	}
	if v.CanInterface() {
		fmt.Fprintf(&p.b, "%#v", v.Interface())
		return
	}
	fmt.Fprintf(&p.b, "%#v", v)
}

func (p *gsPrinter) pointer(v reflect.Value, s string) {
	if v.IsNil() {
		p.b.WriteString("(" + s + ")(nil)")
		return
	}
	fmt.Fprintf(&p.b, "(%s)(0x%x)", s, v.Pointer())
}

func (p *gsPrinter) value(v reflect.Value, n *gsNode, depth int) {
	if n == nil {
		p.leaf(v, depth)
		return
	}
	if n.N != "" {
		if named := p.d.Named[n.N]; named != nil {
			n = named
		} else {
			p.leaf(v, depth)
			return
		}
	}
	switch n.K {
	case "iface":
		x := v
		if x.Kind() == reflect.Interface {
			x = x.Elem()
		}
		if x.IsValid() && x.CanInterface() {
			x = unboxed(x.Interface())
		}
		if !x.IsValid() {
			if depth == 0 {
				p.b.WriteString("<nil>") // fmt's nil argument
			} else {
				p.b.WriteString(n.S + "(nil)")
			}
			return
		}
		d := depth
		if depth > 0 {
			d++
		}
		if name, ok := p.types[x.Type()]; ok {
			p.value(x, &gsNode{N: name}, d)
			return
		}
		if x.Kind() == reflect.Pointer {
			if name, ok := p.types[x.Type().Elem()]; ok {
				p.value(x, &gsNode{S: "*" + name, K: "ptr", E: &gsNode{N: name}}, d)
				return
			}
		}
		p.leaf(x, d)
	case "struct":
		if v.Kind() != reflect.Struct || v.NumField() != len(n.F) {
			p.leaf(v, depth)
			return
		}
		p.b.WriteString(n.S + "{")
		for i, f := range n.F {
			if i > 0 {
				p.b.WriteString(", ")
			}
			p.b.WriteString(f.N + ":")
			p.value(v.Field(i), f.T, depth+1)
		}
		p.b.WriteString("}")
	case "ptr":
		if v.Kind() != reflect.Pointer {
			p.leaf(v, depth)
			return
		}
		if !v.IsNil() && depth == 0 {
			switch v.Elem().Kind() {
			case reflect.Struct, reflect.Array, reflect.Slice, reflect.Map:
				p.b.WriteString("&")
				p.value(v.Elem(), n.E, depth+1)
				return
			}
		}
		p.pointer(v, n.S)
	case "slice", "array":
		if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
			p.leaf(v, depth)
			return
		}
		if v.Kind() == reflect.Slice && v.IsNil() {
			p.b.WriteString(n.S + "(nil)")
			return
		}
		p.b.WriteString(n.S + "{")
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				p.b.WriteString(", ")
			}
			p.value(v.Index(i), n.E, depth+1)
		}
		p.b.WriteString("}")
	case "map":
		if v.Kind() != reflect.Map {
			p.leaf(v, depth)
			return
		}
		if v.IsNil() {
			p.b.WriteString(n.S + "(nil)")
			return
		}
		keys := v.MapKeys()
		sort.SliceStable(keys, func(a, b int) bool { return gsCompare(keys[a], keys[b]) < 0 })
		p.b.WriteString(n.S + "{")
		for i, k := range keys {
			if i > 0 {
				p.b.WriteString(", ")
			}
			p.value(k, n.Key, depth+1)
			p.b.WriteString(":")
			p.value(v.MapIndex(k), n.E, depth+1)
		}
		p.b.WriteString("}")
	default:
		p.leaf(v, depth)
	}
}

// gsCompare orders map keys as fmt does (internal/fmtsort) for the kinds
// a key of the file's types has.
func gsCompare(a, b reflect.Value) int {
	if a.Kind() != b.Kind() {
		return strings.Compare(a.Kind().String(), b.Kind().String())
	}
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmpOrdered(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmpOrdered(a.Uint(), b.Uint())
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	case reflect.Float32, reflect.Float64:
		return cmpOrdered(a.Float(), b.Float())
	case reflect.Bool:
		switch {
		case a.Bool() == b.Bool():
			return 0
		case !a.Bool():
			return -1
		}
		return 1
	case reflect.Pointer:
		return cmpOrdered(a.Pointer(), b.Pointer())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if c := gsCompare(a.Field(i), b.Field(i)); c != 0 {
				return c
			}
		}
		return 0
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if c := gsCompare(a.Index(i), b.Index(i)); c != 0 {
				return c
			}
		}
		return 0
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return cmpOrdered(boolInt(!a.IsNil()), boolInt(!b.IsNil()))
		}
		return gsCompare(a.Elem(), b.Elem())
	}
	return 0
}

func cmpOrdered[T int64 | uint64 | float64 | uintptr | int](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
