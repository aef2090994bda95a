package gointerp_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// TestSolutionsNotRefused parses every Go file candidates' code is
// modelled on (the kits' references and starters, the corpus of correct
// and broken solutions, the strangers' files) as a grade does: none may be
// refused. The refusals of rare forms (interp_exotic.go and the others)
// must leave the forms candidates write every day alone. The kits' harness
// symbols are registered as the grading child registers them, for the
// type check the rewrites make.
func TestSolutionsNotRefused(t *testing.T) {
	refundKit, createKit := faultsim.Kit(refund.Kit{}), faultsim.Kit(createclient.Kit{})
	roots := []struct {
		dir string
		kit faultsim.Kit
	}{
		{"../../content/problems/async-refund", refundKit},
		{"../../content/problems/idempotent-create-client-code", createKit},
		{"../kits/createclient/solutions", createKit},
		{"../kits/createclient/testdata", createKit},
		{"../kits/refund/testdata", refundKit},
		{"testdata/strangers/refund", refundKit},
		{"testdata/strangers/createclient", createKit},
	}
	n := 0
	for _, r := range roots {
		h := r.kit.Harness()
		gointerp.RegisterHostSymbols(h.Symbols)
		root := r.dir
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, b, parser.ImportsOnly)
			if err != nil {
				return nil // a file of broken syntax on purpose is not a solution
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !slices.Contains(gointerp.AllowedStdlib, p) && p != h.Path {
					return nil // not a submission to this kit (a forbidden import on purpose)
				}
			}
			n++
			if _, diags := gointerp.ParseResettable(filepath.Base(path), string(b), []string{h.Path}); diags != nil {
				t.Errorf("%s is refused: %v", path, diags)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 150 {
		t.Fatalf("parsed %d solutions, want the whole corpus (150 or more)", n)
	}
}
