//go:build !nointerp

package gointerp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/sandbox"
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
		{"range over int (compiler panic)", "package x\n\nfunc F() {\n\tfor i := range 10 {\n\t\t_ = i\n\t}\n}\n", 4, "range over an integer"},
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
		out := &sandbox.OutputBuffer{Limit: 16}
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
