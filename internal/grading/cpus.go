package grading

import (
	"sync"

	"golang.org/x/sys/unix"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// A grading child keeps a Python grade on one CPU (pyrun.Runtime.OneCPU:
// its thousands of messages with python3 cost a third less there). Left
// to itself it takes the CPU it runs on when the grade starts, and two
// grades started together can take the same one and run at half speed
// for their whole length while another CPU idles: measured on 2 cores,
// 0.88 s for two at once on one CPU, 0.58 to 0.64 s on two. So the
// service gives each Python grade going at once a CPU of its own while
// there are enough (Job.CPU), and the least taken after.

// cpuShares hands out this process's CPUs to grades, the least taken
// first; among equals the one the caller runs on (where the kernel put
// it: a grade of a server that grades nothing else takes the CPU the
// kernel would have), else in turn.
type cpuShares struct {
	mu      sync.Mutex
	allowed []int
	taken   map[int]int
	next    int // where the turn among equals starts
}

// newCPUShares shares the CPUs this process may run on; nil where there
// is one, or the kernel does not say.
func newCPUShares() *cpuShares {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return nil
	}
	var allowed []int
	for cpu := 0; cpu < len(set)*64 && len(allowed) < set.Count(); cpu++ {
		if set.IsSet(cpu) {
			allowed = append(allowed, cpu)
		}
	}
	return sharesOf(allowed)
}

func sharesOf(allowed []int) *cpuShares {
	if len(allowed) < 2 {
		return nil
	}
	return &cpuShares{allowed: allowed, taken: map[int]int{}}
}

// take is a CPU for one grade, and what gives it back. A nil share takes
// none: -1.
func (c *cpuShares) take() (cpu int, give func()) {
	if c == nil {
		return -1, func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	here, known := sandbox.CurrentCPU()
	best := -1
	for i := range c.allowed {
		j := (c.next + i) % len(c.allowed)
		if n, m := c.taken[c.allowed[j]], 0; best >= 0 {
			m = c.taken[c.allowed[best]]
			if n > m || n == m && !(known && c.allowed[j] == here) {
				continue
			}
		}
		best = j
	}
	c.next = best + 1
	cpu = c.allowed[best]
	c.taken[cpu]++
	var once sync.Once
	return cpu, func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.taken[cpu]--
		})
	}
}
