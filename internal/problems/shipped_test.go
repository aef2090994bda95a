package problems_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/problems"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

// TestShippedContentLoads is the lint of the content that ships in the
// binary: it must load with no diagnostic at all.
func TestShippedContentLoads(t *testing.T) {
	for _, d := range problems.Lint(content.FS) {
		t.Errorf("%s", d)
	}
	c, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"async-refund", "idempotent-create-client"} {
		if _, ok := c.Problem(slug); !ok {
			t.Errorf("problem %q is not in the shipped content", slug)
		}
	}
}

// TestAsyncRefundGolden pins the parsed refund problem, rendered HTML
// included, so a change to the loader or to the content shows up as a diff.
// After an intended change, run: go test ./internal/problems -run Golden -update
func TestAsyncRefundGolden(t *testing.T) {
	c, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := c.Problem("async-refund")
	if !ok {
		t.Fatal("async-refund not found")
	}
	got, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "async-refund.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("parsed async-refund differs from %s; first difference near byte %d:\n got: %s\nwant: %s\n(run with -update if the change is intended)",
			golden, firstDiff(got, want), excerpt(got, firstDiff(got, want)), excerpt(want, firstDiff(got, want)))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func excerpt(b []byte, at int) string {
	start, end := max(at-80, 0), min(at+80, len(b))
	return string(b[start:end])
}

func BenchmarkLoadShippedContent(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := problems.Load(content.FS); err != nil {
			b.Fatal(err)
		}
	}
}
