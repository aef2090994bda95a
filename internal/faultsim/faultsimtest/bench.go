// Package faultsimtest holds what only tests and benchmarks of the engine
// and the kits use: a Bubble for a test or a benchmark, a Program of one
// natively compiled entry, and the measuring helpers of the benchmarks.
// Production code never imports it (a test in cmd/server keeps it so).
package faultsimtest

import (
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

// BenchBubble is a Bubble for a benchmark, which has no *testing.T for
// synctest. One test, started with testing.RunTests and kept until the
// benchmark ends, lends its T to every bubble, as the grading child's one
// test does (bubble.InProcess): a RunTests per bubble would add what the child
// never pays (RunTests sets GOMAXPROCS, stopping the world, each time).
func BenchBubble(b *testing.B) faultsim.Bubble {
	ts := make(chan *testing.T)
	done := make(chan struct{})
	go func() {
		// RunTests runs a test once per -test.cpu value: serve once.
		var once sync.Once
		ok := testing.RunTests(func(string, string) (bool, error) { return true, nil },
			[]testing.InternalTest{{Name: "bubble", F: func(t *testing.T) {
				once.Do(func() {
					for {
						select {
						case ts <- t:
						case <-done:
							return
						}
					}
				})
			}}})
		if !ok {
			panic("faultsimtest: the benchmark's bubble test failed")
		}
	}()
	t := <-ts
	b.Cleanup(func() { close(done) })
	return func(f func()) {
		failed := true
		synctest.Test(t, func(*testing.T) { f(); failed = false })
		if failed {
			b.Fatal("faultsimtest: the bubble failed")
		}
	}
}

// FreshHeap collects what the benchmark's earlier iterations left, before
// the next grade is timed. A user's grade runs in a grading child of its
// own, whose heap starts empty; in a benchmark's one process, a grade that
// follows another would otherwise pay for collecting the last one's
// garbage (tens of MB, which the interpreted route's GOGC lets pile up), as no user's
// grade does: in the create-client reference's grade, 2 ms of the
// submission's parse alone.
func FreshHeap() { runtime.GC() }

// ProcessFaults is how many minor page faults this process has taken: the
// pages its heap touched for the first time, or again after the runtime's
// scavenger gave them back to the system.
func ProcessFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}

// GoBuildRoute is what a kit's go-build benchmark measured, one entry per
// iteration: the interpreted grade's wall and CPU time and the page faults
// it took, and the go-build route's (compile the submission natively, run
// the same scenarios), with its build alone.
//
// A grade in that benchmark takes longer than one of a kit's
// BenchmarkGradeReference, which grades back to back: while the benchmark
// waits for the go command, the runtime's scavenger returns free heap
// pages to the system, which the next grade faults in again (one kit's
// reference: some 1,600 faults a grade, at about 1.2 µs each on the
// machine it was measured on), and the grade starts on caches another
// process has filled. A grading child is a new process, all of whose heap
// is new pages: after debug.FreeOSMemory, as a new heap is, the same grade
// took some 5,000 faults and 6 ms more.
type GoBuildRoute struct {
	Graded, GradedCPU        []time.Duration
	GradedFaults             []int64
	Routed, RoutedCPU, Build []time.Duration
}

// Report writes the medians and the ratios issue 9 judges (a grade under
// a tenth of the go-build route), by wall and by CPU time.
func (g GoBuildRoute) Report(b *testing.B) {
	for _, d := range [][]time.Duration{g.Graded, g.GradedCPU, g.Routed, g.RoutedCPU, g.Build} {
		slices.Sort(d)
	}
	if len(g.GradedFaults) > 0 {
		slices.Sort(g.GradedFaults)
		b.ReportMetric(float64(g.GradedFaults[len(g.GradedFaults)/2]), "grade-faults-median")
	}
	b.ReportMetric(ms(median(g.Graded)), "grade-median-ms")
	b.ReportMetric(ms(median(g.Routed)), "gobuild-median-ms")
	b.ReportMetric(ms(median(g.Build)), "build-median-ms")
	b.ReportMetric(float64(median(g.Graded))/float64(median(g.Routed)), "x-gobuild-median")
	b.ReportMetric(float64(g.Graded[0])/float64(g.Routed[0]), "x-gobuild-best")
	// Against the build alone: a go-build grader that ran its scenarios in
	// no time at all would still cost this much.
	b.ReportMetric(float64(median(g.Graded))/float64(median(g.Build)), "x-build-alone-median")
	b.ReportMetric(ms(median(g.GradedCPU)), "grade-cpu-median-ms")
	b.ReportMetric(ms(median(g.RoutedCPU)), "gobuild-cpu-median-ms")
	b.ReportMetric(float64(median(g.GradedCPU))/float64(median(g.RoutedCPU)), "x-gobuild-cpu-median")
}

// CommandCPU is the CPU time, user and system, of a command that has
// finished, with every descendant it waited for (the go command's compiler
// and linker).
func CommandCPU(c *exec.Cmd) time.Duration {
	return c.ProcessState.UserTime() + c.ProcessState.SystemTime()
}

// SideBySide grades n variants once each per iteration of b's loop, in
// turn and each after FreshHeap, so that all meet the same neighbours on
// a shared machine, and returns each one's CPU time of every grade (for
// ReportVariants).
func SideBySide(b *testing.B, n int, grade func(i int)) [][]time.Duration {
	cpu := make([][]time.Duration, n)
	for b.Loop() {
		for i := range n {
			FreshHeap()
			cpu0 := faultsim.ProcessCPU()
			grade(i)
			cpu[i] = append(cpu[i], faultsim.ProcessCPU()-cpu0)
		}
	}
	return cpu
}

// ReportVariants writes each variant's median CPU time and, for all but
// the first (the baseline), its ratio to the first's: for benchmarks that
// grade variants of one solution side by side in each iteration.
func ReportVariants(b *testing.B, names []string, cpu [][]time.Duration) {
	for _, d := range cpu {
		slices.Sort(d)
	}
	base := median(cpu[0])
	for i, name := range names {
		b.ReportMetric(ms(median(cpu[i])), name+"-cpu-ms")
		if i > 0 {
			b.ReportMetric(float64(median(cpu[i]))/float64(base), name+"-x")
		}
	}
}

// ReportVariantsAgainst writes, for every variant but base, its median
// CPU time's ratio to base's, named with suffix: a second baseline beside
// ReportVariants' first. Call it after ReportVariants, which sorts cpu.
func ReportVariantsAgainst(b *testing.B, names []string, cpu [][]time.Duration, base int, suffix string) {
	for i, name := range names {
		if i != base {
			b.ReportMetric(float64(median(cpu[i]))/float64(median(cpu[base])), name+suffix)
		}
	}
}

// median of sorted durations.
func median(d []time.Duration) time.Duration { return d[len(d)/2] }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
