package refund_test

import (
	"go/format"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Mutants are kept as edits of the reference solution, not as copies of
// it: testdata/mutants/NAME.patch holds the header (Mutant, Removes,
// expect lines), a blank line, then one or more blocks
//
//	<<<<<<< reference
//	text of the reference (it must occur exactly once)
//	=======
//	the mutant's text
//	>>>>>>> mutant
//
// so a change to the reference reaches every mutant, and a block that no
// longer applies fails loudly instead of grading stale code.
const (
	mutantOld = "<<<<<<< reference\n"
	mutantMid = "=======\n"
	mutantEnd = ">>>>>>> mutant\n"
)

// mutantSource returns the mutant as a submission: its header comments,
// a blank line, then the reference with the blocks applied.
func mutantSource(t testing.TB, patchFile string) string {
	t.Helper()
	patch := readSource(t, patchFile)
	header, blocks, ok := strings.Cut(patch, "\n\n")
	if !ok {
		t.Fatalf("%s: no blank line after the header", patchFile)
	}
	src, err := applyMutant(readSource(t, referenceFile), blocks)
	if err != nil {
		t.Fatalf("%s: %v", patchFile, err)
	}
	return header + "\n\n" + src
}

// applyMutant applies the blocks to the reference text, in order.
func applyMutant(ref, blocks string) (string, error) {
	rest := blocks
	n := 0
	for {
		rest = strings.TrimLeft(rest, "\n")
		if rest == "" {
			break
		}
		n++
		body, ok := strings.CutPrefix(rest, mutantOld)
		if !ok {
			return "", &mutantError{n, "does not start with " + strings.TrimSpace(mutantOld)}
		}
		old, after, ok := strings.Cut(body, mutantMid)
		if !ok {
			return "", &mutantError{n, "has no " + strings.TrimSpace(mutantMid)}
		}
		repl, after, ok := strings.Cut(after, mutantEnd)
		if !ok {
			return "", &mutantError{n, "has no " + strings.TrimSpace(mutantEnd)}
		}
		if c := strings.Count(ref, old); c != 1 {
			return "", &mutantError{n, "its reference text occurs " + itoa(c) + " times in the reference, want exactly once (did the reference change?)"}
		}
		ref = strings.Replace(ref, old, repl, 1)
		rest = after
	}
	if n == 0 {
		return "", &mutantError{0, "no blocks: the mutant would be the reference itself"}
	}
	return ref, nil
}

type mutantError struct {
	block int
	msg   string
}

func (e *mutantError) Error() string {
	return "block " + itoa(e.block) + " " + e.msg
}

func itoa(n int) string { return strconv.Itoa(n) }

func mutantFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/mutants/*.patch")
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestApplyMutant(t *testing.T) {
	ref := "a\nb\nc\nb\n"
	tests := []struct {
		name, blocks, want, err string
	}{
		{"one block", mutantOld + "a\n" + mutantMid + "x\n" + mutantEnd, "x\nb\nc\nb\n", ""},
		{"two blocks in order", mutantOld + "a\n" + mutantMid + "x\n" + mutantEnd + "\n" + mutantOld + "c\n" + mutantMid + mutantEnd, "x\nb\nb\n", ""},
		{"ambiguous reference text", mutantOld + "b\n" + mutantMid + "x\n" + mutantEnd, "", "occurs 2 times"},
		{"reference text gone", mutantOld + "z\n" + mutantMid + "x\n" + mutantEnd, "", "occurs 0 times"},
		{"unterminated", mutantOld + "a\n" + mutantMid + "x\n", "", "has no >>>>>>> mutant"},
		{"empty", "\n", "", "no blocks"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyMutant(ref, tc.blocks)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error containing %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// The corpus's state-*.go solutions are the reference with one piece of
// package state added. They are kept as edits of the reference
// (testdata/corpus/state/NAME.patch: a comment paragraph, a blank line,
// then blocks as above, the first of which replaces the package comment
// with the file's "// Style:" line) and generated into
// testdata/corpus/correct/NAME.go, so a change to the reference reaches
// them: TestStateCorpusInStep fails until they are generated again with
//
//	FAULTLINE_UPDATE_CORPUS=1 go test ./internal/kits/refund -run TestStateCorpusInStep
//
// The generated files stay committed so that every corpus test, the
// differential test and a reader see plain Go.
func stateCorpusPatches(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/state/*.patch")
	if err != nil || len(files) == 0 {
		t.Fatalf("no state patches: %v", err)
	}
	return files
}

// stateCorpusSource returns the state solution patchFile makes of the
// reference text ref.
func stateCorpusSource(patch, ref string) (string, error) {
	_, blocks, ok := strings.Cut(patch, "\n\n")
	if !ok {
		return "", &mutantError{0, "no blank line after the header"}
	}
	return applyMutant(ref, blocks)
}

func stateCorpusFile(patchFile string) string {
	return filepath.Join("testdata", "corpus", "correct", strings.TrimSuffix(filepath.Base(patchFile), ".patch")+".go")
}

func TestStateCorpusInStep(t *testing.T) {
	ref := readSource(t, referenceFile)
	update := os.Getenv("FAULTLINE_UPDATE_CORPUS") != ""
	for _, p := range stateCorpusPatches(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			want, err := stateCorpusSource(readSource(t, p), ref)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if b, err := format.Source([]byte(want)); err != nil || string(b) != want {
				t.Fatalf("%s makes a file gofmt would change (or cannot parse: %v)", p, err)
			}
			out := stateCorpusFile(p)
			if update {
				if err := os.WriteFile(out, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got := readSource(t, out); got != want {
				t.Fatalf("%s is not what %s makes of the reference: run FAULTLINE_UPDATE_CORPUS=1 go test ./internal/kits/refund -run TestStateCorpusInStep", out, p)
			}
		})
	}
	// Every state-*.go must come from a patch.
	have, _ := filepath.Glob(filepath.Join("testdata", "corpus", "correct", "state-*.go"))
	if len(have) != len(stateCorpusPatches(t)) {
		t.Errorf("%d state-*.go files in the corpus, %d patches: each must be generated from one", len(have), len(stateCorpusPatches(t)))
	}
}
