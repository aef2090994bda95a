//go:build !nointerp

package grader

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gointerp"
)

// stateFiles are the correct solutions with package state (corpus files
// named state-*.go).
func stateFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "correct", "state-*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no state-*.go solutions in the corpus: %v", err)
	}
	return files
}

// TestResetStateMatchesFreshInterpreters grades each solution with package
// state twice: reusing one interpreter per worker and resetting its
// package state before each run, and with a fresh interpreter for every
// worker of every run (what a new process gives). The reports must be the
// same, and the reuse must compile far fewer interpreters.
func TestResetStateMatchesFreshInterpreters(t *testing.T) {
	job := Job{Seed: 3, Scenarios: []string{"two-concurrent", "redelivery", "crash-and-rerun", "helper-panics", "all-attempts-fail"}}
	files := stateFiles(t)
	if serviceTestRace {
		// A fresh interpreter per worker is what costs, several times more
		// under the race detector: two of the variants then.
		files = []string{filepath.Join("testdata", "corpus", "correct", "state-mutex.go"), filepath.Join("testdata", "corpus", "correct", "state-rand-source.go")}
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".go"), func(t *testing.T) {
			text := readSource(t, path)
			plain, diags := gointerp.ParseSource("refund.go", text, []string{RefundkitPath})
			if diags != nil {
				t.Fatal(diags)
			}
			resettable, diags := gointerp.ParseResettable("refund.go", text, []string{RefundkitPath})
			if diags != nil {
				t.Fatal(diags)
			}
			reused, fresh := newInterpretedProgram(resettable), newInterpretedProgram(plain)
			if !reused.resettable || fresh.stateless || fresh.resettable {
				t.Fatalf("resettable %v; the plain source stateless %v, resettable %v", reused.resettable, fresh.stateless, fresh.resettable)
			}
			var reports [2][]byte
			for i, p := range []*interpretedProgram{reused, fresh} {
				rep := newReport(job)
				if err := GradeProgram(context.Background(), job, p, BubbleFromT(t), nil, rep); err != nil {
					t.Fatal(err)
				}
				if rep.Status != StatusPass {
					t.Fatalf("program %d: %s", i, rep.Message)
				}
				reports[i] = sanitizedJSON(t, rep)
			}
			if !bytes.Equal(reports[0], reports[1]) {
				t.Fatal("resetting the package state gave another report than fresh interpreters")
			}
			if reused.compiled*4 > fresh.compiled {
				t.Fatalf("reuse compiled %d interpreters, fresh %d: the reset does not save compiles", reused.compiled, fresh.compiled)
			}
		})
	}
}

// TestResetStartsEveryRunAfresh checks what the reset restores: a counter
// in a package variable, a mutex held when the run ended, a map written by
// the run, and an init function's work, all as a new process has them.
func TestResetStartsEveryRunAfresh(t *testing.T) {
	src := header + `import "sync"

var (
	mu    sync.Mutex
	calls int
	seen  = map[string]int{}
	ready bool
)

func init() { ready = true }

func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	if !mu.TryLock() {
		panic("the mutex is still held from an earlier run")
	}
	calls++
	seen[id]++
	if calls != 1 || seen[id] != 1 || !ready {
		panic(fmt.Sprintf("state from an earlier run: calls %d, seen %d, ready %v", calls, seen[id], ready))
	}
	return "", fmt.Errorf("stop here")
}
`
	src = strings.Replace(src, "import (\n\t\"context\"\n", "import (\n\t\"context\"\n\t\"fmt\"\n", 1)
	src = strings.Replace(src, "import \"sync\"\n", "", 1)
	src = strings.Replace(src, "\t\"fmt\"\n", "\t\"fmt\"\n\t\"sync\"\n", 1)
	rep := grade(t, src, 1, "all-attempts-fail", "two-concurrent", "redelivery")
	for _, sc := range rep.Scenarios {
		for _, inv := range sc.Invocations {
			if inv.Panic != "" {
				t.Fatalf("%s: %s panicked: %s", sc.Name, inv.Worker, inv.Panic)
			}
		}
	}
	if rep.Timings.Interpreters > 6 {
		t.Fatalf("%d interpreters compiled: the state was not reset in place", rep.Timings.Interpreters)
	}
}

// paddedSolution is the reference grown to about n lines by a read-only
// lookup table that the code consults, as a large real file might.
func paddedSolution(t testing.TB, n int) string {
	ref := readSource(t, referenceFile)
	lines := strings.Count(ref, "\n")
	var b strings.Builder
	b.WriteString("\n// reasonNote explains a give-up reason in the log.\nvar reasonNote = map[string]string{\n")
	for k := 0; k < n-lines-8; k++ {
		fmt.Fprintf(&b, "\t\"reason-%05d\": \"note %d\",\n", k, k)
	}
	b.WriteString("}\n")
	out := ref + b.String()
	old := "func (r *refundRun) giveUp(why string) (refundkit.Outcome, error) {\n"
	if !strings.Contains(out, old) {
		t.Fatal("the reference has no giveUp method to pad")
	}
	return strings.Replace(out, old, old+"\t_ = reasonNote[why]\n", 1)
}

func TestPaddedSolutionPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("grades a 5,000-line file")
	}
	rep := grade(t, paddedSolution(t, 5000), 1)
	if rep.Status != StatusPass {
		t.Fatalf("the padded reference fails: %s", rep.Message)
	}
}

// BenchmarkGradePackageState grades, in one run, the stateless reference,
// each correct solution with package state, and the reference padded to
// 5,000 lines, and reports each one's median grade time with its ratio to
// the reference's (the target: every state-* within 1.5x, the padded file
// within 5x): under reset/ as the grader does it, under fresh/ with a new
// interpreter per worker for package state, as it did before.
func BenchmarkGradePackageState(b *testing.B) {
	type sub struct{ name, src string }
	subs := []sub{{"reference", readSource(b, referenceFile)}}
	for _, f := range stateFiles(b) {
		subs = append(subs, sub{strings.TrimSuffix(filepath.Base(f), ".go"), readSource(b, f)})
	}
	subs = append(subs, sub{"padded-5000", paddedSolution(b, 5000)})
	bubble := benchBubble(b)
	for _, mode := range []string{"fresh", "reset"} {
		b.Run(mode, func(b *testing.B) {
			defer func(v bool) { resetPackageState = v }(resetPackageState)
			resetPackageState = mode == "reset"
			var refMedian time.Duration
			for _, s := range subs {
				b.Run(s.name, func(b *testing.B) {
					var took, cpu []time.Duration
					var rep *Report
					for b.Loop() {
						start, cpu0 := time.Now(), processCPU()
						r, err := Grade(context.Background(), Job{Source: s.src, Seed: 1}, bubble, nil)
						if err != nil || r.Status != StatusPass {
							b.Fatalf("%v %v", err, r.Message)
						}
						took = append(took, time.Since(start))
						cpu = append(cpu, processCPU()-cpu0)
						rep = r
					}
					reportLatencies(b, took)
					// On a shared machine the wall time mostly measures the
					// neighbours; the CPU time is the grade's own cost.
					slices.Sort(cpu)
					b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "cpu-median-ms")
					b.ReportMetric(float64(rep.Timings.Interpreters), "interpreters")
					med := cpu[len(cpu)/2]
					if s.name == "reference" {
						refMedian = med
					} else if refMedian > 0 {
						b.ReportMetric(float64(med)/float64(refMedian), "x-reference")
					}
				})
			}
		})
	}
}
