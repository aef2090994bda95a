package interpreted

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
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/native"
	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// replacements are the standard symbols the interpreted route gives code
// other than the standard library's, by import path: the engine's and the
// kit's (Interpreted.packages) and fmt's Print functions, which the
// interpreter points at its output (gointerp.NewInterpreter) and this at
// r's.
func replacements(k faultsim.Kit, r faultsim.Resolver) map[string]map[string]reflect.Value {
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

// NativeFiles is a submission made into a native copy's package: the
// submission, rewritten (its package state made resettable, the replaced
// standard names pointed at stand-ins), and the shim beside it, which
// declares the stand-ins and FaultlineCopy() native.NativeCopy.
type NativeFiles struct {
	Source, Shim string
	// Stateful is whether the file has package state, which each worker
	// must have its own copy of; without it one copy serves every worker
	// (NativeCopies.Shared), as one interpreter does.
	Stateful bool
}

// NativeCopyFunc is the function each shim declares.
const NativeCopyFunc = "FaultlineCopy"

const (
	nativePrefix  = "faultlineNative"
	faultsimPath  = "github.com/faultline-dev/faultline/internal/faultsim"
	faultsimLocal = "faultlineFaultsim"
	// The shim names the native route's package so (a name the prefix
	// reserves).
	nativePath  = "github.com/faultline-dev/faultline/internal/faultsim/native"
	nativeLocal = nativePrefix + "Route"
)

// NativeSource writes the native copy of source for kit k: one package,
// which a program builds as many times as it needs copies (each in a
// directory of its own) and passes to NativeCopies.
func NativeSource(k faultsim.Kit, filename, source string) (NativeFiles, error) {
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
	table := replacements(k, faultsim.Resolver{})
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
	imports := map[string]string{nativePath: nativeLocal}
	importOf := func(path string) string {
		if l, ok := imports[path]; ok {
			return l
		}
		l := "faultlineImport_" + identPart(path)
		if path == faultsimPath {
			l = faultsimLocal // the engine's stand-in types
		}
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
	fmt.Fprintf(&shim, "// Code generated by interpreted.NativeSource for a native copy of %s. DO NOT EDIT.\n\npackage %s\n\nimport (\n", filename, f.Name.Name)
	paths := make([]string, 0, len(imports))
	for path := range imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		fmt.Fprintf(&shim, "\t%s %q\n", imports[path], path)
	}
	fmt.Fprintf(&shim, ")\n\n%s\n// %s is this copy, for native.NativeCopies.\nfunc %s() %s.NativeCopy {\n\treturn %s.NativeCopy{Entry: %s, Reset: %s, StandIns: map[string]any{\n%s\t}}\n}\n",
		decls.String(), NativeCopyFunc, NativeCopyFunc, nativeLocal, nativeLocal, k.Entry().Name, reset, fields.String())
	return NativeFiles{Source: text, Shim: shim.String(), Stateful: resettable}, nil
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

// NativeProgramFor is the native copy of job's submission for the native
// referee (gradewire.NativeProgram), or why it has none: an import the
// interpreted route does not allow is refused here too, before anything
// is built, so the native build compiles only what the allowlist admits
// (no cgo, no unsafe, no go:linkname, no go:embed, none of os or net).
func NativeProgramFor(kits []faultsim.Kit, job faultsim.Job) *gradewire.NativeProgram {
	k, err := faultsim.JobKit(kits, job)
	if err != nil {
		return &gradewire.NativeProgram{Refused: err.Error()}
	}
	scenarios, err := faultsim.JobScenarios(k, job)
	if err != nil {
		return &gradewire.NativeProgram{Refused: err.Error()}
	}
	file := filepath.Base(job.File)
	if !strings.HasSuffix(file, ".go") || file == nativeShimFile || strings.HasSuffix(file, "_test.go") {
		file = "submission.go"
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, job.Source, parser.ImportsOnly)
	if err != nil {
		return &gradewire.NativeProgram{Refused: fmt.Sprintf("%s does not parse: %v", file, err)}
	}
	allowed := append(slices.Clone(gointerp.AllowedStdlib), k.Harness().Path)
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !slices.Contains(allowed, path) {
			return &gradewire.NativeProgram{Refused: fmt.Sprintf("%s imports %q, which the grader does not allow", file, path)}
		}
	}
	files, err := NativeSource(k, file, job.Source)
	if err != nil {
		return &gradewire.NativeProgram{Refused: err.Error()}
	}
	copies := 1 // one copy serves every worker (NativeCopies.Shared)
	if files.Stateful {
		copies = native.NativeCopiesNeeded(scenarios)
	}
	t := reflect.TypeOf(k)
	if t.Kind() != reflect.Struct || t.Name() == "" {
		return &gradewire.NativeProgram{Refused: fmt.Sprintf("faultsim: kit %s is a %s, not a named struct the native program can name", k.Name(), t)}
	}
	return &gradewire.NativeProgram{KitImport: t.PkgPath(), KitValue: t.String() + "{}",
		Files:  map[string]string{file: files.Source, nativeShimFile: files.Shim},
		Copies: copies}
}

// nativeShimFile is the name of the shim NativeSource writes, in a native
// copy's package.
const nativeShimFile = "faultline_native.go"
