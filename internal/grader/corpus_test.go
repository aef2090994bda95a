package grader

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// The corpus (testdata/corpus) is solutions of the refund problem written
// the way strangers write them, not the way the reference does: other key
// spellings, every standard jitter scheme, three attempts or six, other
// leases and timeouts, goroutines, tables, state machines. correct/ holds
// solutions that honour everything the problem page states: each must pass
// every scenario, or the grader is judging a choice of the reference rather
// than a property of the page. broken/ holds solutions that each drop one
// safeguard; each names, in a "// defect:" line, the invariant (or defect)
// that must catch it.

// corpusInterpreterLimits are correct solutions that fail today only
// because the interpreter runs a valid form of Go wrongly (work on the
// interpreter's fidelity is separate; see testdata/corpus/README.md). They
// are skipped, not hidden: the skip says why, and says so when the
// solution passes again.
var corpusInterpreterLimits = map[string]string{}

// corpusFalseAlarms are correct solutions the grader still fails for a
// reason of its own: each entry is a false alarm to fix, with the check at
// fault.
var corpusFalseAlarms = map[string]string{}

// corpusEscapes are broken solutions no scenario catches yet.
var corpusEscapes = map[string]string{}

// corpusRaceSample is what the corpus tests grade under -race: the
// solutions whose goroutines exercise the scheduler and the crash model,
// where the race detector earns its cost. The whole corpus costs minutes
// under -race, so .ci/run grades it all once more without it.
var corpusRaceSample = map[string]bool{
	"goroutine_select.go": true, "pipeline_goroutines.go": true, "struct_methods.go": true,
	"check_then_act.go": true, "lease_forever.go": true,
}

func corpusFiles(t *testing.T, kind string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", kind, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// skipOutsideRaceSample skips a corpus file under -race unless it is in
// the sample.
func skipOutsideRaceSample(t *testing.T, name string) {
	t.Helper()
	if serviceTestRace && !corpusRaceSample[name] {
		t.Skip("not in the -race sample; .ci/run grades the whole corpus without -race")
	}
}

// corpusHeader returns the value of the first "// key: value" line of the
// file's leading comment.
func corpusHeader(src, key string) string {
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(line, "//") {
			break
		}
		if v, ok := strings.CutPrefix(line, "// "+key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// skipKnown skips a correct solution listed as failing for a known reason,
// after grading it: the log says whether the reason still holds.
func skipKnown(t *testing.T, name string, rep *Report) {
	t.Helper()
	why, ok := corpusInterpreterLimits[name]
	if !ok {
		why, ok = corpusFalseAlarms[name]
	}
	if !ok {
		return
	}
	if rep != nil && rep.Status == StatusPass {
		t.Skipf("listed as failing (%s) but passes now: take it off the list", why)
	}
	t.Skipf("known failure, not the solution's fault: %s", why)
}

func reportText(r *Report) string {
	var b bytes.Buffer
	r.WriteText(&b)
	return b.String()
}

func TestCorpusCorrectSolutionsPass(t *testing.T) {
	files := corpusFiles(t, "correct")
	if len(files) < 12 {
		t.Fatalf("%d correct solutions in the corpus, want at least 12", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".go"), func(t *testing.T) {
			skipOutsideRaceSample(t, name)
			src := readSource(t, f)
			if corpusHeader(src, "Style") == "" {
				t.Fatal(`no "// Style:" line in the header comment`)
			}
			rep := grade(t, src, 1)
			if rep.Status != StatusPass {
				skipKnown(t, name, rep)
				t.Fatalf("a correct solution fails:\n%s", reportText(rep))
			}
			skipKnown(t, name, rep)
		})
	}
}

func TestCorpusBrokenSolutionsAreCaught(t *testing.T) {
	files := corpusFiles(t, "broken")
	if len(files) < 12 {
		t.Fatalf("%d broken solutions in the corpus, want at least 12", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".go"), func(t *testing.T) {
			skipOutsideRaceSample(t, name)
			src := readSource(t, f)
			want := corpusHeader(src, "defect")
			if invariantTitles[want] == "" && defectTitles[want] == "" {
				t.Fatalf("the header's defect line names %q, which is neither an invariant nor a defect", want)
			}
			rep := grade(t, src, 1)
			if rep.Status == StatusError {
				t.Fatalf("not gradable: %s", rep.Message)
			}
			for _, s := range rep.Scenarios {
				for _, inv := range s.Invariants {
					if inv.Status == InvariantViolated && (inv.ID == want || inv.Defect == want) {
						if _, ok := corpusEscapes[name]; ok {
							t.Fatalf("listed as an escape, but %s caught it in %s: take it off the list", want, s.Name)
						}
						return
					}
				}
			}
			if why, ok := corpusEscapes[name]; ok {
				t.Skipf("known escape: %s", why)
			}
			t.Fatalf("nothing caught it at %s (violations: %v)", want, keys(violated(rep)))
		})
	}
}

// TestCorpusCorrectEverySeed grades every correct solution over many seeds,
// as TestReferencePassesEverySeed does the reference. It takes minutes, so
// it runs only when FAULTLINE_CORPUS_SEEDS says how many seeds (200 for the
// full run):
//
//	FAULTLINE_CORPUS_SEEDS=200 go test ./internal/grader -run TestCorpusCorrectEverySeed
func TestCorpusCorrectEverySeed(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("FAULTLINE_CORPUS_SEEDS"))
	if n <= 0 {
		t.Skip("set FAULTLINE_CORPUS_SEEDS=200 to grade the corpus over 200 seeds")
	}
	for _, f := range corpusFiles(t, "correct") {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".go"), func(t *testing.T) {
			if _, ok := corpusInterpreterLimits[name]; ok {
				skipKnown(t, name, nil)
			}
			if _, ok := corpusFalseAlarms[name]; ok {
				skipKnown(t, name, nil)
			}
			passesEverySeed(t, readSource(t, f), int64(n))
		})
	}
}

// passesEverySeed grades src over seeds 1..seeds: each single-run scenario
// with every seed, each explored scenario with enough starting seeds that
// its schedules cover them all.
func passesEverySeed(t *testing.T, source string, seeds int64) {
	t.Helper()
	src, diags := sandbox.ParseSource("refund.go", source, []string{RefundkitPath})
	if diags != nil {
		t.Fatal(diags)
	}
	prog := newInterpretedProgram(src)
	b := BubbleFromT(t)
	for _, sc := range AsyncRefundSuite() {
		step := int64(1)
		if sc.Explore.Schedules > 1 {
			step = int64(sc.Explore.Schedules)
		}
		limit := seeds
		if sc.Explore.CrashPoints != "" && limit > 40 {
			// Crash runs differ by seed only in the random jitter.
			limit = 40
		}
		t.Run(sc.Name, func(t *testing.T) {
			for seed := int64(1); seed <= limit; seed += step {
				rep := newReport(Job{})
				if err := GradeProgram(context.Background(), Job{Seed: seed, Scenarios: []string{sc.Name}}, prog, b, nil, rep); err != nil {
					t.Fatal(err)
				}
				if rep.Status != StatusPass {
					t.Fatalf("seed %d:\n%s", seed, reportText(rep))
				}
			}
		})
	}
}
