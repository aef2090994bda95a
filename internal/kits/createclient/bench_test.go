package createclient_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	reference "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/reference"
)

// TestMeasureGradeReference times a whole grade of the reference (every
// scenario, 5 seeds each, crash points included) natively and interpreted,
// side by side in one process. synctest bubbles need a *testing.T, so this
// is a test that measures, not a benchmark; it asserts nothing about speed
// and runs only with CREATECLIENT_MEASURE=1:
//
//	CREATECLIENT_MEASURE=1 go test -run MeasureGradeReference -v ./internal/kits/createclient/
func TestMeasureGradeReference(t *testing.T) {
	if os.Getenv("CREATECLIENT_MEASURE") == "" {
		t.Skip("set CREATECLIENT_MEASURE=1 to time a grade")
	}
	src, err := os.ReadFile("solutions/reference/client.go")
	if err != nil {
		t.Fatal(err)
	}
	scs := loadScenarios(t)
	opt := faultsim.Options{Seeds: 5}
	b := faultsim.TestBubble(t)
	const rounds = 5
	measure := func(grade func() (*faultsim.Report, error)) (time.Duration, int) {
		var best time.Duration
		runs := 0
		for i := 0; i < rounds; i++ {
			start := time.Now()
			rep, err := grade()
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); best == 0 || d < best {
				best = d
			}
			runs = 0
			for _, sc := range rep.Scenarios {
				runs += sc.Runs
			}
		}
		return best, runs
	}
	native, runs := measure(func() (*faultsim.Report, error) {
		return faultsim.Grade(context.Background(), createclient.Kit{}, scs, faultsim.Native{Entry: reference.CreatePayment}, b, opt)
	})
	var compiled int
	interpreted, _ := measure(func() (*faultsim.Report, error) {
		prog, diags := faultsim.Interpret(createclient.Kit{}, "client.go", string(src))
		if diags != nil {
			t.Fatal(diags)
		}
		rep, err := faultsim.Grade(context.Background(), createclient.Kit{}, scs, prog, b, opt)
		compiled = prog.Compiled
		return rep, err
	})
	t.Logf("%d scenarios, %d runs: native %v, interpreted %v (%.1fx), %d interpreters compiled; best of %d",
		len(scs), runs, native, interpreted, float64(interpreted)/float64(native), compiled, rounds)
}

// BenchmarkGradeReference grades the reference interpreted, the whole
// suite at the seeds a user's grade explores (grading.DefaultSeeds), as
// the grading child does, and reports the median wall and CPU time of a
// grade, the interpreters it compiled and its runs.
//
//	go test ./internal/kits/createclient -run '^$' -bench GradeReference -benchtime 10x
func BenchmarkGradeReference(b *testing.B) {
	src, err := os.ReadFile("solutions/reference/client.go")
	if err != nil {
		b.Fatal(err)
	}
	scs := loadScenariosB(b)
	bubble := faultsim.BenchBubble(b)
	var took, cpu []time.Duration
	compiled, runs := 0, 0
	for b.Loop() {
		start, cpu0 := time.Now(), faultsim.ProcessCPU()
		prog, diags := faultsim.Interpret(createclient.Kit{}, "client.go", string(src))
		if diags != nil {
			b.Fatal(diags)
		}
		rep, err := faultsim.GradeInterpreted(context.Background(), createclient.Kit{}, scs, prog, bubble, faultsim.Options{Seeds: 20})
		if err != nil || rep.Status != faultsim.StatusPass {
			b.Fatalf("%v %+v", err, rep.Failed())
		}
		took = append(took, time.Since(start))
		cpu = append(cpu, faultsim.ProcessCPU()-cpu0)
		compiled, runs = prog.Compiled, 0
		for _, sc := range rep.Scenarios {
			runs += sc.Runs
		}
	}
	slices.Sort(took)
	slices.Sort(cpu)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "cpu-median-ms")
	b.ReportMetric(float64(compiled), "interpreters")
	b.ReportMetric(float64(runs), "runs")
}

func loadScenariosB(b *testing.B) []faultsim.Scenario {
	path := problemDir + "/scenarios.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	list, err := createclient.ParseScenarios(path, data)
	if err != nil {
		b.Fatal(err)
	}
	return createclient.Scenarios(list)
}
