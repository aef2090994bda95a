package refund_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// candidateAPI is everything a refund submission may name in refundkit: the
// calls the problem page describes, their types and errors, and the
// statuses and outcomes. Nothing of the fakes.
var candidateAPI = []string{
	"APIError", "Claim", "ConnectionError", "CreateRefund",
	"ErrAlreadyRefunded", "ErrIdempotencyKeyInUse", "ErrIdempotencyKeyReused", "ErrInvalidRequest",
	"ErrNotFound", "ErrRateLimited", "ErrResourceMissing", "ErrServer",
	"GetRecord", "ListRefunds", "Logf", "MarkDone", "MarkFailed", "MarkNeedsCheck", "MarkProcessing",
	"Outcome", "OutcomeDone", "OutcomeFailed", "OutcomeInProgress", "OutcomeUnknown",
	"ProviderRefund", "Record", "RefundParams",
	"Status", "StatusDone", "StatusFailed", "StatusNeedsCheck", "StatusPending", "StatusProcessing",
	"TimeoutError",
}

// TestHarnessExportsOnlyTheCandidateAPI: the harness package declares the
// candidate's API and nothing else, and the symbols the interpreter gets
// are exactly those (the generated table is not stale). A new export of
// refundkit fails here instead of reaching submissions by default.
func TestHarnessExportsOnlyTheCandidateAPI(t *testing.T) {
	fset := token.NewFileSet()
	// The harness keeps its import path under internal/grader, as stored
	// drafts import it.
	const dir = "../../grader/refundkit"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, dir+"/"+e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for name, obj := range f.Scope.Objects {
			if ast.IsExported(name) && obj.Kind != ast.Bad {
				declared = append(declared, name)
			}
		}
	}
	slices.Sort(declared)
	want := slices.Sorted(slices.Values(candidateAPI))
	if !slices.Equal(declared, want) {
		t.Errorf("refundkit declares %v\nwant the candidate's API %v", declared, want)
	}
	var extracted []string
	for name := range maps.Keys(refund.Symbols[gointerp.SymbolKey(refund.HarnessPath)]) {
		if ast.IsExported(name) {
			extracted = append(extracted, name)
		} else if !strings.HasPrefix(name, "_") {
			t.Errorf("the symbol table has %q", name)
		}
	}
	slices.Sort(extracted)
	if !slices.Equal(extracted, want) {
		t.Errorf("the interpreter's refundkit has %v\nwant %v (re-run go generate ./internal/kits/refund)", extracted, want)
	}
}
