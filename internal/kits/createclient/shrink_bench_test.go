package createclient_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
)

// BenchmarkStarterShrink grades the starter (a failing grade) interpreted
// as the grading child does, with and without minimal runs, side by side:
// the cost of shrinking is the ratio of the two cpu-median-ms figures (the
// target is at most 2x), as in the refund kit's benchmark of its starter.
//
//	go test ./internal/kits/createclient -run '^$' -bench StarterShrink -benchtime 5x
func BenchmarkStarterShrink(b *testing.B) {
	src, err := os.ReadFile(problemDir + "/starter/client.go")
	if err != nil {
		b.Fatal(err)
	}
	scs := loadScenariosB(b)
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
				prog, diags := interpreted.Interpret(createclient.Kit{}, "client.go", string(src))
				if diags != nil {
					b.Fatal(diags)
				}
				rep, err := interpreted.GradeInterpreted(context.Background(), createclient.Kit{}, scs, prog, bubble,
					faultsim.Options{Seeds: 20, NoShrink: mode.noShrink})
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
