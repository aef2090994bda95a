package refund_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/faultsim/nativebuild"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// The corpus (testdata/corpus) is solutions of the refund problem written
// the way strangers write them, not the way the reference does: other key
// spellings, every standard jitter scheme, three attempts or six, other
// leases and timeouts, goroutines, tables, state machines. correct/ holds
// solutions that honour everything the problem page states: each must pass
// every scenario, or the kit is judging a choice of the reference rather
// than a property of the page. broken/ holds solutions that each drop one
// safeguard; each names, in a "// defect:" line, the invariant (or defect)
// that must catch it. TestCorpusThroughTheEngine (route_test.go) grades
// them; the tests here keep the corpus what it claims to be and sweep it
// over many seeds.

func corpusFiles(t testing.TB, kind string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", kind, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s corpus: %v", kind, err)
	}
	return files
}

// invariantOrDefect reports whether id names an invariant of the kit's
// catalogue or one of its defects.
func invariantOrDefect(id string) bool {
	for _, inv := range (refund.Kit{}).Invariants() {
		if inv.ID == id {
			return true
		}
	}
	for _, d := range (refund.Kit{}).Defects() {
		if d.ID == id {
			return true
		}
	}
	return false
}

// TestCorpusHeaders: the corpus has at least the twelve correct
// solutions, each saying its style, and twelve broken ones, each naming an
// invariant or defect that exists (else the engine test would look for a
// violation that can never be reported).
func TestCorpusHeaders(t *testing.T) {
	for _, kind := range []string{"correct", "broken"} {
		files := corpusFiles(t, kind)
		if len(files) < 12 {
			t.Errorf("%d %s solutions in the corpus, want at least 12", len(files), kind)
		}
		for _, f := range files {
			src := readSource(t, f)
			switch kind {
			case "correct":
				if header(src, "Style") == "" {
					t.Errorf(`%s: no "// Style:" line in the header comment`, f)
				}
			case "broken":
				if want := header(src, "defect"); !invariantOrDefect(want) {
					t.Errorf("%s: the header's defect line names %q, which is neither an invariant nor a defect", f, want)
				}
			}
		}
	}
}

// scenariosNamed are the built-in scenarios of the names given, in the
// suite's order; none: all of them.
func scenariosNamed(t testing.TB, names ...string) []faultsim.Scenario {
	t.Helper()
	all := refund.Builtin()
	if len(names) == 0 {
		return refund.Scenarios(all)
	}
	var out []refund.Scenario
	for _, sc := range all {
		if slices.Contains(names, sc.Name) {
			out = append(out, sc)
		}
	}
	if len(out) != len(names) {
		t.Fatalf("scenarios %v: only %d are built in", names, len(out))
	}
	return refund.Scenarios(out)
}

// violated maps "scenario invariant" to the evidence, for each violation.
func violated(r *gradewire.Report) map[string]string {
	out := map[string]string{}
	for _, s := range r.Scenarios {
		for _, inv := range s.Invariants {
			if inv.Status == gradewire.InvariantViolated {
				out[s.Name+" "+inv.ID] = inv.Message
			}
		}
	}
	return out
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// mutantExpectations reads the "// expect: <scenario> <invariant>" lines of
// a mutant's header.
func mutantExpectations(t *testing.T, src string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(line, "//") {
			break
		}
		if rest, ok := strings.CutPrefix(line, "// expect:"); ok {
			fields := strings.Fields(rest)
			if len(fields) != 2 {
				t.Fatalf("bad expect line %q: want a scenario and an invariant", line)
			}
			out = append(out, fields[0]+" "+fields[1])
		}
	}
	return out
}

// TestMutantsAreCaught: each hand-written mutant of the reference
// (testdata/mutants) is caught in every scenario at every invariant its
// header expects.
func TestMutantsAreCaught(t *testing.T) {
	files := mutantFiles(t)
	if len(files) < 12 {
		t.Fatalf("found %d mutants, want at least 12", len(files))
	}
	builtin := map[string]bool{}
	for _, s := range refund.Builtin() {
		builtin[s.Name] = true
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".patch"), func(t *testing.T) {
			src := mutantSource(t, f)
			expect := mutantExpectations(t, src)
			if len(expect) == 0 {
				t.Fatal("no expect: lines in the header")
			}
			var names []string
			for _, e := range expect {
				sc, inv, _ := strings.Cut(e, " ")
				if !builtin[sc] || !invariantOrDefect(inv) {
					t.Fatalf("expect %q names an unknown scenario or invariant", e)
				}
				if !slices.Contains(names, sc) {
					names = append(names, sc)
				}
			}
			rep, err := refund.GradeSource(context.Background(), "refund.go", src, scenariosNamed(t, names...), faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status == gradewire.StatusError {
				t.Fatalf("not gradable: %s", rep.Message)
			}
			got := violated(rep)
			for _, e := range expect {
				if _, ok := got[e]; !ok {
					t.Errorf("%s held, want it violated (violations: %v)", e, keys(got))
				}
			}
		})
	}
}

// sweepJob is one scenario graded from one seed.
type sweepJob struct {
	scenario string
	seed     int64
}

// everySeedJobs covers seeds 1..seeds for every scenario: each single-run
// scenario with every seed, each explored scenario with enough starting
// seeds that its schedules cover them all; crash exploration, whose runs
// differ by seed only in the random jitter, up to seed 40.
func everySeedJobs(seeds int64) []sweepJob {
	var jobs []sweepJob
	for _, sc := range refund.Builtin() {
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

// TestCorpusCorrectEverySeed grades every correct solution on every job
// of everySeedJobs, interpreted; then (unless FAULTLINE_CORPUS_NATIVE=0,
// or without a go tool) as native copies too, and every interpreted
// report must be identical to its native twin. It takes many minutes, so
// it runs only when FAULTLINE_CORPUS_SEEDS says how many seeds (200 for
// the full run):
//
//	FAULTLINE_CORPUS_SEEDS=200 go test ./internal/kits/refund -run TestCorpusCorrectEverySeed -timeout 3h
func TestCorpusCorrectEverySeed(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("FAULTLINE_CORPUS_SEEDS"))
	if n <= 0 {
		t.Skip("set FAULTLINE_CORPUS_SEEDS=200 to grade the corpus over 200 seeds")
	}
	jobs := everySeedJobs(int64(n))
	var subs []nativebuild.Submission
	interpreted := map[string][]string{}
	start := time.Now()
	for _, f := range corpusFiles(t, "correct") {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".go"), func(t *testing.T) {
			src := readSource(t, f)
			subs = append(subs, nativebuild.Submission{Name: name, Filename: "refund.go", Source: src})
			interpreted[name] = passesEverySeed(t, src, jobs)
		})
	}
	t.Logf("interpreted: %d files, %d jobs each, in %s", len(subs), len(jobs), time.Since(start).Round(time.Second))
	if os.Getenv("FAULTLINE_CORPUS_NATIVE") == "0" {
		return
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build the native side")
	}
	start = time.Now()
	var njobs []nativebuild.Job
	for _, j := range jobs {
		njobs = append(njobs, nativebuild.Job{FirstSeed: j.seed, Scenarios: []string{j.scenario}, Lanes: diffLanes})
	}
	native := refundProgram(t).Reports(t, ".", subs, njobs, true)
	t.Logf("native: %d files in %s", len(native), time.Since(start).Round(time.Second))
	var differ []string
	for name, hashes := range interpreted {
		for i, h := range hashes {
			if h != "" && native[name][i] != h {
				differ = append(differ, fmt.Sprintf("%s %s %d", name, jobs[i].scenario, jobs[i].seed))
			}
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

// passesEverySeed grades source on every job, interpreted, and fails on a
// job it does not pass; it returns each job's report hash as
// nativebuild.Hash makes it ("" for a job not graded: its scenario had
// already failed).
func passesEverySeed(t *testing.T, source string, jobs []sweepJob) []string {
	t.Helper()
	prog, diags := interpreted.Interpret(refund.Kit{}, "refund.go", source)
	if diags != nil {
		t.Fatal(diags)
	}
	b := faultsimtest.Bubble(t)
	hashes := make([]string, len(jobs))
	failed := map[string]bool{}
	for i, j := range jobs {
		if failed[j.scenario] {
			continue
		}
		rep, err := faultsim.Grade(context.Background(), refund.Kit{}, scenariosNamed(t, j.scenario), prog, b, faultsim.Options{FirstSeed: j.seed, Lanes: diffLanes})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Status != faultsim.StatusPass {
			failed[j.scenario] = true
			t.Errorf("%s, seed %d: %s; failed %v", j.scenario, j.seed, rep.Message, rep.Failed())
			continue
		}
		if hashes[i], err = nativebuild.Hash(rep); err != nil {
			t.Fatal(err)
		}
	}
	return hashes
}
