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

// BenchmarkServiceGradeReference grades the reference solution through a
// sandboxed child, one job at a time: the latency a candidate waits for,
// child start included. It reports the median and worst latency and the
// peak resident memory of one grading child.
func BenchmarkServiceGradeReference(b *testing.B) {
	src, err := os.ReadFile(referencePath)
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
		if err != nil || report.Status != StatusPass {
			b.Fatalf("reference: %v %+v", err, report)
		}
		rss = max(rss, out.MaxRSS)
		cpu += out.CPU
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "ms-worst")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(took)), "ms-cpu/op")
	b.ReportMetric(float64(rss)/(1<<20), "MiB-peak-rss")
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
