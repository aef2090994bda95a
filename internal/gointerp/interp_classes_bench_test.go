package gointerp

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParseKitSources is ParseSource (parse, allowlist, every rewrite,
// and the type check where a file has a form that needs it) of the
// kits' references and of forms: the part of a grade the type check
// adds to.
func BenchmarkParseKitSources(b *testing.B) {
	for _, c := range []struct{ name, file string }{
		{"refund-reference", "../../content/problems/async-refund/reference/refund.go"},
		{"createclient-reference", "../../content/problems/idempotent-create-client-code/reference/client.go"},
		{"forms-embedded", "testdata/forms/embedded.go"},
		{"forms-generics", "testdata/forms/generics.go"},
	} {
		text, err := os.ReadFile(c.file)
		if err != nil {
			b.Fatal(err)
		}
		extra := []string{"github.com/faultline-dev/faultline/internal/grader/refundkit", "github.com/faultline-dev/faultline/internal/kits/createclient/createapi"}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, diags := ParseSource(filepath.Base(c.file), string(text), extra); diags != nil {
					b.Fatal(diags)
				}
			}
		})
	}
}
