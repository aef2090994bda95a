package sandbox

import (
	"context"
	"os/exec"
	"sync"
	"syscall"
)

// LowNice is the nice value of a job whose key's code runs to its limits:
// the lowest CPU priority. CFS weighs nice 19 at 15 against 110 for the
// grading children's usual nice 10 (DefaultNice), so a newcomer's grade
// sharing a core with such a job gets about seven eighths of it.
const LowNice = 19

// jobPriority is the CPU priority of one job's child, which the pool may
// lower while the job runs (a job seen running long, see Pool). A child is
// started at its Limits.Nice, before it has a job; once it has one, the
// priority is applied to its whole process group: setpriority(PRIO_PGRP)
// sets every thread of every process in the group, and a thread the
// runtime makes later inherits the value of the thread it is made from.
// Only ever lowered: an unprivileged process cannot raise a priority back.
type jobPriority struct {
	mu      sync.Mutex
	nice    int // the level wanted
	pgid    int // the child's process group while it runs the job; 0 before and after
	applied int // the level the child runs at
	err     error
}

func newJobPriority(nice int) *jobPriority { return &jobPriority{nice: nice} }

// renice sets the nice value of every thread in the process group pgid;
// tests replace it.
var renice = func(pgid, nice int) error { return syscall.Setpriority(syscall.PRIO_PGRP, pgid, nice) }

// lower sets the job's level to nice unless it is already that low or
// lower, and applies it to the child when there is one.
func (j *jobPriority) lower(nice int) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if nice > j.nice {
		j.nice = nice
	}
	j.applyLocked()
}

// level is the nice value the job is to run at.
func (j *jobPriority) level() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.nice
}

// bind ties the job's level to the child whose process group is pgid and
// which was started at nice, and returns the function that unties them
// when the job ends (the group's id may then be reused).
func (j *jobPriority) bind(pgid, nice int) (unbind func()) {
	if j == nil || pgid <= 0 {
		return func() {}
	}
	j.mu.Lock()
	j.pgid, j.applied = pgid, nice
	j.applyLocked()
	j.mu.Unlock()
	return func() {
		j.mu.Lock()
		j.pgid = 0
		j.mu.Unlock()
	}
}

func (j *jobPriority) applyLocked() {
	if j.pgid == 0 || j.nice <= j.applied {
		return
	}
	if err := renice(j.pgid, j.nice); err != nil {
		j.err = err // the job runs on at the higher priority; the pool logs nothing per job
		return
	}
	j.applied = j.nice
}

type priorityKey struct{}

// withPriority hands the job's priority to the runner through the job's
// context (the pool's exec keeps the runner's signature).
func withPriority(ctx context.Context, j *jobPriority) context.Context {
	return context.WithValue(ctx, priorityKey{}, j)
}

// bindPriority applies the priority ctx carries, if any, to child c once
// it has its job; the returned function unties them.
func bindPriority(ctx context.Context, c *child) (unbind func()) {
	j, _ := ctx.Value(priorityKey{}).(*jobPriority)
	if j == nil || c.cmd == nil || c.cmd.Process == nil {
		return func() {}
	}
	return j.bind(c.cmd.Process.Pid, c.limits.Nice) // Setpgid: the group's id is the child's pid
}

// StartNiced starts cmd at nice (1 to 19) from its first instruction, as
// the pool starts its children: for other heavy work done for a job, such
// as the native referee's build. Where the priority cannot be set, cmd
// starts at this process's own, as the children then do.
func StartNiced(cmd *exec.Cmd, nice int) error {
	_, err := lowPriority.start(cmd, nice)
	return err
}

// Key is the key the ticket was admitted for ("" for a nil ticket).
func (t *Ticket) Key() string {
	if t == nil {
		return ""
	}
	return t.key
}

// Marked reports whether a job of key ran long or hit its CPU or
// wall-clock limit lately: such a key's jobs run at LowNice and come
// after others' (see Pool).
func (p *Pool) Marked(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.markedLocked(p.keys[key], p.now())
}
