package grader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestMutantsAreMade: the operators make mutants of every correct solution
// in the corpus, and each mutant is Go source that parses.
func TestMutantsAreMade(t *testing.T) {
	byOp := map[string]int{}
	files := corpusFiles(t, "correct")
	if testing.Short() || serviceTestRace {
		files = files[:3]
	}
	for _, f := range append(files, referenceFile) {
		ms, err := Mutants(readSource(t, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(ms) == 0 {
			t.Errorf("%s: no mutants", f)
		}
		for _, m := range ms {
			byOp[m.Operator]++
			if m.Source == "" || !strings.Contains(m.Source, "func RefundMoney") {
				t.Errorf("%s %s: no source", f, m.ID)
			}
		}
	}
	for _, op := range MutationOps {
		if byOp[op] == 0 {
			t.Errorf("operator %s made no mutant of the corpus", op)
		}
	}
	t.Logf("mutants per operator: %v", byOp)
}

// mutationVerdict grades a mutant: "killed" (some invariant violated),
// "stillborn" (it does not compile or load) or "survived".
func mutationVerdict(t *testing.T, m Mutant) (string, string) {
	rep := grade(t, m.Source, 1)
	switch rep.Status {
	case StatusError:
		return "stillborn", rep.Message
	case StatusFail:
		return "killed", rep.Message
	}
	return "survived", ""
}

// equivalentMutants are mutants of the reference that survive, each with
// the reason: the change does not change what the code does to money or
// records as the page judges them, or (marked "escape") a scenario is
// still missing. A survivor not listed here fails TestMutationSample. The
// ids carry the reference's line and column: a change to the reference
// moves them, and the test says so.
var equivalentMutants = map[string]string{
	"drop-statement@107:2":    "escape: the re-read after a refused claim never fails in any scenario",
	"negate-condition@107:5":  "escape: the re-read after a refused claim never fails in any scenario",
	"drop-statement@157:2":    "equivalent: connection errors read as ambiguous end needs_check where failed is also right; the page allows both, and needs_check never risks money",
	"drop-statement@164:3":    "equivalent: a replayed 5xx is resent under the same key until the attempts run out: more replays, within the 10-request bound, no money moved",
	"drop-statement@226:3":    "equivalent: a replayed 5xx is resent under the same key until the attempts run out: more replays, within the 10-request bound, no money moved",
	"drop-statement@198:3":    "equivalent: a success is taken as ambiguous and resent: every resend replays it, and the look-up at the end records done; wasteful, not judged",
	"drop-statement@202:3":    "equivalent: a trace line only",
	"drop-statement@203:3":    "equivalent: only the reason text recorded with the status changes",
	"drop-statement@232:3":    "equivalent: one more wait after the last attempt before giving up",
	"drop-statement@236:3":    "equivalent: a Retry-After longer than a minute is waited out; the scenarios ask for at most 5 s, as the page states",
	"drop-statement@237:4":    "equivalent: only the reason text changes",
	"drop-statement@245:4":    "escape: RefundMoney's context is never cancelled in any scenario",
	"negate-condition@245:7":  "escape: RefundMoney's context is never cancelled in any scenario",
	"drop-statement@256:2":    "equivalent: a run that never reached the provider ends needs_check instead of failed: conservative, allowed",
	"drop-statement@263:2":    "equivalent: a refund found after the attempts is left needs_check instead of done: conservative, allowed",
	"return-early@255:1":      "equivalent: needs_check at once when attempts run out, without the look-up: conservative, allowed",
	"drop-statement@288:3":    "equivalent: a trace line only",
	"drop-statement@289:3":    "equivalent: one more wait after the last look-up",
	"negate-condition@289:6":  "escape: look-up retries without a wait: the page's backoff rule judges refund requests only",
	"drop-statement@290:4":    "escape: look-up retries without a wait: the page's backoff rule judges refund requests only",
	"drop-statement@331:2":    "equivalent: a trace line only",
	"negate-condition@331:5":  "equivalent: a trace line only",
	"drop-statement@332:3":    "equivalent: a trace line only",
	"drop-statement@346:3":    "equivalent: a trace line only",
	"drop-statement@349:2":    "equivalent: a trace line only",
	"negate-condition@345:80": "equivalent: trace lines only: the needs_check write happens either way",
	"drop-statement@359:2":    "equivalent: the cap on the wait is reached after 7 doublings; the reference makes at most 5 attempts",
	"drop-statement@360:3":    "equivalent: the cap on the wait is reached after 7 doublings; the reference makes at most 5 attempts",
	"drop-statement@51:2":     "equivalent: a missing record still ends as an error, from the generic load-error branch",
	"drop-statement@57:2":     "equivalent: a done record is refused by the claim and reported done by the re-read",
	"drop-statement@89:4":     "equivalent: a trace line only",
	"drop-statement@83:3":     "escape: no scenario has a needs_check record whose look-up finds nothing and whose send is then refused",
	"swap-cases@113:2":        "escape: no scenario refuses a claim because another run has just recorded failed or needs_check (finished-while-claiming covers done)",
	"zero-constant@196:17":    "equivalent: six attempts instead of five, within the page's bound of 10",
	"zero-constant@276:13":    "equivalent: one more look-up attempt",
	"zero-constant@356:11":    "equivalent: each wait's ceiling doubles once more: still exponential, with jitter",
	"zero-constant@363:54":    "equivalent: the jitter's range shrinks by a nanosecond",
}

// TestMutationSample grades a fixed sample of the reference's mutants (one
// in mutationSampleStep): each must be killed, stillborn, or listed as
// equivalent with its reason. The full run is TestMutationFull.
func TestMutationSample(t *testing.T) {
	const mutationSampleStep = 12
	ms, err := Mutants(readSource(t, referenceFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(ms); i += mutationSampleStep {
		m := ms[i]
		t.Run(m.ID, func(t *testing.T) {
			v, _ := mutationVerdict(t, m)
			if v == "survived" {
				if why, ok := equivalentMutants[m.ID]; ok {
					t.Skipf("equivalent: %s", why)
				}
				t.Fatalf("mutant %s survived every scenario", m.ID)
			}
		})
	}
}

// TestMutationFull grades every mutant of the reference and of every correct
// corpus solution, each in a grading child, and lists the survivors. It
// takes many minutes, so it runs only when asked (=reference: the
// reference's mutants only):
//
//	FAULTLINE_MUTATE=1 go test ./internal/grader -run TestMutationFull -v -timeout 3h
func TestMutationFull(t *testing.T) {
	if os.Getenv("FAULTLINE_MUTATE") == "" {
		t.Skip("set FAULTLINE_MUTATE=1 for the full mutation run")
	}
	// Each mutant is graded in a grading child, as a submission is: a
	// mutant whose goroutine panics (a dropped WaitGroup.Add) ends its
	// process, not the run.
	svc := newTestService(t, sandbox.Limits{WallTime: 60 * time.Second, CPUTime: 20 * time.Second}, 2, 4)
	counts := map[string]map[string]int{}
	var survivors []string
	start := time.Now()
	total := 0
	files := []string{referenceFile}
	if os.Getenv("FAULTLINE_MUTATE") != "reference" {
		files = append(files, corpusFiles(t, "correct")...)
	}
	for _, f := range files {
		ms, err := Mutants(readSource(t, f))
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			m Mutant
			v string
		}
		results := make([]result, len(ms))
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		for i, m := range ms {
			wg.Add(1)
			sem <- struct{}{}
			go func(i int, m Mutant) {
				defer wg.Done()
				defer func() { <-sem }()
				rep, err := svc.Grade(context.Background(), Job{Source: m.Source, Seed: 1}, nil)
				v := "survived"
				switch {
				case err != nil:
					v = "grader-error"
				case rep.Status == StatusFail:
					v = "killed"
				case rep.Status == StatusError && len(rep.Scenarios) > 0:
					v = "killed" // stopped at a limit or a crash after some scenarios: caught
				case rep.Status == StatusError:
					v = "stillborn"
				}
				results[i] = result{m, v}
			}(i, m)
		}
		wg.Wait()
		total += len(ms)
		for _, r := range results {
			m, v := r.m, r.v
			if counts[m.Operator] == nil {
				counts[m.Operator] = map[string]int{}
			}
			counts[m.Operator][v]++
			if v == "survived" {
				why := "UNEXPLAINED"
				if f == referenceFile && equivalentMutants[m.ID] != "" {
					why = equivalentMutants[m.ID]
				}
				survivors = append(survivors, filepath.Base(f)+" "+m.ID+": "+why)
			}
		}
	}
	var lines []string
	for _, op := range MutationOps {
		c := counts[op]
		lines = append(lines, fmt.Sprintf("%-18s killed %4d  stillborn %4d  survived %4d  grader errors %d", op, c["killed"], c["stillborn"], c["survived"], c["grader-error"]))
	}
	sort.Strings(survivors)
	t.Logf("mutation run: %d mutants in %s\n%s\nsurvivors (%d):\n%s", total, time.Since(start).Round(time.Second), strings.Join(lines, "\n"), len(survivors), strings.Join(survivors, "\n"))
}
