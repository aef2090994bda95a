package refund_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/faultsim/nativebuild"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// diffLanes is the lanes of every grade the differential tests compare:
// the native program holds that many runs' worth of copies.
const diffLanes = 2

// refundProgram is the native program of the differential tests.
func refundProgram(t testing.TB) nativebuild.Program {
	t.Helper()
	calls := 0
	for _, sc := range refund.Scenarios(refund.Builtin()) {
		calls = max(calls, len(sc.Plan().Calls))
	}
	return nativebuild.Program{Kit: refund.Kit{}, KitImport: "github.com/faultline-dev/faultline/internal/kits/refund", KitValue: "refund.Kit{}",
		ScenariosFile: "../../../content/" + refund.BuiltinScenariosFile,
		// Each call can be restarted once, on each lane.
		Copies: diffLanes * calls * 2}
}

// diffCorpus is every submission the repository holds: the starter, the
// reference, every mutant, and every file of testdata/corpus.
func diffCorpus(t *testing.T) []nativebuild.Submission {
	sub := func(name, src string) nativebuild.Submission {
		return nativebuild.Submission{Name: name, Filename: "refund.go", Source: src}
	}
	subs := []nativebuild.Submission{sub("starter", readSource(t, starterFile)), sub("reference", readSource(t, referenceFile))}
	for _, f := range mutantFiles(t) {
		subs = append(subs, sub("mutant/"+strings.TrimSuffix(filepath.Base(f), ".patch"), mutantSource(t, f)))
	}
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		subs = append(subs, sub(filepath.Base(filepath.Dir(f))+"/"+strings.TrimSuffix(filepath.Base(f), ".go"), readSource(t, f)))
	}
	return subs
}

// TestInterpretedMatchesNative is the kit's differential test: every
// submission of the corpus is graded through the interpreter and as
// natively compiled copies (native.NativeCopies: each worker of a run
// on a copy of its own, package state reset in its run, and the very
// stand-ins the interpreter gives for time, math/rand, sync and fmt), and
// the two whole reports must be identical. A difference is the
// interpreter changing what the Go code means: it needs a rewrite or a
// refusal in internal/gointerp, never an exception here.
func TestInterpretedMatchesNative(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build the native side")
	}
	subs := diffCorpus(t)
	if raceEnabled || testing.Short() {
		// The race detector makes the interpreter several times slower:
		// under it, and with -short, a sample is compared; the whole
		// corpus without.
		var sample []nativebuild.Submission
		for _, s := range subs {
			if s.Name == "starter" || s.Name == "reference" || strings.HasPrefix(s.Name, "correct/state-") {
				sample = append(sample, s)
			}
		}
		subs = sample
	}
	opt := faultsim.Options{FirstSeed: 1, Lanes: diffLanes}
	native := refundProgram(t).Reports(t, ".", subs, []nativebuild.Job{{FirstSeed: opt.FirstSeed, Lanes: opt.Lanes}}, false)
	for _, s := range subs {
		t.Run(s.Name, func(t *testing.T) {
			rep, err := interpreted.GradeSource(t.Context(), refund.Kit{}, scenariosNamed(t), s.Filename, s.Source, faultsimtest.Bubble(t), opt)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(rep, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			if want := native[s.Name][0]; string(b) != want {
				t.Errorf("the interpreted report differs from the native one:\n%s", lineDiff(want, string(b)))
			}
		})
	}
}

// lineDiff shows the first lines where two texts differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for k := 0; (k < len(w) || k < len(g)) && shown < 12; k++ {
		var wl, gl string
		if k < len(w) {
			wl = w[k]
		}
		if k < len(g) {
			gl = g[k]
		}
		if wl != gl {
			shown++
			fmt.Fprintf(&b, "line %d:\n  native:      %s\n  interpreted: %s\n", k+1, strings.TrimSpace(wl), strings.TrimSpace(gl))
		}
	}
	return b.String()
}
