//go:build !nointerp

package refund_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/faultsim/nativebuild"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// TestInterpreterPendingCorpus grades the strangers' files that the
// interpreter runs wrongly (testdata/interp-pending, see its README):
// natively, each correct one must pass every scenario and each broken one
// must be caught at its "// defect:" line, as in the corpus. Interpreted
// they get another verdict, which the grader's native referee overrules;
// the test logs whether they still differ, so that a fix in
// internal/gointerp shows here and the files can move into the corpus,
// where TestInterpretedMatchesNative holds them to identical reports.
func TestInterpreterPendingCorpus(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build the native side")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "interp-pending", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no file waits for an interpreter fix in testdata/interp-pending")
	}
	var subs []nativebuild.Submission
	for _, f := range files {
		subs = append(subs, nativebuild.Submission{Name: filepath.Base(f), Filename: "refund.go", Source: readSource(t, f)})
	}
	native := refundProgram(t).Reports(t, ".", subs, []nativebuild.Job{{FirstSeed: 1, Lanes: diffLanes}}, false)
	for _, s := range subs {
		t.Run(s.Name, func(t *testing.T) {
			var rep faultsim.Report
			if err := json.Unmarshal([]byte(native[s.Name][0]), &rep); err != nil {
				t.Fatal(err)
			}
			want := header(s.Source, "defect")
			failed := rep.Failed()
			if want == "" {
				if header(s.Source, "Style") == "" {
					t.Error(`no "// Style:" or "// defect:" line in the header comment`)
				}
				if len(failed) > 0 || rep.Status != faultsim.StatusPass {
					t.Errorf("a correct solution fails natively: %v", failed)
				}
			} else {
				caught := false
				for _, ids := range failed {
					caught = caught || slices.Contains(ids, want)
				}
				if !caught {
					t.Errorf("natively, nothing caught it at %s; failed: %v", want, failed)
				}
			}
			interp, err := interpreted.GradeSource(t.Context(), refund.Kit{}, scenariosNamed(t), s.Filename, s.Source, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1, Lanes: diffLanes})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(interp, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(string(b)) == strings.TrimSpace(native[s.Name][0]) {
				t.Logf("the interpreter now grades %s as natively: move it into testdata/corpus", s.Name)
			} else {
				t.Logf("interpreted, %s still differs from native (failed: %v)", s.Name, interp.Failed())
			}
		})
	}
}
