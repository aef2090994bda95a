package gointerp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

func TestParseSourceRefusesImports(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		line     int
		contains string
	}{
		{"os", "package x\n\nimport \"os\"\n", 3, `import "os" is not allowed (line 3): allowed are context, errors`},
		{"os/exec", "package x\n\nimport (\n\t\"fmt\"\n\t\"os/exec\"\n)\n", 5, `import "os/exec" is not allowed (line 5)`},
		{"net/http", "package x\nimport \"net/http\"\n", 2, `"net/http" is not allowed`},
		{"unsafe", "package x\nimport \"unsafe\"\n", 2, `"unsafe" is not allowed`},
		{"reflect", "package x\nimport \"reflect\"\n", 2, `"reflect" is not allowed`},
		{"syscall", "package x\nimport \"syscall\"\n", 2, `"syscall" is not allowed`},
		{"runtime", "package x\nimport \"runtime\"\n", 2, `"runtime" is not allowed`},
		{"renamed", "package x\nimport sys \"syscall\"\n", 2, `"syscall" is not allowed`},
		{"relative", "package x\nimport \"./helpers\"\n", 2, "cannot import source from disk"},
		{"absolute", "package x\nimport \"/etc/passwd\"\n", 2, "cannot import source from disk"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, diags := ParseSource("x.go", tc.src, []string{"example.com/harness"})
			if src != nil || len(diags) != 1 {
				t.Fatalf("got %v, %v", src, diags)
			}
			if diags[0].Line != tc.line || !strings.Contains(diags[0].Message, tc.contains) {
				t.Fatalf("got %s, want line %d containing %q", diags[0], tc.line, tc.contains)
			}
		})
	}
}

func TestParseSourceAllowsTheAllowlist(t *testing.T) {
	var b strings.Builder
	b.WriteString("package x\n\nimport (\n")
	for _, p := range AllowedStdlib {
		b.WriteString("\t_ \"" + p + "\"\n")
	}
	b.WriteString("\th \"example.com/harness\"\n)\n\nvar _ = h.X\n")
	src, diags := ParseSource("x.go", b.String(), []string{"example.com/harness"})
	if diags != nil {
		t.Fatal(diags)
	}
	if src.Imports["h"] != "example.com/harness" {
		t.Fatalf("imports %v", src.Imports)
	}
}

func TestParseSourceSyntaxError(t *testing.T) {
	_, diags := ParseSource("x.go", "package x\n\nfunc F() {\n\tx := \n}\n", nil)
	if len(diags) == 0 || diags[0].Line != 5 || diags[0].Column == 0 || !strings.HasPrefix(diags[0].Message, "syntax error") {
		t.Fatalf("got %v", diags)
	}
}

func TestCheckFunc(t *testing.T) {
	want := []string{"context.Context", "string"}
	results := []string{"example.com/harness.Outcome", "error"}
	tests := []struct {
		name, decl, contains string
	}{
		{"right", "func Run(ctx context.Context, id string) (h.Outcome, error) { return \"\", nil }", ""},
		{"grouped params", "func Run(ctx context.Context, id string) (o h.Outcome, err error) { return }", ""},
		{"missing", "func Other() {}", "declares no function Run"},
		{"wrong param", "func Run(ctx context.Context, id int) (h.Outcome, error) { return \"\", nil }", "wrong signature"},
		{"wrong result", "func Run(ctx context.Context, id string) error { return nil }", "wrong signature"},
		{"method", "type T struct{}\nfunc (T) Run(ctx context.Context, id string) (h.Outcome, error) { return \"\", nil }", "not a method"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code := "package x\n\nimport (\n\t\"context\"\n\th \"example.com/harness\"\n)\n\n" + tc.decl + "\n"
			src, diags := ParseSource("x.go", code, []string{"example.com/harness"})
			if diags != nil {
				t.Fatal(diags)
			}
			d := src.CheckFunc("Run", want, results, "func Run(...)")
			if tc.contains == "" {
				if d != nil {
					t.Fatalf("got %s", d)
				}
				return
			}
			if d == nil || !strings.Contains(d.Message, tc.contains) {
				t.Fatalf("got %v, want %q", d, tc.contains)
			}
		})
	}
}

func TestEvalDiagnostics(t *testing.T) {
	tests := []struct {
		name     string
		code     string
		line     int
		contains string
	}{
		{"type error", "package x\n\nfunc F() int {\n\treturn \"a\"\n}\n", 4, "cannot use"},
		{"undefined", "package x\n\nfunc F() {\n\tnope()\n}\n", 4, "undefined: nope"},
		{"init panics", "package x\n\nfunc init() { panic(\"boom\") }\n", 0, "boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, diags := ParseSource("x.go", tc.code, nil)
			if diags != nil {
				t.Fatal(diags)
			}
			i, err := NewInterpreter(InterpreterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			diags = Eval(i, src)
			if len(diags) == 0 || !strings.Contains(diags[0].Message, tc.contains) {
				t.Fatalf("got %v, want %q", diags, tc.contains)
			}
			if tc.line != 0 && diags[0].Line != tc.line {
				t.Fatalf("got line %d, want %d", diags[0].Line, tc.line)
			}
		})
	}
}

func TestInterpreterSandbox(t *testing.T) {
	t.Run("fmt prints to the interpreter's stdout, capped", func(t *testing.T) {
		out := &faultsim.OutputBuffer{Limit: 16}
		i, err := NewInterpreter(InterpreterOptions{Stdout: out})
		if err != nil {
			t.Fatal(err)
		}
		src, _ := ParseSource("x.go", "package x\n\nimport \"fmt\"\n\nfunc F() {\n\tfor i := 0; i < 10; i++ {\n\t\tfmt.Println(\"hello\", i)\n\t}\n}\n", nil)
		if d := Eval(i, src); d != nil {
			t.Fatal(d)
		}
		v, err := i.Eval("x.F")
		if err != nil {
			t.Fatal(err)
		}
		v.Interface().(func())()
		if out.String() != "hello 0\nhello 1\n" || !out.Truncated() {
			t.Fatalf("output %q truncated %v", out.String(), out.Truncated())
		}
	})
	t.Run("a package outside the allowlist cannot be reached by yaegi either", func(t *testing.T) {
		i, err := NewInterpreter(InterpreterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := i.Eval("package x\n\nimport \"os\"\n\nvar H, _ = os.Hostname()\n"); err == nil {
			t.Fatal("os imported")
		}
	})
	t.Run("YAEGI_ variables are refused", func(t *testing.T) {
		t.Setenv("YAEGI_DOT_CMD", "touch /tmp/pwned")
		if _, err := NewInterpreter(InterpreterOptions{}); err == nil || !strings.Contains(err.Error(), "YAEGI_DOT_CMD") {
			t.Fatalf("got %v", err)
		}
	})
}

func BenchmarkNewInterpreter(b *testing.B) {
	for b.Loop() {
		if _, err := NewInterpreter(InterpreterOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// yaegi v0.16.1 tests only the first condition of `case a, b:` in a switch
// with no tag; ParseSource rewrites such lists so the code means what Go says.
func TestCaseWithSeveralConditions(t *testing.T) {
	code := `package x

func Kind(n int) string {
	switch {
	case n == 1,
		n == 2, n == 3:
		return "small"
	case n < 0:
		return "negative"
	}
	switch n {
	case 7, 8:
		return "tagged"
	}
	return "other"
}

func Broken() int {
	return "x"
}
`
	src, diags := ParseSource("x.go", code, nil)
	if diags != nil {
		t.Fatal(diags)
	}
	i, err := NewInterpreter(InterpreterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	diags = Eval(i, src)
	// The type error on the last function keeps its line after the rewrite.
	if len(diags) == 0 || diags[0].Line != 19 {
		t.Fatalf("want the type error on line 19, got %v", diags)
	}
	fixed := strings.Replace(code, "return \"x\"", "return 0", 1)
	src, _ = ParseSource("x.go", fixed, nil)
	i, _ = NewInterpreter(InterpreterOptions{})
	if diags := Eval(i, src); diags != nil {
		t.Fatal(diags)
	}
	for _, tc := range []struct {
		n    int
		want string
	}{{1, "small"}, {2, "small"}, {3, "small"}, {-4, "negative"}, {8, "tagged"}, {5, "other"}} {
		v, err := i.Eval(fmt.Sprintf("x.Kind(%d)", tc.n))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.String(); got != tc.want {
			t.Errorf("Kind(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestEvalParsesOnce: Eval compiles the tree parsed once for every
// interpreter (evalText), and what loading reports and prints is what
// yaegi's own Eval of the text gives, diagnostics with their lines and
// columns included, in the first interpreter and in later ones. (What the
// forms do once loaded, through Eval, TestFormsMeanWhatGoMeans compares
// with Go's.)
func TestEvalParsesOnce(t *testing.T) {
	forms, err := filepath.Glob(filepath.Join("testdata", "forms", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	top, err := filepath.Glob(filepath.Join("testdata", "forms", "*.go"))
	forms = append(forms, top...)
	if err != nil || len(forms) == 0 {
		t.Fatalf("no forms (%v)", err)
	}
	tests := []struct{ name, code string }{
		{"type error", "package x\n\nfunc F() int {\n\treturn \"a\"\n}\n"},
		{"undefined", "package x\n\nfunc F() {\n\tnope()\n}\n"},
		{"compiler panic", "package x\n\nfunc F() {\n\tfor i := range 10 {\n\t\t_ = i\n\t}\n}\n"},
		{"init panics", "package x\n\nfunc init() { panic(\"boom\") }\n"},
		{"init divides by zero", "package x\n\nvar zero = 0\n\nvar q = 7 / zero\n"},
		{"redeclared", "package x\n\nfunc F() {}\n\nfunc F() {}\n"},
		{"build constraint", "// +build ignore\n\npackage x\n\nfunc F() int { return 1 }\n"},
		{"rewritten line", "package x\n\ntype T struct{ n int }\n\nfunc (t *T) Add(a, b int) int { return t.n + a + b }\n\nfunc F() int { t := &T{}; return t.Add(1, 2, 3) }\n"},
	}
	for _, f := range forms {
		code, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct{ name, code string }{filepath.Base(f), string(code)})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, diags := ParseSource("x.go", tc.code, nil)
			if diags != nil {
				t.Skip("refused before evaluation:", diags[0])
			}
			// yaegi's own parse sees the text only where it must: where it
			// reports the error, or obeys a build constraint.
			f, _ := src.parsedText()
			if own := tc.name == "redeclared" || tc.name == "build constraint"; (f == nil) != own {
				t.Fatalf("parsed once: %v, want %v", f != nil, !own)
			}
			var out [3]bytes.Buffer
			var got [3][]gradewire.Diagnostic
			for k := range out {
				i, err := NewInterpreter(InterpreterOptions{Stdout: &out[k]})
				if err != nil {
					t.Fatal(err)
				}
				if k == 0 {
					got[k] = diagnose(src, func() error { _, err := i.Eval(src.Text); return err })
				} else {
					got[k] = Eval(i, src)
				}
			}
			for k := 1; k < len(got); k++ {
				if !reflect.DeepEqual(got[k], got[0]) {
					t.Errorf("interpreter %d: %v, yaegi's own parse: %v", k, got[k], got[0])
				}
				if out[k].String() != out[0].String() {
					t.Errorf("interpreter %d printed %q, yaegi's own parse %q", k, out[k].String(), out[0].String())
				}
			}
		})
	}
}

// BenchmarkEval compiles one form in a new interpreter per
// iteration, from the tree parsed once (Eval) and as yaegi's own Eval
// parses the text, side by side: what evalText saves each compile of a
// grade after the first.
//
//	go test ./internal/gointerp -run '^$' -bench Eval
func BenchmarkEval(b *testing.B) {
	code, err := os.ReadFile(filepath.Join("testdata", "forms", "embedded.go"))
	if err != nil {
		b.Fatal(err)
	}
	src, diags := ParseSource("embedded.go", string(code), nil)
	if diags != nil {
		b.Fatal(diags)
	}
	for _, c := range []struct {
		name string
		eval func(i *interp.Interpreter) error
	}{
		{"yaegi-parses", func(i *interp.Interpreter) error { _, err := i.Eval(src.Text); return err }},
		{"parsed-once", func(i *interp.Interpreter) error { return evalText(i, src) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				i, err := NewInterpreter(InterpreterOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if err := c.eval(i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
