// Package sandbox runs untrusted work in a short-lived child process: the
// current binary re-executed in a child mode, with resource limits applied
// before the child's Go runtime starts, in new user and network namespaces
// where the host allows them, confined by the kernel (Landlock, seccomp:
// confine.go) before it reads its job, killed as a whole process group
// when its wall-clock budget runs out. A Pool bounds how many children run at once,
// can keep spare children started ahead of their job (KeepWarm), and can
// keep a child that ended a job clean for the next job of the same key
// (Reuse), each job under its own limits.
//
// The package knows nothing about grading: a job goes in on the child's
// stdin as bytes, results come back as newline-delimited JSON on an extra
// pipe (fd 3), and the way the child ended is classified into an Outcome
// (normal, wall-time limit, CPU limit, memory limit, crash, ...). The
// grader decides what those mean for a candidate.
//
// The yaegi interpreter that runs inside the child lives apart, in
// internal/gointerp, so the server's parent side links none of it.
package sandbox

import (
	"fmt"
	"github.com/faultline-dev/faultline/internal/bytesize"
	"runtime"
	"time"
)

// Default limits for one grading child. They are generous for a correct
// submission (the reference grades in well under a second of CPU) and stop
// hostile code quickly.
const (
	// DefaultWallTime is the real time a child may live, queueing excluded.
	DefaultWallTime = 20 * time.Second
	// DefaultCPUTime is RLIMIT_CPU (whole seconds). Lower than the wall time
	// so a busy loop is reported as a CPU limit, not a wall-clock one.
	DefaultCPUTime = 10 * time.Second
	// DefaultAddressSpace is RLIMIT_AS. The Go runtime reserves address
	// space generously; 1 GiB was measured too tight for the heap of a
	// grading run, 2 GiB leaves room.
	DefaultAddressSpace = 2 << 30
	// DefaultMemoryLimit is GOMEMLIMIT: a soft target that makes the GC work
	// hard well before RLIMIT_AS turns an allocation into a fatal error.
	DefaultMemoryLimit = 768 << 20
	// DefaultOpenFiles is RLIMIT_NOFILE: stdin, stdout, stderr, the result
	// pipe and what the Go runtime opens for itself (epoll, eventfd).
	DefaultOpenFiles = 32
	// DefaultOutputBytes caps what is kept of each of the child's stray
	// stdout and stderr. Interpreted code writes to the interpreter's own
	// capped writer; fd 1 and 2 only carry runtime messages.
	DefaultOutputBytes = 64 << 10
	// DefaultResultBytes caps the whole result stream on fd 3. A full
	// report with traces is a few hundred KiB.
	DefaultResultBytes = 32 << 20
	// DefaultNice is the child's nice value, well below the server's: with
	// every core busy grading the server still gets the CPU when it needs
	// it (CFS weighs nice 10 at 110 against 1024 for nice 0), and an idle
	// machine gives the children all of it. A Pool lowers a job whose
	// code runs long, or whose key's code did lately, to LowNice (19,
	// weight 15), so a newcomer's grade beside it runs at nearly full
	// speed.
	DefaultNice = 10
)

// Limits are the resources one child may use. The zero value of a field
// means its default; use DefaultLimits to see them all.
type Limits struct {
	WallTime     time.Duration // killed (whole process group) after this
	CPUTime      time.Duration // RLIMIT_CPU, rounded up to whole seconds
	AddressSpace int64         // RLIMIT_AS in bytes
	MemoryLimit  int64         // GOMEMLIMIT in bytes (soft)
	OpenFiles    int           // RLIMIT_NOFILE
	OutputBytes  int           // kept of stray stdout and of stderr each
	ResultBytes  int           // the result stream on fd 3; past it the child is killed
	Procs        int           // GOMAXPROCS; by default every core (see DefaultLimits)
	Nice         int           // the child's nice value, 1 to 19 (higher is lower priority)
}

// DefaultLimits returns the limits used when none are given.
func DefaultLimits() Limits {
	return Limits{
		WallTime:     DefaultWallTime,
		CPUTime:      DefaultCPUTime,
		AddressSpace: DefaultAddressSpace,
		MemoryLimit:  DefaultMemoryLimit,
		OpenFiles:    DefaultOpenFiles,
		OutputBytes:  DefaultOutputBytes,
		ResultBytes:  DefaultResultBytes,
		// A child alone on the machine grades on every core (the grader
		// spreads scenarios over GOMAXPROCS lanes); when the Pool runs one
		// child per core they share the cores, and a job costs a few
		// interpreters more than on one lane. RLIMIT_CPU counts every
		// thread, so a busy loop on two cores meets the CPU limit in half
		// the wall time, still well before the wall-clock limit.
		Procs: runtime.NumCPU(),
		Nice:  DefaultNice,
	}
}

// withDefaults fills every zero field from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.WallTime <= 0 {
		l.WallTime = d.WallTime
	}
	if l.CPUTime <= 0 {
		l.CPUTime = d.CPUTime
	}
	if l.AddressSpace <= 0 {
		l.AddressSpace = d.AddressSpace
	}
	if l.MemoryLimit <= 0 {
		l.MemoryLimit = d.MemoryLimit
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = d.OpenFiles
	}
	if l.OutputBytes <= 0 {
		l.OutputBytes = d.OutputBytes
	}
	if l.ResultBytes <= 0 {
		l.ResultBytes = d.ResultBytes
	}
	if l.Procs <= 0 {
		l.Procs = d.Procs
	}
	if l.Nice <= 0 || l.Nice > 19 {
		l.Nice = d.Nice
	}
	return l
}

// cpuSeconds is RLIMIT_CPU's unit, rounded up so a limit is never shorter
// than asked.
func (l Limits) cpuSeconds() int64 {
	s := int64(l.CPUTime / time.Second)
	if l.CPUTime%time.Second != 0 {
		s++
	}
	return max(s, 1)
}

// prlimitArgs are the arguments for util-linux prlimit. The soft CPU limit
// sends SIGXCPU, which the Go runtime ignores unless asked; the hard limit
// one second later is SIGKILL. Writing files is forbidden outright
// (RLIMIT_FSIZE 0: any write to a regular file fails with SIGXFSZ/EFBIG).
func (l Limits) prlimitArgs() []string {
	cpu := l.cpuSeconds()
	return []string{
		fmt.Sprintf("--as=%d", l.AddressSpace),
		fmt.Sprintf("--cpu=%d:%d", cpu, cpu+1),
		fmt.Sprintf("--nofile=%d", l.OpenFiles),
		"--fsize=0",
		"--core=0",
	}
}

// String describes the limits in words, for logs and reports.
func (l Limits) String() string {
	l = l.withDefaults()
	return fmt.Sprintf("wall %s, CPU %ds, address space %s, GOMEMLIMIT %s, %d open files, GOMAXPROCS %d, nice %d",
		l.WallTime, l.cpuSeconds(), bytesize.Format(l.AddressSpace), bytesize.Format(l.MemoryLimit), l.OpenFiles, l.Procs, l.Nice)
}
