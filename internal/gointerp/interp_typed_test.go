//go:build !nointerp

package gointerp

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParseSource parses, checks and rewrites the refund problem's
// reference solution, as every grade does once: what the rewrites cost,
// the type-checked ones (interp_typed.go) included.
//
//	go test ./internal/gointerp -run '^$' -bench ParseSource
func BenchmarkParseSource(b *testing.B) {
	text, err := os.ReadFile(filepath.Join("..", "..", "content", "problems", "async-refund", "reference", "refund.go"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, diags := ParseSource("refund.go", string(text), []string{"github.com/faultline-dev/faultline/internal/grader/refundkit"}); diags != nil {
			b.Fatal(diags)
		}
	}
}
