package refund_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/rooms"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/golden")

const (
	starterFile   = "../../../content/problems/async-refund/starter/refund.go"
	referenceFile = "../../../content/problems/async-refund/reference/refund.go"
)

func readSource(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// grade grades source interpreted against the built-in scenarios.
func grade(t *testing.T, source string, opt faultsim.Options) *gradewire.Report {
	t.Helper()
	rep, err := refund.GradeSource(context.Background(), "refund.go", source, refund.Scenarios(refund.Builtin()), faultsimtest.Bubble(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func sanitizedJSON(t *testing.T, r *gradewire.Report) []byte {
	t.Helper()
	b, err := json.MarshalIndent(r.Sanitized(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestGoldenReports grades the problem's starter and reference through the
// engine, seed 1, and compares the reports with the goldens the refund
// grader wrote before it ran on faultsim.
func TestGoldenReports(t *testing.T) {
	for name, path := range map[string]string{"starter": starterFile, "reference": referenceFile} {
		t.Run(name, func(t *testing.T) {
			rep := grade(t, readSource(t, path), faultsim.Options{FirstSeed: 1})
			rep.Problem = "async-refund" // the parent names the problem; the child knows only the kit
			got := sanitizedJSON(t, rep)
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
				t.Fatalf("the report differs from %s (run go test -run TestGoldenReports -update and review the diff)", golden)
			}
		})
	}
}

// TestReportsFitARoom: a room keeps a run's report only up to
// rooms.MaxReportBytes of JSON (a larger one keeps its summary alone, and
// the interviewer sees no report). The starter's, the largest a room
// meets in a screen, must fit with room to spare.
func TestReportsFitARoom(t *testing.T) {
	for name, path := range map[string]string{"starter": starterFile, "reference": referenceFile} {
		rep := grade(t, readSource(t, path), faultsim.Options{FirstSeed: 1})
		data, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("the %s's report: %d bytes of JSON; a room keeps %d", name, len(data), rooms.MaxReportBytes)
		if len(data) > rooms.MaxReportBytes*9/10 {
			t.Errorf("the %s's report is %d bytes of JSON, over 90%% of the %d a room keeps: a room would soon show no report for it", name, len(data), rooms.MaxReportBytes)
		}
	}
}
