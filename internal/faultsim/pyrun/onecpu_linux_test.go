package pyrun

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOneCPUPinsTheProcessAndGivesItBack: every thread of the process,
// and a process started while pinned, runs on one CPU and Go runs one P;
// restore gives back what each had.
func TestOneCPUPinsTheProcessAndGivesItBack(t *testing.T) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil || allowed.Count() < 2 {
		t.Skipf("this process may use %d CPU(s): nothing to pin (%v)", allowed.Count(), err)
	}
	masks := func() map[int]unix.CPUSet {
		m := map[int]unix.CPUSet{}
		for _, tid := range threads() {
			var s unix.CPUSet
			if unix.SchedGetaffinity(tid, &s) == nil {
				m[tid] = s
			}
		}
		return m
	}
	before, procs := masks(), runtime.GOMAXPROCS(0)
	if len(before) < 2 {
		t.Fatalf("threads() found %d thread(s) of a Go test binary", len(before))
	}

	restore := oneCPU(nil)
	pinned := masks()
	for tid, s := range pinned {
		if s.Count() != 1 {
			t.Errorf("thread %d may run on %d CPUs while pinned", tid, s.Count())
		}
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS = %d while pinned, want 1", got)
	}
	out, err := exec.Command("grep", "Cpus_allowed_list", "/proc/self/status").Output()
	if err != nil {
		t.Fatal(err)
	}
	if list := strings.TrimSpace(strings.TrimPrefix(string(out), "Cpus_allowed_list:")); strings.ContainsAny(list, ",-") {
		t.Errorf("a process started while pinned may run on CPUs %s, want one", list)
	}

	restore()
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS = %d after restore, want %d", got, procs)
	}
	for tid, s := range masks() {
		want, ok := before[tid]
		if !ok {
			want = allowed
		}
		if s != want {
			t.Errorf("thread %d may run on %d CPUs after restore, want %d", tid, s.Count(), want.Count())
		}
	}
}

// TestOneCPUKeepsToTheCPUGiven: a CPU the process may use is the one; one
// it may not use is ignored for the CPU it runs on.
func TestOneCPUKeepsToTheCPUGiven(t *testing.T) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil || allowed.Count() < 2 {
		t.Skipf("this process may use %d CPU(s): nothing to pin (%v)", allowed.Count(), err)
	}
	last := -1
	for cpu := range 1024 {
		if allowed.IsSet(cpu) {
			last = cpu
		}
	}
	for _, tc := range []struct {
		name string
		want int
		on   func(unix.CPUSet) bool
	}{
		{"given", last, func(s unix.CPUSet) bool { return s.Count() == 1 && s.IsSet(last) }},
		{"not this process's", 1023, func(s unix.CPUSet) bool { return s.Count() == 1 }},
		{"negative", -1, func(s unix.CPUSet) bool { return s.Count() == 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := oneCPU(&tc.want)
			defer restore()
			for _, tid := range threads() {
				var s unix.CPUSet
				if unix.SchedGetaffinity(tid, &s) == nil && !tc.on(s) {
					t.Errorf("thread %d may run on %d CPUs (CPU %d among them: %v)", tid, s.Count(), tc.want, s.IsSet(max(0, tc.want)))
				}
			}
		})
	}
}
