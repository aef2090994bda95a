//go:build !nointerp

package faultsim

// Natively compiled copies of a submission, for differential tests of the
// interpreter: the same code, graded through the interpreter and compiled
// by the go tool, must give the same report. A worker is a process, so
// code with package state needs a copy of its own per worker, and Go
// builds a package once per program: a native program holds as many
// copies of the submission as a grade has workers at once, each its own
// package (NativeSource writes one). Where the interpreted route replaces
// a standard function or type (sync's locks, math/rand's draws, the
// kit's own stand-ins, fmt's Print functions), a copy calls the very same
// replacement, bound to the worker holding the copy; Native, by contrast,
// shares one entry and its package state between every worker.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/faultline-dev/faultline/internal/gointerp"
)

// NativeCopy is one natively compiled copy of a submission, as the shim
// NativeSource writes returns it.
type NativeCopy struct {
	// Entry is the copy's entry function, of the kit's entry type.
	Entry any
	// Reset re-runs the copy's package initialisation (gointerp's
	// ResetFunc); nil when the file has no package state.
	Reset func()
	// StandIns points at the copy's variables standing for the standard
	// functions the interpreted route replaces, by "import/path.Name":
	// NativeCopies sets each to the replacement, bound to the copy.
	StandIns map[string]any
}

// NativeCopies is a Program of natively compiled copies of one submission:
// each worker that loads holds a copy no other loaded worker holds, whose
// package state the load resets inside the worker's run, as the
// interpreted route resets a worker's own interpreter. Build as many
// copies as a grade has workers loaded at once (lanes times the calls of
// the busiest run, restarts included); a load finding none free fails.
type NativeCopies struct {
	Kit    Kit
	Copies []NativeCopy

	mu      sync.Mutex
	bound   error // set once the stand-ins are bound
	once    sync.Once
	owners  []*atomic.Pointer[slot]
	held    []bool
	inUse   map[*Worker]int
	slots   map[*Worker]*slot
	sources sources
}

// tracksSeeds implements seedsTracked: a copy's draws go through the
// interpreted route's stand-ins.
func (*NativeCopies) tracksSeeds() {}

// Load implements Program.
func (p *NativeCopies) Load(w *Worker, seed int64, out io.Writer) (any, error) {
	p.once.Do(func() { p.bound = p.bind() })
	if p.bound != nil {
		return nil, p.bound
	}
	p.mu.Lock()
	pick := slices.Index(p.held, false)
	if pick < 0 {
		p.mu.Unlock()
		return nil, fmt.Errorf("faultsim: all %d native copies are in use: build more", len(p.Copies))
	}
	p.held[pick] = true
	s := newSlot(w, seed, out, &p.sources)
	p.inUse[w], p.slots[w] = pick, s
	p.mu.Unlock()
	p.owners[pick].Store(s)
	s.enter()
	if c := p.Copies[pick]; c.Reset != nil {
		if err := resetState(c.Reset); err != nil {
			p.Finished(w, false)
			return nil, err
		}
	}
	return p.Copies[pick].Entry, nil
}

// Finished implements finisher: the worker's copy is free for another.
// A copy is reused even when its call did not unwind (the interpreted
// route drops such an interpreter): it cannot be rebuilt, and the next
// load's reset gives it fresh package state all the same.
func (p *NativeCopies) Finished(w *Worker, clean bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i, ok := p.inUse[w]
	if !ok {
		return
	}
	p.slots[w].release()
	delete(p.inUse, w)
	delete(p.slots, w)
	p.held[i] = false
}

// bind points every copy's stand-in variables at replacements that serve
// the copy's current worker.
func (p *NativeCopies) bind() error {
	p.owners = make([]*atomic.Pointer[slot], len(p.Copies))
	p.held = make([]bool, len(p.Copies))
	p.inUse, p.slots = map[*Worker]int{}, map[*Worker]*slot{}
	for i, c := range p.Copies {
		p.owners[i] = &atomic.Pointer[slot]{}
		table := replacements(p.Kit, resolver{p.owners[i]})
		for name, ptr := range c.StandIns {
			path, fn, _ := cutLast(name, ".")
			v, ok := table[path][fn]
			if !ok {
				return fmt.Errorf("faultsim: native copy %d stands in for %s, which the interpreted route does not replace", i, name)
			}
			dst := reflect.ValueOf(ptr)
			if dst.Kind() != reflect.Pointer || dst.Elem().Type() != v.Type() {
				return fmt.Errorf("faultsim: native copy %d: the stand-in for %s is %T, want *%s", i, name, ptr, v.Type())
			}
			dst.Elem().Set(v)
		}
	}
	return nil
}

// replacements are the standard symbols the interpreted route gives code
// other than the standard library's, by import path: the engine's and the
// kit's (Interpreted.packages) and fmt's Print functions, which the
// interpreter points at its output (gointerp.NewInterpreter) and this at
// r's.
func replacements(k Kit, r resolver) map[string]map[string]reflect.Value {
	pkgs := (&Interpreted{kit: k}).packages(r)
	out := map[string]map[string]reflect.Value{}
	for _, path := range gointerp.AllowedStdlib {
		std := gointerp.StdlibSymbols(path)
		for name, v := range pkgs[gointerp.SymbolKey(path)] {
			if !sameSymbol(std[name], v) {
				if out[path] == nil {
					out[path] = map[string]reflect.Value{}
				}
				out[path][name] = v
			}
		}
	}
	if out["fmt"] == nil {
		out["fmt"] = map[string]reflect.Value{}
	}
	out["fmt"]["Print"] = reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprint(r, a...) })
	out["fmt"]["Printf"] = reflect.ValueOf(func(format string, a ...any) (int, error) { return fmt.Fprintf(r, format, a...) })
	out["fmt"]["Println"] = reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprintln(r, a...) })
	return out
}

// sameSymbol reports whether a replacement is the standard symbol itself.
func sameSymbol(std, v reflect.Value) bool {
	if !std.IsValid() || std.Kind() != v.Kind() || std.Type() != v.Type() {
		return false
	}
	switch v.Kind() {
	case reflect.Func, reflect.Pointer:
		return std.Pointer() == v.Pointer()
	}
	return true // a constant: the engine replaces none
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// NativeFiles is a submission made into a native copy's package: the
// submission, rewritten (its package state made resettable, the replaced
// standard names pointed at stand-ins), and the shim beside it, which
// declares the stand-ins and FaultlineCopy() faultsim.NativeCopy.
type NativeFiles struct {
	Source, Shim string
}

// NativeCopyFunc is the function each shim declares.
const NativeCopyFunc = "FaultlineCopy"

const (
	nativePrefix  = "faultlineNative"
	faultsimPath  = "github.com/faultline-dev/faultline/internal/faultsim"
	faultsimLocal = "faultlineFaultsim"
)

// NativeSource writes the native copy of source for kit k: one package,
// which a program builds as many times as it needs copies (each in a
// directory of its own) and passes to NativeCopies.
func NativeSource(k Kit, filename, source string) (NativeFiles, error) {
	if strings.Contains(source, nativePrefix) || strings.Contains(source, faultsimLocal) {
		return NativeFiles{}, fmt.Errorf("faultsim: %s uses identifiers starting with %s, which the native copy reserves", filename, nativePrefix)
	}
	text, resettable, err := gointerp.StateResetText(filename, source)
	if err != nil {
		return NativeFiles{}, fmt.Errorf("faultsim: %s: %w", filename, err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, text, parser.ParseComments)
	if err != nil {
		return NativeFiles{}, fmt.Errorf("faultsim: %s: %w", filename, err)
	}
	table := replacements(k, resolver{})
	local := map[string]string{} // the file's name for an import -> its path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			return NativeFiles{}, fmt.Errorf("faultsim: %s: a dot import of %s has no native copy", filename, path)
		}
		local[name] = path
	}
	declared := map[string]bool{}
	for name := range f.Scope.Objects {
		declared[name] = true
	}

	// The stand-ins the file uses, and the rewrites that use them.
	type standIn struct{ path, name, ident string }
	used := map[string]standIn{}
	type edit struct {
		at, end int
		with    string
	}
	var edits []edit
	var failure error
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || failure != nil {
			return failure == nil
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Obj != nil {
			return true
		}
		path := local[x.Name]
		v, ok := table[path][sel.Sel.Name]
		if !ok {
			return true
		}
		key := path + "." + sel.Sel.Name
		si, ok := used[key]
		if !ok {
			si = standIn{path: path, name: sel.Sel.Name, ident: nativePrefix + "_" + identPart(path) + "_" + sel.Sel.Name}
			switch {
			case v.Kind() == reflect.Pointer && v.IsNil():
				// A type: an alias keeps the name an embedded field
				// has, unless the file declares that name itself.
				if !declared[sel.Sel.Name] {
					si.ident = sel.Sel.Name
				}
			case v.Kind() != reflect.Func:
				failure = fmt.Errorf("faultsim: %s: %s is replaced by a %s, which a native copy cannot stand in for", filename, key, v.Kind())
				return false
			}
			used[key] = si
		}
		edits = append(edits, edit{fset.Position(sel.Pos()).Offset, fset.Position(sel.End()).Offset, si.ident})
		return true
	})
	if failure != nil {
		return NativeFiles{}, failure
	}
	sort.Slice(edits, func(a, b int) bool { return edits[a].at > edits[b].at })
	for _, e := range edits {
		text = text[:e.at] + e.with + text[e.end:]
	}
	// An import whose every use became a stand-in would be unused: keep
	// each with a function of its that nothing replaces.
	names := make([]string, 0, len(local))
	for name := range local {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := local[name]
		if name == "_" || !slices.Contains(gointerp.AllowedStdlib, path) {
			continue
		}
		if keep := keepFunc(path, table[path]); keep != "" {
			text += fmt.Sprintf("\nvar _ = %s.%s\n", name, keep)
		}
	}

	var shim strings.Builder
	imports := map[string]string{faultsimPath: faultsimLocal}
	importOf := func(path string) string {
		if l, ok := imports[path]; ok {
			return l
		}
		l := "faultlineImport_" + identPart(path)
		imports[path] = l
		return l
	}
	keys := make([]string, 0, len(used))
	for key := range used {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	var decls, fields strings.Builder
	for _, key := range keys {
		si := used[key]
		v := table[si.path][si.name]
		if v.Kind() == reflect.Pointer {
			t := v.Type().Elem()
			fmt.Fprintf(&decls, "type %s = %s.%s\n", si.ident, importOf(t.PkgPath()), t.Name())
			continue
		}
		fmt.Fprintf(&decls, "var %s = %s.%s\n", si.ident, importOf(si.path), si.name)
		fmt.Fprintf(&fields, "\t\t%q: &%s,\n", key, si.ident)
	}
	reset := "nil"
	if resettable {
		reset = gointerp.ResetFunc
	}
	fmt.Fprintf(&shim, "// Code generated by faultsim.NativeSource for a native copy of %s. DO NOT EDIT.\n\npackage %s\n\nimport (\n", filename, f.Name.Name)
	paths := make([]string, 0, len(imports))
	for path := range imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		fmt.Fprintf(&shim, "\t%s %q\n", imports[path], path)
	}
	fmt.Fprintf(&shim, ")\n\n%s\n// %s is this copy, for faultsim.NativeCopies.\nfunc %s() %s.NativeCopy {\n\treturn %s.NativeCopy{Entry: %s, Reset: %s, StandIns: map[string]any{\n%s\t}}\n}\n",
		decls.String(), NativeCopyFunc, NativeCopyFunc, faultsimLocal, faultsimLocal, k.Entry().Name, reset, fields.String())
	return NativeFiles{Source: text, Shim: shim.String()}, nil
}

// keepFunc is a function of the standard package path that replaced does
// not hold, in name order: a use of it keeps an import used.
func keepFunc(path string, replaced map[string]reflect.Value) string {
	std := gointerp.StdlibSymbols(path)
	names := make([]string, 0, len(std))
	for name, v := range std {
		if _, ok := replaced[name]; !ok && v.Kind() == reflect.Func {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

func identPart(path string) string {
	return strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(path)
}
