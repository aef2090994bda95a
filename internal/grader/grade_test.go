package grader

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/faultline-dev/faultline/internal/gointerp"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/golden")

const (
	starterFile   = "../../content/problems/async-refund/starter/refund.go"
	referenceFile = "../../content/problems/async-refund/reference/refund.go"
)

func readSource(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grade(t *testing.T, src string, seed int64, scenarios ...string) *Report {
	t.Helper()
	rep, err := Grade(context.Background(), Job{Problem: "async-refund", Source: src, Seed: seed, Scenarios: scenarios}, BubbleFromT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// violated lists "scenario invariant" for every violation in the report.
func violated(r *Report) map[string]string {
	out := map[string]string{}
	for _, s := range r.Scenarios {
		for _, inv := range s.Invariants {
			if inv.Status == InvariantViolated {
				out[s.Name+" "+inv.ID] = inv.Message
			}
		}
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sanitizedJSON(t *testing.T, r *Report) []byte {
	t.Helper()
	b, err := json.MarshalIndent(r.Sanitized(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestReusedInterpretersMatchFresh checks the interpreter reuse: grading
// with a fresh interpreter for every worker of every run gives the same
// report.
func TestReusedInterpretersMatchFresh(t *testing.T) {
	for _, path := range []string{referenceFile, starterFile} {
		src, diags := gointerp.ParseSource("refund.go", readSource(t, path), []string{RefundkitPath})
		if diags != nil {
			t.Fatal(diags)
		}
		job := Job{Seed: 3, Scenarios: []string{"two-concurrent", "redelivery", "crash-and-rerun", "helper-panics"}}
		reused, fresh := newInterpretedProgram(src), newInterpretedProgram(src)
		fresh.stateless = false
		var reports [2]*Report
		for i, p := range []*interpretedProgram{reused, fresh} {
			reports[i] = newReport(job)
			if err := GradeProgram(context.Background(), job, p, BubbleFromT(t), nil, reports[i]); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(sanitizedJSON(t, reports[0]), sanitizedJSON(t, reports[1])) {
			t.Fatalf("%s: reused and fresh interpreters disagree", path)
		}
		if reused.compiled >= fresh.compiled {
			t.Fatalf("%s: reuse compiled %d times, fresh %d", path, reused.compiled, fresh.compiled)
		}
	}
}

func TestGoldenReports(t *testing.T) {
	for name, path := range map[string]string{"starter": starterFile, "reference": referenceFile} {
		t.Run(name, func(t *testing.T) {
			got := sanitizedJSON(t, grade(t, readSource(t, path), 1))
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGoldenReports -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the report differs from %s (run go test -run TestGoldenReports -update and review the diff)", golden)
			}
		})
	}
}

const header = "package refund\n\nimport (\n\t\"context\"\n\n\t\"github.com/faultline-dev/faultline/internal/grader/refundkit\"\n)\n\n"

// TestLanesFor checks how many lanes a grade takes: one per core unless
// the program (a dear compile, or the job's Lanes) or a test says fewer,
// never more than there is work, and one for a program without lanes.
func TestLanesFor(t *testing.T) {
	defer func(n int) { maxLanes = n }(maxLanes)
	cores := runtime.GOMAXPROCS(0)
	for _, tt := range []struct {
		name                 string
		prog                 Program
		maxLanes, work, want int
	}{
		{"one per core", &interpretedProgram{}, 0, 100, cores},
		{"no more than the work", &interpretedProgram{}, 0, 1, 1},
		{"the program's limit", &interpretedProgram{lanes: 1}, 0, 100, 1},
		{"a limit above the cores", &interpretedProgram{lanes: cores + 3}, 0, 100, cores},
		{"a test's count wins", &interpretedProgram{lanes: 1}, 3, 100, 3},
		{"no lanes of its own", NativeProgram(nil), 0, 100, 1},
	} {
		maxLanes = tt.maxLanes
		if got := lanesFor(tt.prog, tt.work); got != tt.want {
			t.Errorf("%s: %d lanes, want %d", tt.name, got, tt.want)
		}
	}
}
