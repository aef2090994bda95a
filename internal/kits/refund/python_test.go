package refund_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/pyrun"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

const (
	pyStarterFile   = "../../../content/problems/async-refund/starter/refund.py"
	pyReferenceFile = "../../../content/problems/async-refund/reference/refund.py"
)

// needPython skips a test where Python cannot grade: no python3, or no
// leave to run it unconfined (pyrun.UnconfinedEnv, until the sandbox
// reports confinement).
func needPython(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	if os.Getenv(pyrun.UnconfinedEnv) != "1" {
		t.Setenv(pyrun.UnconfinedEnv, "1")
	}
}

// gradePython grades Python source against the built-in scenarios.
func gradePython(t *testing.T, source string, opt faultsim.Options) *gradewire.Report {
	t.Helper()
	rep, err := faultsim.GradeSource(context.Background(), []faultsim.Runtime{pyrun.Runtime{}}, refund.Kit{}, refund.Scenarios(refund.Builtin()),
		"refund.py", source, faultsimtest.Bubble(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Wire(opt.FirstSeed)
}

func TestPythonReferencePasses(t *testing.T) {
	needPython(t)
	rep := gradePython(t, readSource(t, pyReferenceFile), faultsim.Options{FirstSeed: 1})
	if rep.Status != faultsim.StatusPass {
		for _, sc := range rep.Scenarios {
			for _, inv := range sc.Invariants {
				if inv.Status != "pass" && inv.Status != "not-checked" {
					t.Errorf("%s: %s %s: %s", sc.Name, inv.ID, inv.Status, inv.Message)
				}
			}
		}
		t.Fatalf("the Python reference: %s %s", rep.Status, rep.Message)
	}
}

// violatedIDs maps each scenario of rep to the invariants it violated.
func violatedIDs(rep *gradewire.Report) map[string][]string {
	out := map[string][]string{}
	for _, sc := range rep.Scenarios {
		for _, inv := range sc.Invariants {
			if inv.Status == "violated" {
				out[sc.Name] = append(out[sc.Name], inv.ID)
			}
		}
	}
	return out
}

// languageDifferences are the scenarios where the two starters, each
// the snippet as its language writes it, break different invariants, and
// why.
var languageDifferences = map[string]struct{ goV, pyV, why string }{
	"load-fails": {"outcome-matches-state", "",
		"Go's starter drops GetRecord's error (rec, _ :=) and panics on the nil record; in Python the load's exception propagates by itself, an error to the caller, as the scenario asks"},
	"caller-deadline-first-request": {"same-key", "no-double-refund same-key expected-end-state",
		"a caller's deadline cancels a Python call (CancelledError, as asyncio.wait_for does) where a Go call only sees its context end: Go's starter goes on, its resends fail fast and it marks the record done; Python's ends at once, leaving the record pending, and the rerun refunds again under a new key"},
}

// TestPythonStarterFailsAsGoStarter: the Python starter has the Go
// starter's seven defects, so every scenario breaks the same invariants
// under the same seed, and the summary lists the same defects unfixed.
func TestPythonStarterFailsAsGoStarter(t *testing.T) {
	needPython(t)
	opt := faultsim.Options{FirstSeed: 1}
	goRep := grade(t, readSource(t, starterFile), opt)
	pyRep := gradePython(t, readSource(t, pyStarterFile), opt)
	goV, pyV := violatedIDs(goRep), violatedIDs(pyRep)
	for _, sc := range goRep.Scenarios {
		g, p := strings.Join(goV[sc.Name], " "), strings.Join(pyV[sc.Name], " ")
		if d, ok := languageDifferences[sc.Name]; ok {
			if g != d.goV || p != d.pyV {
				t.Errorf("%s: the Go starter violates [%s], the Python starter [%s]; want [%s] and [%s] (%s)", sc.Name, g, p, d.goV, d.pyV, d.why)
			}
			continue
		}
		if g != p {
			t.Errorf("%s: the Go starter violates [%s], the Python starter [%s]", sc.Name, g, p)
		}
	}
	if len(pyRep.Scenarios) != len(goRep.Scenarios) {
		t.Errorf("%d scenarios in Python, %d in Go", len(pyRep.Scenarios), len(goRep.Scenarios))
	}
	unfixed := func(r *gradewire.Report) (ids []string) {
		for _, d := range r.Summary.DefectsOfKind(gradewire.DefectKindOriginal) {
			if !d.Fixed {
				ids = append(ids, d.ID)
			}
		}
		return ids
	}
	if g, p := unfixed(goRep), unfixed(pyRep); !slices.Equal(g, p) || len(g) != 7 {
		t.Errorf("defects left: Go %v, Python %v; want the same seven", g, p)
	}
}

// TestPythonReferenceOverSeeds: the Python reference passes every
// scenario under other seeds too, and each grade, made again, is the same
// report byte for byte: the event loop's choices are the engine's.
func TestPythonReferenceOverSeeds(t *testing.T) {
	needPython(t)
	src := readSource(t, pyReferenceFile)
	for _, seed := range []int64{2, 3, 17, 1000} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			opt := faultsim.Options{FirstSeed: seed}
			first := gradePython(t, src, opt)
			if first.Status != faultsim.StatusPass {
				t.Fatalf("seed %d: %s %s", seed, first.Status, first.Message)
			}
			if again := gradePython(t, src, opt); !bytes.Equal(sanitizedJSON(t, first), sanitizedJSON(t, again)) {
				t.Fatalf("seed %d: the report differs on a rerun", seed)
			}
		})
	}
}

// TestPythonGoldenReports grades the Python starter and reference, seed 1,
// against their golden reports (regenerate with -update), twice: a rerun
// is the same report.
func TestPythonGoldenReports(t *testing.T) {
	needPython(t)
	for name, path := range map[string]string{"starter-python": pyStarterFile, "reference-python": pyReferenceFile} {
		t.Run(name, func(t *testing.T) {
			src := readSource(t, path)
			rep := gradePython(t, src, faultsim.Options{FirstSeed: 1})
			rep.Problem = "async-refund"
			got := sanitizedJSON(t, rep)
			again := gradePython(t, src, faultsim.Options{FirstSeed: 1})
			again.Problem = "async-refund"
			if !bytes.Equal(got, sanitizedJSON(t, again)) {
				t.Fatal("the report differs on a rerun")
			}
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the report differs from %s (run go test -run TestPythonGoldenReports -update and review the diff)", golden)
			}
		})
	}
}
