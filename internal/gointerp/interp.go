// Package gointerp is the yaegi interpreter that runs submitted Go code,
// with an import allowlist and the rewrites that make yaegi mean what Go
// means. Only the grading child creates interpreters
// (internal/faultsim/interpreted): nothing here limits CPU, memory or goroutines, which
// is the child process's job (internal/sandbox). It is a package of its
// own so the server's parent side, which starts children through
// internal/sandbox, links no interpreter.
//
// yaegi's interp.New reads YAEGI_* environment variables (one of them names
// a command to run for debugging output). The grading child starts with a
// clean environment (see internal/sandbox's Runner), and NewInterpreter refuses to
// run if any YAEGI_* variable is set, so no submission can turn them on.
package gointerp

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/faultline-dev/faultline/internal/gointerp/allowedstd"
	"github.com/traefik/yaegi/interp"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// AllowedStdlib lists the standard packages a submission may import.
var AllowedStdlib = []string{
	"context", "errors", "fmt", "math/rand", "sort", "strconv", "strings", "sync", "sync/atomic", "time",
}

var (
	allowedOnce sync.Once
	allowed     interp.Exports
)

// allowedSymbols returns the allowlisted part of yaegi's stdlib table. The
// maps are shared: callers that change entries must clone them first.
func allowedSymbols() interp.Exports {
	allowedOnce.Do(func() {
		allowed = interp.Exports{}
		for _, p := range AllowedStdlib {
			allowed[SymbolKey(p)] = allowedstd.Symbols[SymbolKey(p)]
		}
	})
	return allowed
}

// StdlibSymbols returns a fresh copy of an allowed package's symbols, for a
// caller that replaces some of them (a virtual sync.Mutex, a seeded
// math/rand). It panics for a package outside the allowlist: that is a bug.
func StdlibSymbols(importPath string) map[string]reflect.Value {
	src, ok := allowedSymbols()[SymbolKey(importPath)]
	if !ok {
		panic("sandbox: " + importPath + " is not an allowed package")
	}
	out := make(map[string]reflect.Value, len(src))
	for k, v := range src {
		out[k] = v
	}
	return out
}

// InterpreterOptions configures NewInterpreter.
type InterpreterOptions struct {
	// Stdout and Stderr receive what the submission prints; nil discards.
	// Wrap them in an OutputBuffer to cap them.
	Stdout, Stderr interface{ Write([]byte) (int, error) }
	// Packages adds host packages (keyed like interp.Exports, see
	// SymbolKey) and replaces allowed standard ones with the same key.
	Packages interp.Exports
}

// NewInterpreter returns a yaegi interpreter that can import only the
// allowlisted standard packages and opts.Packages: no os, net, unsafe,
// reflect or syscall, and no source from disk.
func NewInterpreter(opts InterpreterOptions) (*interp.Interpreter, error) {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "YAEGI_") {
			return nil, fmt.Errorf("sandbox: refusing to interpret with %s set in the environment", kv[:strings.IndexByte(kv, '=')])
		}
	}
	var stdout, stderr = opts.Stdout, opts.Stderr
	if stdout == nil {
		stdout = discard{}
	}
	if stderr == nil {
		stderr = discard{}
	}
	stderr = panicTraceFilter{stderr}
	i := interp.New(interp.Options{
		Stdin:                bytes.NewReader(nil),
		Stdout:               stdout,
		Stderr:               stderr,
		Args:                 []string{},
		Env:                  []string{},
		GoPath:               "/nonexistent/faultline-gopath",
		SourcecodeFilesystem: fstest.MapFS{},
	})
	exports := interp.Exports{}
	for k, v := range allowedSymbols() {
		exports[k] = v
	}
	for k, v := range opts.Packages {
		exports[k] = v
	}
	rt := runtimeFor(stdout) // interp_print.go
	boxes := &boxMethods{}
	boxSymbols(rt, boxes) // interp_boxes.go
	exports[SymbolKey(RuntimePath)] = rt
	exports[SymbolKey(wrapperPath)] = wrapperSymbols
	if e, ok := exports["errors/errors"]; ok {
		exports["errors/errors"] = withErrorsAs(e)
	}
	// fmt's Print functions must write to this interpreter's stdout. yaegi
	// only redirects them when the key is "fmt/fmt", and that key also
	// makes it compile its bundled generic packages (cmp, maps, slices) on
	// every Use: milliseconds per interpreter for packages the allowlist
	// refuses anyway. So redirect them here and register fmt under an
	// equivalent key ("fmt/./fmt" names the same import path and package).
	mapTypes := make(map[reflect.Value][]reflect.Type, len(allowedstd.MapTypes)+3)
	for k, v := range allowedstd.MapTypes {
		mapTypes[k] = v
	}
	fmtSyms, ok := exports["fmt/fmt"]
	if ok {
		f := make(map[string]reflect.Value, len(fmtSyms))
		for k, v := range fmtSyms {
			f[k] = v
		}
		f["Print"] = reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprint(stdout, a...) })
		f["Printf"] = reflect.ValueOf(func(format string, a ...any) (int, error) { return fmt.Fprintf(stdout, format, a...) })
		f["Println"] = reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprintln(stdout, a...) })
		unboxingFmt(f, boxes) // interp_fmt.go
		// yaegi wraps a value of an interpreted type passed to a host
		// function's interface parameter in one interface, the first of
		// those the function's entry in its "." table (allowedstd.MapTypes,
		// keyed by the function's value) lists that the value has. Its
		// entries for fmt list Formatter and Stringer only, so a value
		// with an Error method printed its fields; and the Print
		// functions replaced here had no entry at all, so fmt.Println(x)
		// printed x's fields where Go calls x.String(). fmt's own order:
		// Formatter, then error, then Stringer.
		for _, name := range []string{"Errorf", "Fprint", "Fprintf", "Fprintln", "Print", "Printf", "Println", "Sprint", "Sprintf", "Sprintln"} {
			if _, ok := allowedstd.MapTypes[fmtSyms[name]]; !ok {
				return nil, fmt.Errorf("sandbox: yaegi has no interface mapping for fmt.%s", name)
			}
			mapTypes[fmtSyms[name]] = fmtInterfaces
			mapTypes[f[name]] = fmtInterfaces
		}
		delete(f, "Scan")
		delete(f, "Scanf")
		delete(f, "Scanln")
		delete(exports, "fmt/fmt")
		exports["fmt/./fmt"] = f
	}
	// The "." entry maps functions taking interface{} to the interfaces they
	// look for (fmt.Println and Stringer), so interpreted types get wrapped.
	exports["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(mapTypes)}
	if err := i.Use(exports); err != nil {
		return nil, fmt.Errorf("sandbox: load packages: %w", err)
	}
	return i, nil
}

// fmtInterfaces are the interfaces fmt looks for in an operand, in the
// order it looks.
var fmtInterfaces = []reflect.Type{
	reflect.TypeFor[fmt.Formatter](),
	reflect.TypeFor[fmtError](), // wrappers that format as fmt does (interp_fmt.go)
	reflect.TypeFor[fmtStringer](),
}

// runtimeSymbols is the package the source rewrites call (see
// interp_rewrite.go).
var runtimeSymbols = map[string]reflect.Value{
	"Recovered": reflect.ValueOf(func(v any) any {
		if rv, ok := v.(reflect.Value); ok {
			if !rv.IsValid() || !rv.CanInterface() {
				return nil
			}
			return rv.Interface()
		}
		return v
	}),
}

// panicTrace matches the line yaegi writes to the interpreter's stderr for
// every interpreted frame a panic passes through, recovered or not
// ("48:14: panic: refund.RefundMoney(...)"). A compiled program prints no
// such thing, so it is not the submission's output.
var panicTrace = regexp.MustCompile(`^(?:[^\s:]*:)?\d+:\d+: panic: [^\n]*\(\.\.\.\)\n?$`)

// panicTraceFilter drops yaegi's panic trace lines (one per Write) and
// passes everything else on.
type panicTraceFilter struct {
	w interface{ Write([]byte) (int, error) }
}

func (f panicTraceFilter) Write(p []byte) (int, error) {
	if panicTrace.Match(p) {
		return len(p), nil
	}
	return f.w.Write(p)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Source is submitted Go source that parsed and imports only what it may.
type Source struct {
	Text    string
	Fset    *token.FileSet
	File    *ast.File
	Package string
	// Imports maps each import's local name to its path.
	Imports map[string]string
	// Resettable is set when the file declares ResetFunc (see
	// ParseResettable).
	Resettable bool
	// FixedState is set with Resettable when the reset has nothing to
	// do: every package variable is fixed (see fixedVars) and there is no
	// init function, so one interpreter may serve many processes at once.
	FixedState bool
	// StartsGoroutines is set when the file may run its code on a
	// goroutine of its own: a go statement, or a call of an AfterFunc
	// (time's and context's run a function on a goroutine they start).
	// Without either, a call of the file's code runs on its caller's
	// goroutine alone, and once it returns nothing of it runs on.
	StartsGoroutines bool
	// original is the text as submitted and edits the rewrites that made
	// Text of it (sorted), to give the interpreter's messages the
	// submission's columns (originalPosition).
	original string
	edits    []edit
	// compiled is Text parsed once as yaegi parses what it evaluates, for
	// every interpreter Eval compiles it in (see parsedText).
	compiled struct {
		once  sync.Once
		file  *ast.File // nil: each interpreter parses Text itself
		lines []int
	}
}

// originalPosition is where line and column of Text were in the text as
// submitted. The rewrites keep every line where it was, not the columns
// of the lines they edit.
func (s *Source) originalPosition(line, col int) (int, int) {
	if len(s.edits) == 0 || line < 1 || col < 1 {
		return line, col
	}
	q := 0
	for l := 1; l < line; l++ {
		nl := strings.IndexByte(s.Text[q:], '\n')
		if nl < 0 {
			return line, col
		}
		q += nl + 1
	}
	p := min(originalOffset(s.edits, q+col-1), len(s.original))
	start := strings.LastIndexByte(s.original[:p], '\n') + 1
	return strings.Count(s.original[:start], "\n") + 1, p - start + 1
}

// ParseSource parses one submitted Go file and checks its imports against
// the allowlist plus extra (host packages such as the grader's harness). A
// syntax error, a forbidden import or a relative import is a diagnostic
// with its line; err is only for a nil/empty input mistake.
func ParseSource(filename, text string, extra []string) (*Source, []gradewire.Diagnostic) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, text, parser.ParseComments|parser.AllErrors)
	if err != nil {
		var diags []gradewire.Diagnostic
		if list, ok := err.(scanner.ErrorList); ok {
			for _, e := range list {
				diags = append(diags, gradewire.Diagnostic{Line: e.Pos.Line, Column: e.Pos.Column, Message: "syntax error: " + e.Msg})
				if len(diags) == 10 {
					break
				}
			}
		}
		if len(diags) == 0 {
			diags = append(diags, gradewire.Diagnostic{Message: "syntax error: " + err.Error()})
		}
		return nil, diags
	}
	ok := map[string]bool{}
	for _, p := range AllowedStdlib {
		ok[p] = true
	}
	for _, p := range extra {
		ok[p] = true
	}
	allowedList := strings.Join(append(append([]string(nil), AllowedStdlib...), extra...), ", ")
	src := &Source{Text: text, Fset: fset, File: f, Package: f.Name.Name, Imports: map[string]string{}}
	var diags []gradewire.Diagnostic
	every := map[string]string{} // the imports refused too, for the rewrites' refusals
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		pos := fset.Position(imp.Pos())
		if imp.Name != nil {
			every[imp.Name.Name] = path
		} else {
			every[path[strings.LastIndex(path, "/")+1:]] = path
		}
		switch {
		case strings.HasPrefix(path, ".") || strings.HasPrefix(path, "/"):
			diags = append(diags, gradewire.Diagnostic{Line: pos.Line, Column: pos.Column,
				Message: fmt.Sprintf("import %q is not allowed (line %d): a submission is one file and cannot import source from disk", path, pos.Line)})
			continue
		case !ok[path]:
			diags = append(diags, gradewire.Diagnostic{Line: pos.Line, Column: pos.Column,
				Message: fmt.Sprintf("import %q is not allowed (line %d): allowed are %s", path, pos.Line, allowedList)})
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		src.Imports[name] = path
	}
	if diags != nil {
		// With the forms the interpreter refuses, so that the user sees
		// everything to change at once, in line order.
		_, _, refused := rewriteForInterpreter(fset, f, text, every)
		diags = append(diags, refused...)
		sort.SliceStable(diags, func(a, b int) bool { return diags[a].Line < diags[b].Line })
		return nil, diags
	}
	rewritten, edits, d := rewriteForInterpreter(fset, f, text, src.Imports)
	if d != nil {
		return nil, d
	}
	src.Text, src.original, src.edits = rewritten, text, edits
	src.StartsGoroutines = startsGoroutines(f)
	return src, nil
}

// startsGoroutines reports whether f has a go statement or names an
// AfterFunc (see Source.StartsGoroutines).
func startsGoroutines(f *ast.File) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			found = true
		case *ast.Ident: // a selector's name too, and a dot import's
			found = found || n.Name == "AfterFunc"
		}
		return !found
	})
	return found
}

// TypeString prints a type expression of the source with import names
// replaced by their paths ("github.com/x/refundkit.Outcome").
func (s *Source) TypeString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok {
			if p, ok := s.Imports[x.Name]; ok {
				return p + "." + t.Sel.Name
			}
			return x.Name + "." + t.Sel.Name
		}
	case *ast.StarExpr:
		return "*" + s.TypeString(t.X)
	case *ast.ArrayType:
		if t.Len == nil {
			return "[]" + s.TypeString(t.Elt)
		}
	case *ast.MapType:
		return "map[" + s.TypeString(t.Key) + "]" + s.TypeString(t.Value)
	case *ast.InterfaceType:
		if t.Methods == nil || len(t.Methods.List) == 0 {
			return "interface{}"
		}
	}
	return "?"
}

// CheckFunc checks that the source declares a top-level function name with
// exactly these parameter and result types (written with import paths, as
// TypeString prints them). want is how the signature is shown to the user.
func (s *Source) CheckFunc(name string, params, results []string, want string) *gradewire.Diagnostic {
	var method *gradewire.Diagnostic
	for _, d := range s.File.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name {
			continue
		}
		pos := s.Fset.Position(fd.Pos())
		bad := &gradewire.Diagnostic{Line: pos.Line, Column: pos.Column,
			Message: fmt.Sprintf("%s has the wrong signature: want %s", name, want)}
		if fd.Recv != nil {
			bad.Message = fmt.Sprintf("%s must be a plain function, not a method: want %s", name, want)
			method = bad
			continue
		}
		if fd.Type.TypeParams != nil && len(fd.Type.TypeParams.List) > 0 {
			return bad
		}
		if !sameTypes(s, fd.Type.Params, params) || !sameTypes(s, fd.Type.Results, results) {
			return bad
		}
		return nil
	}
	if method != nil {
		return method
	}
	return &gradewire.Diagnostic{Message: fmt.Sprintf("the file declares no function %s: want %s", name, want)}
}

func sameTypes(s *Source, fl *ast.FieldList, want []string) bool {
	var got []string
	if fl != nil {
		for _, f := range fl.List {
			n := len(f.Names)
			if n == 0 {
				n = 1
			}
			for k := 0; k < n; k++ {
				got = append(got, s.TypeString(f.Type))
			}
		}
	}
	if len(got) != len(want) {
		return false
	}
	for k := range got {
		if got[k] != want[k] {
			return false
		}
	}
	return true
}

// evalText evaluates src.Text in i as i.Eval(src.Text) does, but from the
// syntax tree parsed once for every interpreter: a grade compiles its
// submission in several interpreters (one per lane, one per worker for a
// submission with package state), and yaegi's parse was about a quarter
// of each compile (in a profile of a grade of the refund reference with a
// package-level random source, 5.9% of its CPU time out of 22% compiling).
// yaegi reads the tree without changing it, so interpreters compiling at
// once may share it; its positions name the file as yaegi's own parse of
// Eval's text does, so messages are the same.
func evalText(i *interp.Interpreter, src *Source) error {
	f, lines := src.parsedText()
	fset := i.FileSet()
	if f == nil || fset.Base() != 1 {
		_, err := i.Eval(src.Text)
		return err
	}
	// The tree was parsed into a file set of its own as the first file, at
	// base 1; registered at the same base here, its positions read the
	// same lines and columns in i's file set.
	tf := fset.AddFile(interp.DefaultSourceName, 1, len(src.Text))
	if !tf.SetLines(lines) {
		// Cannot happen (the lines are the text's own); if it did, the
		// fault would be ours, not the submission's: let yaegi parse.
		_, err := i.Eval(src.Text)
		return err
	}
	prog, err := i.CompileAST(f)
	if err != nil {
		return err
	}
	_, err = i.Execute(prog)
	return err
}

// parsedText is Text parsed as yaegi's Eval parses it (declaration errors
// reported, comments kept) and its lines' offsets, once. It is nil where
// yaegi's own parse must see the text: where that parse fails (so its
// message is yaegi's), or where the file may have a build constraint,
// which yaegi's Eval obeys.
func (s *Source) parsedText() (*ast.File, []int) {
	c := &s.compiled
	c.once.Do(func() {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, interp.DefaultSourceName, s.Text, parser.DeclarationErrors|parser.ParseComments)
		if err != nil || hasBuildConstraint(f) {
			return
		}
		tf := fset.File(f.Pos())
		if tf == nil || tf.Base() != 1 {
			return
		}
		c.file, c.lines = f, tf.Lines()
	})
	return c.file, c.lines
}

// hasBuildConstraint reports whether a comment before the package clause
// may be one yaegi's Eval obeys: a "+build" line, which can make it skip
// the file, or "yaegi:tags" (a //go:build line it ignores).
func hasBuildConstraint(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() >= f.Package {
			break
		}
		for _, c := range g.List {
			if strings.Contains(c.Text, "+build") || strings.Contains(c.Text, "yaegi:tags") {
				return true
			}
		}
	}
	return false
}

// yaegiPosition matches the "file:line:col: message" of yaegi's errors.
var yaegiPosition = regexp.MustCompile(`(?m)^(?:[^\s:]*:)?(\d+):(\d+): (.*)$`)

// yaegiTypeName matches yaegi's internal type names ("stringT") in messages.
var yaegiTypeName = regexp.MustCompile(`type (\w+)T\b`)

// Eval compiles and runs the source's package in i (its init functions and
// package variables). A compile or type error, or a panic of yaegi's
// compiler or of the submission's init, is returned as diagnostics with the
// line when yaegi names one.
func Eval(i *interp.Interpreter, src *Source) []gradewire.Diagnostic {
	return diagnose(src, func() error { return evalText(i, src) })
}

// diagnose runs eval, an evaluation of src, and gives what went wrong as
// Eval does.
func diagnose(src *Source, eval func() error) (diags []gradewire.Diagnostic) {
	defer func() {
		if r := recover(); r != nil {
			diags = []gradewire.Diagnostic{compilerPanic(src, r)}
		}
	}()
	err := eval()
	if err == nil {
		return nil
	}
	if p := (interp.Panic{}); errors.As(err, &p) {
		// yaegi recovers a panic of the package's initialisation and
		// returns its bare value ("boom"), which says nothing of where.
		return []gradewire.Diagnostic{{Message: "loading the code panicked in package initialisation: " + err.Error()}}
	}
	diags = ErrorDiagnostics(err)
	for k := range diags {
		diags[k].Line, diags[k].Column = src.originalPosition(diags[k].Line, diags[k].Column)
	}
	if generic(src.File) {
		for k := range diags {
			if strings.Contains(diags[k].Message, "cannot use type") {
				diags[k].Message += genericHint
			}
		}
	}
	return diags
}

// genericHint ends a message about a file with type parameters: yaegi's
// inference of type arguments fails on calls that pass a function literal
// or a harness type, sometimes as a wrong type, sometimes by crashing its
// compiler.
const genericHint = " (if this is a call of a generic function, the interpreter may have inferred its type arguments wrongly: write them explicitly, as in F[int, string](...))"

// generic reports whether the file declares type parameters.
func generic(f *ast.File) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncType:
			found = found || n.TypeParams != nil && len(n.TypeParams.List) > 0
		case *ast.TypeSpec:
			found = found || n.TypeParams != nil && len(n.TypeParams.List) > 0
		}
		return !found
	})
	return found
}

// ErrorDiagnostics turns a yaegi error into diagnostics.
func ErrorDiagnostics(err error) []gradewire.Diagnostic {
	msg := err.Error()
	var diags []gradewire.Diagnostic
	for _, m := range yaegiPosition.FindAllStringSubmatch(msg, 10) {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		diags = append(diags, gradewire.Diagnostic{Line: line, Column: col, Message: yaegiTypeName.ReplaceAllString(m[3], "type $1")})
	}
	if len(diags) == 0 {
		diags = []gradewire.Diagnostic{{Message: msg}}
	}
	return diags
}

// compilerPanic explains a panic that escaped yaegi's Eval: the known
// unsupported constructs by line, anything else with its message.
func compilerPanic(src *Source, r any) gradewire.Diagnostic {
	msg := fmt.Sprint(r)
	if d := unsupported(src); d != nil {
		return *d
	}
	if d := crashCause(src); d != nil { // interp_refuse.go
		return *d
	}
	if m := yaegiPosition.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		d := gradewire.Diagnostic{Line: line, Column: col, Message: "the interpreter failed on this code: " + m[3]}
		if generic(src.File) {
			d.Message += genericHint
		}
		return d
	}
	return lineOfCompilerPanic(src, msg) // interp_classes.go
}

// unsupported finds constructs the interpreter cannot handle: a range over
// an integer (Go 1.22) crashes yaegi's compiler.
func unsupported(src *Source) *gradewire.Diagnostic {
	var found *gradewire.Diagnostic
	ast.Inspect(src.File, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		rs, ok := n.(*ast.RangeStmt)
		if !ok {
			return true
		}
		if rangesOverInt(src, rs.X) && src.lineHas(src.Fset.Position(rs.For).Line, "range") {
			pos := src.Fset.Position(rs.Pos())
			found = &gradewire.Diagnostic{Line: pos.Line, Column: pos.Column,
				Message: "range over an integer is not supported by the interpreter: write for i := 0; i < n; i++ instead"}
		}
		return true
	})
	return found
}

// lineHas reports whether line n of the rewritten text contains word (the
// rewrites keep lines where they were: a range they rewrote is gone).
func (s *Source) lineHas(n int, word string) bool {
	lines := strings.SplitN(s.Text, "\n", n+1)
	return n >= 1 && n <= len(lines) && strings.Contains(lines[n-1], word)
}

func rangesOverInt(src *Source, x ast.Expr) bool {
	switch e := x.(type) {
	case *ast.BasicLit:
		return e.Kind == token.INT
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok {
			return id.Name == "len" || id.Name == "cap" || id.Name == "int"
		}
	case *ast.BinaryExpr:
		return rangesOverInt(src, e.X) || rangesOverInt(src, e.Y)
	case *ast.ParenExpr:
		return rangesOverInt(src, e.X)
	case *ast.Ident:
		// A constant or variable declared as an integer in the file.
		if e.Obj != nil {
			switch d := e.Obj.Decl.(type) {
			case *ast.ValueSpec:
				for k, n := range d.Names {
					if n.Name != e.Name {
						continue
					}
					if d.Type != nil {
						if t, ok := d.Type.(*ast.Ident); ok && strings.Contains(t.Name, "int") {
							return true
						}
					}
					if k < len(d.Values) {
						return rangesOverInt(src, d.Values[k])
					}
				}
			case *ast.AssignStmt:
				for k, l := range d.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == e.Name && k < len(d.Rhs) {
						return rangesOverInt(src, d.Rhs[k])
					}
				}
			}
		}
	}
	return false
}
