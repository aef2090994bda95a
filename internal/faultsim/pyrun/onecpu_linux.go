package pyrun

import (
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// A Python grade is a conversation: about 3,200 messages go back and
// forth between the engine and the lane processes, each one waking the
// other side. Across two CPUs every message is a wake-up of another CPU
// (an interrupt, an idle CPU brought back, the Go runtime's idle threads
// woken to look for work), and those cost more than the work itself: on
// 2 cores the same grade took a third less CPU time with every process on
// one CPU, and no longer. So a grading child that owns its process
// (Runtime.OneCPU) keeps the grade on one CPU: the one its parent gave it
// (Runtime.CPU, from Job.CPU: the parent spreads its Python grades over
// its CPUs, one each while there are enough), else the one it runs on
// now, where the kernel placed it when it started or woke it.

// oneCPU pins every thread of this process to CPU want (nil, or one this
// process may not use: the CPU the calling thread runs on); the zygote
// and its lanes, started from a pinned thread, are on it too. restore
// gives each thread back what it could use before. On a process allowed a
// single CPU, or where the kernel refuses, it does nothing.
func oneCPU(want *int) (restore func()) {
	var allowed unix.CPUSet
	if unix.SchedGetaffinity(0, &allowed) != nil || allowed.Count() < 2 {
		return func() {}
	}
	cpu, ok := 0, false
	if want != nil && *want >= 0 && allowed.IsSet(*want) {
		cpu, ok = *want, true
	} else {
		cpu, ok = sandbox.CurrentCPU()
	}
	if !ok || !allowed.IsSet(cpu) {
		return func() {}
	}
	var one unix.CPUSet
	one.Set(cpu)
	before := map[int]unix.CPUSet{}
	// A thread started while the list is read is missed; its creator,
	// pinned, passes the pin on to those started after. Read again until
	// a pass finds no thread not yet pinned.
	for range 8 {
		fresh := false
		for _, tid := range threads() {
			if _, done := before[tid]; done {
				continue
			}
			var was unix.CPUSet
			if unix.SchedGetaffinity(tid, &was) != nil {
				continue // it has ended
			}
			if unix.SchedSetaffinity(tid, &one) != nil {
				continue
			}
			before[tid] = was
			fresh = true
		}
		if !fresh {
			break
		}
	}
	if len(before) == 0 {
		return func() {} // no thread could be read (no /proc) or pinned
	}
	// One CPU runs one thread at a time: a second P would only have the
	// Go runtime wake threads to look for work there is no CPU to run.
	procs := runtime.GOMAXPROCS(1)
	return func() {
		runtime.GOMAXPROCS(procs)
		for _, tid := range threads() {
			was, ok := before[tid]
			if !ok {
				was = allowed // started while pinned
			}
			_ = unix.SchedSetaffinity(tid, &was)
		}
	}
}

// threads lists the process's threads.
func threads() []int {
	d, err := os.Open("/proc/self/task")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	tids := make([]int, 0, len(names))
	for _, n := range names {
		if tid, err := strconv.Atoi(n); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids
}
