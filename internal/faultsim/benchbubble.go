package faultsim

import (
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// BenchBubble is a Bubble for a benchmark, which has no *testing.T for
// synctest. One test, started with testing.RunTests and kept until the
// benchmark ends, lends its T to every bubble, as the grading child's one
// test does (InProcess): a RunTests per bubble would add what the child
// never pays (RunTests sets GOMAXPROCS, stopping the world, each time).
func BenchBubble(b *testing.B) Bubble {
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
			panic("faultsim: the benchmark's bubble test failed")
		}
	}()
	t := <-ts
	b.Cleanup(func() { close(done) })
	return func(f func()) {
		failed := true
		synctest.Test(t, func(*testing.T) { f(); failed = false })
		if failed {
			b.Fatal("faultsim: the bubble failed")
		}
	}
}

// ProcessCPU is the CPU time this process has used, every thread, user
// and system: in the grading child, the grade's own; in a benchmark, the
// figure a shared machine's neighbours disturb least.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
