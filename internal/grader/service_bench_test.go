package grader

import (
	"context"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

const referencePath = "../../content/problems/async-refund/reference/refund.go"

// BenchmarkServiceGrade grades through a sandboxed child, one job at a
// time: the latency a candidate waits for, child start included. The
// reference runs every scenario; the compile error is the fixed cost of a
// child (start, parse, report) with no scenario run. It reports the median
// and worst latency, the child's CPU time and the peak resident memory of
// one grading child.
func BenchmarkServiceGrade(b *testing.B) {
	for _, tt := range []struct {
		name, file, status string
	}{
		{"reference", referencePath, StatusPass},
		{"compile-error", "../sandbox/testdata/hostile/type_error.go", StatusError},
	} {
		b.Run(tt.name, func(b *testing.B) {
			src, err := os.ReadFile(tt.file)
			if err != nil {
				b.Fatal(err)
			}
			svc := newTestService(b, sandbox.Limits{}, 1, 0)
			job := Job{Problem: "async-refund", Source: string(src), Seed: 1}
			var took []time.Duration
			var rss int64
			var cpu time.Duration
			for b.Loop() {
				start := time.Now()
				report, out, err := svc.grade(context.Background(), job, nil)
				took = append(took, time.Since(start))
				if err != nil || report.Status != tt.status {
					b.Fatalf("%s: %v %+v", tt.name, err, report)
				}
				rss = max(rss, out.MaxRSS)
				cpu += out.CPU
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
			b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "ms-worst")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(took)), "ms-child-cpu/op")
			b.ReportMetric(float64(rss)/(1<<20), "MiB-peak-rss")
		})
	}
}

// BenchmarkServiceThroughput keeps the pool full (one child per core) and
// reports jobs per second.
func BenchmarkServiceThroughput(b *testing.B) {
	src, err := os.ReadFile(referencePath)
	if err != nil {
		b.Fatal(err)
	}
	cores := runtime.NumCPU()
	svc := newTestService(b, sandbox.Limits{}, cores, 1<<10)
	job := Job{Problem: "async-refund", Source: string(src), Seed: 1}
	b.SetParallelism(2) // 2*GOMAXPROCS submitters keep every place busy and the queue non-empty
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			report, err := svc.Grade(context.Background(), job, nil)
			if err != nil || report.Status != StatusPass {
				b.Errorf("reference: %v", err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
}
