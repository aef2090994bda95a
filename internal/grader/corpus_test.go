package grader

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gointerp"
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
			if InvariantTitle(want) == "" && defectTitles[want] == "" {
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
// as TestReferencePassesEverySeed does the reference, interpreted; then
// (unless FAULTLINE_CORPUS_NATIVE=0, or without a go tool) natively too,
// and every interpreted report must be identical to its native twin once
// timings are removed. It takes many minutes, so it runs only when
// FAULTLINE_CORPUS_SEEDS says how many seeds (200 for the full run):
//
//	FAULTLINE_CORPUS_SEEDS=200 go test ./internal/grader -run TestCorpusCorrectEverySeed -timeout 3h
func TestCorpusCorrectEverySeed(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("FAULTLINE_CORPUS_SEEDS"))
	if n <= 0 {
		t.Skip("set FAULTLINE_CORPUS_SEEDS=200 to grade the corpus over 200 seeds")
	}
	jobs := everySeedJobs(int64(n))
	var subs []diffSubmission
	interpreted := map[string]string{}
	start := time.Now()
	for _, f := range corpusFiles(t, "correct") {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".go"), func(t *testing.T) {
			if _, ok := corpusInterpreterLimits[name]; ok {
				skipKnown(t, name, nil)
			}
			if _, ok := corpusFalseAlarms[name]; ok {
				skipKnown(t, name, nil)
			}
			src := readSource(t, f)
			subs = append(subs, diffSubmission{name, src})
			for k, h := range passesEverySeed(t, name, src, jobs) {
				interpreted[k] = h
			}
		})
	}
	t.Logf("interpreted: %d files, %d jobs each, %d reports, in %s", len(subs), len(jobs), len(interpreted), time.Since(start).Round(time.Second))
	if os.Getenv("FAULTLINE_CORPUS_NATIVE") == "0" {
		return
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build the native side")
	}
	start = time.Now()
	native := gradeNativelySweep(t, subs, jobs)
	t.Logf("native: %d reports in %s", len(native), time.Since(start).Round(time.Second))
	var differ []string
	for k, h := range interpreted {
		if native[k] != h {
			differ = append(differ, k)
		}
	}
	sort.Strings(differ)
	if len(differ) > 0 {
		if len(differ) > 20 {
			differ = append(differ[:20], "...")
		}
		t.Errorf("%d interpreted reports differ from their native twins (submission, scenario, seed):\n%s", len(differ), strings.Join(differ, "\n"))
	}
}

// everySeedJobs covers seeds 1..seeds for every scenario: each single-run
// scenario with every seed, each explored scenario with enough starting
// seeds that its schedules cover them all; crash exploration, whose runs
// differ by seed only in the random jitter, up to seed 40.
func everySeedJobs(seeds int64) []sweepJob {
	var jobs []sweepJob
	for _, sc := range AsyncRefundSuite() {
		step := int64(1)
		if sc.Explore.Schedules > 1 {
			step = int64(sc.Explore.Schedules)
		}
		limit := seeds
		if sc.Explore.CrashPoints != "" && limit > 40 {
			limit = 40
		}
		for seed := int64(1); seed <= limit; seed += step {
			jobs = append(jobs, sweepJob{sc.Name, seed})
		}
	}
	return jobs
}

// passesEverySeed grades source on every job, interpreted, and fails on a
// job it does not pass; it returns each report's SHA-256 by sweepKey.
func passesEverySeed(t *testing.T, name, source string, jobs []sweepJob) map[string]string {
	t.Helper()
	src, diags := gointerp.ParseSource("refund.go", source, []string{RefundkitPath})
	if diags != nil {
		t.Fatal(diags)
	}
	prog := newInterpretedProgram(src)
	b := BubbleFromT(t)
	hashes := map[string]string{}
	failed := map[string]bool{}
	for _, j := range jobs {
		if failed[j.scenario] {
			continue
		}
		job := Job{Seed: j.seed, Scenarios: []string{j.scenario}}
		rep := newReport(job)
		if err := GradeProgram(context.Background(), job, prog, b, nil, rep); err != nil {
			t.Fatal(err)
		}
		if rep.Status != StatusPass {
			failed[j.scenario] = true
			t.Errorf("%s, seed %d:\n%s", j.scenario, j.seed, reportText(rep))
			continue
		}
		hashes[sweepKey(name, j)] = fmt.Sprintf("%x", sha256.Sum256(sanitizedJSON(t, rep)))
	}
	return hashes
}
