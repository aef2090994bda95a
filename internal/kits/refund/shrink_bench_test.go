package refund_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// BenchmarkStarterShrink grades the starter (a failing grade: most of the
// built-in scenarios fail) interpreted as the grading child does, with and
// without minimal runs, side by side: the cost of shrinking is the ratio
// of the two cpu-median-ms figures (the target is at most 2x).
//
//	go test ./internal/kits/refund -run '^$' -bench StarterShrink -benchtime 5x
func BenchmarkStarterShrink(b *testing.B) {
	src := readSource(b, starterFile)
	scs := refund.Scenarios(refund.Builtin())
	bubble := faultsimtest.BenchBubble(b)
	for _, mode := range []struct {
		name     string
		noShrink bool
	}{{"no-shrink", true}, {"shrink", false}} {
		b.Run(mode.name, func(b *testing.B) {
			var took, cpu []time.Duration
			runs, shrinkRuns := 0, 0
			for b.Loop() {
				faultsimtest.FreshHeap()
				start, cpu0 := time.Now(), faultsim.ProcessCPU()
				prog, diags := interpreted.Interpret(refund.Kit{}, "refund.go", src)
				if diags != nil {
					b.Fatal(diags)
				}
				rep, err := interpreted.GradeInterpreted(context.Background(), refund.Kit{}, scs, prog, bubble,
					faultsim.Options{Seeds: benchSeeds, NoShrink: mode.noShrink})
				if err != nil || rep.Status != faultsim.StatusFail {
					b.Fatalf("%v %s", err, rep.Status)
				}
				took = append(took, time.Since(start))
				cpu = append(cpu, faultsim.ProcessCPU()-cpu0)
				runs, shrinkRuns = 0, 0
				for _, sc := range rep.Scenarios {
					runs += sc.Runs - sc.Repeated
					if sc.Minimal != nil {
						shrinkRuns += sc.Minimal.Runs
					}
				}
			}
			slices.Sort(took)
			slices.Sort(cpu)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "cpu-median-ms")
			b.ReportMetric(float64(runs), "runs-made")
			b.ReportMetric(float64(shrinkRuns), "shrink-runs")
		})
	}
}
