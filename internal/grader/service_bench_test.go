package grader

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

const referencePath = "../../content/problems/async-refund/reference/refund.go"

// startModes are the two ways a job gets its child: started for it
// ("cold"), or a warm spare started and initialised beforehand
// (sandbox.Pool.KeepWarm).
var startModes = []struct {
	name string
	warm bool
}{
	{"cold", false},
	{"warm", true},
}

// childBinaries are the two programs a benchmark's child can be: this test
// binary (TestGradingChild: small, its package init is quick) or the real
// server binary in its grading-child mode, whose start-up includes the
// web app's package init (chroma's lexers and styles) that every real
// grading child pays.
var childBinaries = []string{"test-binary", "server-binary"}

// newBenchService is a Service over the given child binary (server is the
// path of the built server), with spares kept when warm.
func newBenchService(b *testing.B, binary, server string, size, queue int, warm bool) *Service {
	var svc *Service
	switch binary {
	case "test-binary":
		svc = newTestService(b, sandbox.Limits{}, size, queue)
	case "server-binary":
		runner := NewChildRunner(sandbox.Limits{}, nil)
		runner.Executable = server
		svc = NewService(sandbox.NewPool(runner, size, queue), nil)
	default:
		b.Fatalf("unknown child binary %q", binary)
	}
	if warm {
		svc.pool.KeepWarm()
		b.Cleanup(func() { svc.pool.Close() })
		// The first job should find its spare ready, as in a server
		// that has been up for a while.
		deadline := time.Now().Add(10 * time.Second)
		for svc.pool.Spares() < size && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond) // their package init
	}
	return svc
}

// buildServer builds cmd/server (from the go build cache when unchanged)
// into b's temporary directory.
func buildServer(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "server")
	out, err := exec.Command("go", "build", "-o", path, "github.com/faultline-dev/faultline/cmd/server").CombinedOutput()
	if err != nil {
		b.Fatalf("go build ./cmd/server: %v\n%s", err, out)
	}
	return path
}

// BenchmarkServiceGrade grades through a sandboxed child, one job at a
// time: the latency a candidate waits for, child start included. The
// reference runs every scenario; the compile error is the fixed cost of a
// child (start, parse, report) with no scenario run. Each runs with a
// child started per job (cold) and with a warm spare. It reports the
// median and worst latency, the child's CPU time, the peak resident memory
// of one grading child, and the share of jobs that found a spare ready.
func BenchmarkServiceGrade(b *testing.B) {
	server := buildServer(b)
	for _, tt := range []struct {
		name, file, status string
	}{
		{"reference", referencePath, StatusPass},
		{"compile-error", "../sandbox/testdata/hostile/type_error.go", StatusError},
	} {
		for _, binary := range childBinaries {
			for _, mode := range startModes {
				b.Run(tt.name+"/"+binary+"/"+mode.name, func(b *testing.B) {
					src, err := os.ReadFile(tt.file)
					if err != nil {
						b.Fatal(err)
					}
					svc := newBenchService(b, binary, server, 1, 0, mode.warm)
					job := Job{Problem: "async-refund", Source: string(src), Seed: 1}
					var took []time.Duration
					var rss int64
					var cpu time.Duration
					var warm int
					for b.Loop() {
						start := time.Now()
						report, out, err := svc.grade(context.Background(), nil, job, nil)
						took = append(took, time.Since(start))
						if err != nil || report.Status != tt.status {
							b.Fatalf("%s: %v %+v", tt.name, err, report)
						}
						rss = max(rss, out.MaxRSS)
						cpu += out.CPU
						if out.Warm {
							warm++
						}
					}
					slices.Sort(took)
					b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
					b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "ms-worst")
					b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(took)), "ms-child-cpu/op")
					b.ReportMetric(float64(rss)/(1<<20), "MiB-peak-rss")
					b.ReportMetric(100*float64(warm)/float64(len(took)), "%-warm")
				})
			}
		}
	}
}

// BenchmarkServiceThroughput keeps the pool full (one child per core) and
// reports jobs per second, cold and with warm spares. With every core
// busy a spare's start-up competes with the running jobs for CPU, so this
// shows what spares save when the machine is saturated.
func BenchmarkServiceThroughput(b *testing.B) {
	server := buildServer(b)
	src, err := os.ReadFile(referencePath)
	if err != nil {
		b.Fatal(err)
	}
	for _, binary := range childBinaries {
		for _, mode := range startModes {
			b.Run(binary+"/"+mode.name, func(b *testing.B) {
				cores := runtime.NumCPU()
				svc := newBenchService(b, binary, server, cores, 1<<10, mode.warm)
				job := Job{Problem: "async-refund", Source: string(src), Seed: 1}
				b.SetParallelism(2) // 2*GOMAXPROCS submitters keep every place busy and the queue non-empty
				b.ResetTimer()
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
			})
		}
	}
}
