package grader

import (
	"go/parser"
	"go/token"
	"testing"
)

func TestHasPackageState(t *testing.T) {
	tests := []struct {
		name string
		decl string
		want bool
	}{
		{"functions and constants only", "const n = 3\nfunc F() int { return n }", false},
		{"a counter", "var calls int", true},
		{"a map", "var seen = map[string]bool{}", true},
		{"a mutex", "var mu sync.Mutex", true},
		{"init", "func init() {}", true},
		{"sentinel errors", "var ErrA = errors.New(\"a\")\nvar ErrB = fmt.Errorf(\"b %d\", 1)", false},
		{"a sentinel reassigned", "var ErrA = errors.New(\"a\")\nfunc F() { ErrA = nil }", true},
		{"a sentinel addressed", "var ErrA = errors.New(\"a\")\nfunc F() *error { return &ErrA }", true},
		{"an error built from a variable", "var ErrA = errors.New(msg)\nconst msg = \"a\"", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n\n"+tc.decl+"\n", 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := hasPackageState(f); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
