package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// A reusable child runs one job after another for one key (see
// Pool.Reuse). It differs from a one-job child in three ways:
//
//   - its jobs come framed on stdin: a header line "job NONCE LENGTH", then
//     LENGTH bytes; stdin stays open between jobs, and its end is the
//     child's cue to exit;
//   - it ends each job with an end line on fd 3, endPrefix NONCE, then its
//     state after the job as JSON (JobEnd); the nonce is new for each job,
//     so an end line can only be the one the parent is waiting for;
//   - the kernel's RLIMIT_CPU counts the child's whole life, so it is set
//     to the life's budget (MaxJobs jobs) and each job's CPU time is
//     watched by the parent from /proc/PID/stat, the child killed when the
//     job's own CPU time reaches Limits.CPUTime (cpuWatch).
//
// The wall-clock limit, the result cap and the stray-output caps count per
// job; RLIMIT_AS and GOMEMLIMIT are the process's, and a child is only
// handed a next job when its live heap after a collection is small again
// (Reuse.MaxHeap). Any limit, crash, protocol error, stray output, leaked
// goroutine or file, or state the child itself says the job changed
// (JobEnd.Unfit) retires the child: it is killed as a process group and
// never reused.

// framedEnvName is set to "1" in a reusable child's environment.
const framedEnvName = "SANDBOX_FRAMED_JOBS"

// endPrefix starts a reusable child's end line, and startPrefix the line
// it writes first in each job, once it has the whole job: a line before
// it belongs to no job, and the child broke the protocol. The record
// separator cannot start a JSON line, which is all a child writes
// otherwise.
const (
	endPrefix   = "\x1esandbox-end "
	startPrefix = "\x1esandbox-start "
)

// cpuPoll is how often the parent reads a reused child's CPU time while
// it runs a job. A child on every core overshoots its budget by at most
// this times its threads running, plus a clock tick.
const cpuPoll = 50 * time.Millisecond

// Reuse says how a Pool keeps children for the key they served.
type Reuse struct {
	// Idle is how long a child waits for its key's next job before it is
	// retired. Default 30 s.
	Idle time.Duration
	// MaxIdle bounds the children waiting for their key's next job (each
	// keeps its heap: tens of MiB). Past it, the one idle longest is
	// retired. Default: the pool's size.
	MaxIdle int
	// MaxJobs is the most jobs one child runs. Default 32.
	MaxJobs int
	// MaxHeap is the most live heap a child may keep after a job (after a
	// full collection) and still be reused. Default 32 MiB (a refund
	// grade leaves about 1.4 MiB).
	MaxHeap int64
}

// Reuse defaults.
const (
	DefaultReuseIdle    = 30 * time.Second
	DefaultReuseMaxJobs = 32
	DefaultReuseMaxHeap = 32 << 20
)

func (r Reuse) withDefaults(size int) Reuse {
	if r.Idle <= 0 {
		r.Idle = DefaultReuseIdle
	}
	if r.MaxIdle <= 0 {
		r.MaxIdle = size
	}
	if r.MaxJobs <= 0 {
		r.MaxJobs = DefaultReuseMaxJobs
	}
	if r.MaxHeap <= 0 {
		r.MaxHeap = DefaultReuseMaxHeap
	}
	return r
}

// JobEnd is a reusable child's state after a job, which it sends on its
// end line; its idle values were taken before its first job.
type JobEnd struct {
	Goroutines     int   `json:"goroutines"`
	IdleGoroutines int   `json:"idle_goroutines"`
	HeapBytes      int64 `json:"heap"` // live heap after a full collection
	OpenFiles      int   `json:"files"`
	IdleOpenFiles  int   `json:"idle_files"`
	// Unfit is the child's own reason to run no more jobs (state of its
	// process the job changed, which only the job's code knows how to
	// see), or "".
	Unfit string `json:"unfit,omitempty"`
}

// unclean says why a child in this state may not run another job, or "".
func (e *JobEnd) unclean(maxHeap int64) string {
	switch {
	case e.Unfit != "":
		return "it says " + e.Unfit
	case e.Goroutines > e.IdleGoroutines:
		return fmt.Sprintf("%d goroutines left, %d when idle", e.Goroutines, e.IdleGoroutines)
	case e.OpenFiles > e.IdleOpenFiles:
		return fmt.Sprintf("%d files open, %d when idle", e.OpenFiles, e.IdleOpenFiles)
	case e.HeapBytes > maxHeap:
		return fmt.Sprintf("a live heap of %d bytes, past %d", e.HeapBytes, maxHeap)
	}
	return ""
}

// FramedChild reports whether this process is a reusable child: it must
// then read its jobs with ChildJobs.
func FramedChild() bool { return os.Getenv(framedEnvName) == "1" }

// ChildJobs is a reusable child's side of the protocol.
type ChildJobs struct {
	in       *bufio.Reader
	results  io.Writer
	maxBytes int
	nonce    string
	idle     *JobEnd // goroutines and files before the first job
}

// NewChildJobs reads framed jobs from in (stdin) of at most maxBytes each
// and writes end lines to results (fd 3).
func NewChildJobs(in io.Reader, results io.Writer, maxBytes int) *ChildJobs {
	return &ChildJobs{in: bufio.NewReader(in), results: results, maxBytes: maxBytes}
}

// Next waits for the next job and returns it whole; io.EOF means the
// parent closed stdin between jobs: the child should exit.
func (c *ChildJobs) Next() ([]byte, error) {
	if c.nonce != "" {
		return nil, errors.New("sandbox: the last job was not finished")
	}
	if c.idle == nil {
		c.idle = &JobEnd{Goroutines: runtime.NumGoroutine(), OpenFiles: openFiles()}
	}
	header, err := c.in.ReadString('\n')
	if err == io.EOF && header == "" {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: read a job's header: %w", err)
	}
	var nonce string
	var n int
	if k, err := fmt.Sscanf(header, "job %s %d\n", &nonce, &n); k != 2 || err != nil || n < 0 {
		return nil, fmt.Errorf("sandbox: a job's header %q is not \"job NONCE LENGTH\"", strings.TrimSpace(header))
	}
	if n > c.maxBytes {
		return nil, fmt.Errorf("sandbox: the job has %d bytes, more than %d", n, c.maxBytes)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(c.in, data); err != nil {
		return nil, fmt.Errorf("sandbox: read the job: %w", err)
	}
	c.nonce = nonce
	if _, err := io.WriteString(c.results, startPrefix+nonce+"\n"); err != nil {
		return nil, err
	}
	return data, nil
}

// Finished collects the garbage, measures the child and writes the end
// line of the job Next returned. Everything the job wrote to the results
// must be written before. unfit, when not "", says why the child must run
// no other job: the parent then retires it.
func (c *ChildJobs) Finished(unfit string) error {
	if c.nonce == "" {
		return errors.New("sandbox: no job to finish")
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	end := JobEnd{
		Goroutines:     runtime.NumGoroutine(),
		IdleGoroutines: c.idle.Goroutines,
		HeapBytes:      int64(ms.HeapAlloc),
		OpenFiles:      openFiles(),
		IdleOpenFiles:  c.idle.OpenFiles,
		Unfit:          unfit,
	}
	state, _ := json.Marshal(end)
	line := endPrefix + c.nonce + " " + string(state) + "\n"
	c.nonce = ""
	_, err := io.WriteString(c.results, line)
	return err
}

// openFiles counts this process's open file descriptors (the count
// includes the one reading the directory); -1 when it cannot be read,
// which the parent takes as unclean.
func openFiles() int {
	f, err := os.Open("/proc/self/fd")
	if err != nil {
		return 1 << 30
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return 1 << 30
	}
	return len(names)
}

// procCPU is the user+system CPU time process pid has used, all its
// threads, living and ended, from /proc/PID/stat.
func procCPU(pid int) (time.Duration, error) {
	fields, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	if len(fields) < 13 {
		return 0, errors.New("sandbox: short /proc stat")
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("sandbox: unexpected /proc stat times")
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// procStat is /proc/PID/stat's fields from the third on: fields[0] is
// the state, utime and stime (fields 14 and 15) are fields[11] and [12].
func procStat(pid int) ([]string, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil, errors.New("sandbox: unexpected /proc stat")
	}
	return strings.Fields(string(data[i+1:])), nil
}

// procDead says process pid has ended (a zombie not yet reaped, or gone),
// which the child's exited channel says only once it has been reaped.
func procDead(pid int) bool {
	fields, err := procStat(pid)
	return err != nil || len(fields) == 0 || fields[0] == "Z" || fields[0] == "X"
}

// clockTicks is USER_HZ, the unit of /proc's times: 100 on every Linux
// architecture Go supports.
const clockTicks = 100

// procPeakRSS is process pid's peak resident memory (VmHWM), bytes.
func procPeakRSS(pid int) int64 { return procStatus(pid, "VmHWM:") }

// procRSS is process pid's resident memory now (VmRSS), bytes.
func procRSS(pid int) int64 { return procStatus(pid, "VmRSS:") }

// procStatus is the size in bytes on the line of /proc/PID/status that
// starts with field.
func procStatus(pid int, field string) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// lifeCPUSeconds is a reusable child's RLIMIT_CPU: every job's budget
// and a second more each for the poll's slack. It is the kernel's
// backstop; each job's own limit is cpuWatch's.
func (l Limits) lifeCPUSeconds(jobs int) int64 {
	return int64(jobs)*(l.cpuSeconds()+1) + 1
}

// exeID identifies the binary a child was started from: a child whose
// binary was replaced since (a new build, other kits) runs no more jobs.
type exeID struct {
	dev, ino uint64
	size     int64
	mtime    int64
}

func statExe(path string) (exeID, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return exeID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return exeID{}, false
	}
	return exeID{dev: uint64(st.Dev), ino: st.Ino, size: fi.Size(), mtime: fi.ModTime().UnixNano()}, true
}

// framedState is what a reusable child carries from job to job.
type framedState struct {
	exe    string
	exeID  exeID
	reader *bufio.Reader // over results, kept between jobs
	jobs   int           // jobs handed to it
	pid    int
	key    string // the one key it serves, once it has served one
	last   JobEnd // its state after its last job
	// limitJobs is the most jobs it runs (Reuse.MaxJobs when started).
	limitJobs int
}

// sameBinary reports whether the child's binary is still the one on disk.
func (f *framedState) sameBinary() bool {
	id, ok := statExe(f.exe)
	return ok && id == f.exeID
}

// reset forgets what was written, for a reusable child's next job.
func (b *cappedBuffer) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.head, b.tail, b.total = nil, nil, 0
}

// pendingBytes is how many bytes wait unread in pipe f.
func pendingBytes(f *os.File) int {
	var n int32
	raw, err := f.SyscallConn()
	if err != nil {
		return -1
	}
	var errno syscall.Errno
	raw.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	})
	if errno != 0 {
		return -1
	}
	return int(n)
}

func newNonce() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// framedRead is how a reused child's job ended on its result pipe.
type framedRead struct {
	lines    int
	end      *JobEnd // the end line came
	overflow bool
	err      error // the handler's, or a protocol error
	// stray is set when a line came before the job's start line: the
	// child is broken, and nothing of this job reached the handler.
	stray bool
}

// readFramed hands each line to onResult until the job's end line, EOF,
// the byte cap, a handler error or a line that breaks the protocol.
func readFramed(br *bufio.Reader, capBytes int, nonce string, onResult ResultHandler) framedRead {
	var r framedRead
	var total int
	var line []byte
	started := false
	for {
		chunk, readErr := br.ReadSlice('\n')
		total += len(chunk)
		if total > capBytes {
			r.overflow = true
			return r
		}
		line = append(line, chunk...)
		if readErr == bufio.ErrBufferFull {
			continue
		}
		if readErr != nil {
			return r // EOF: the child ended
		}
		text := bytes.TrimSuffix(line, []byte{'\n'})
		if !started {
			if string(text) != startPrefix+nonce {
				r.err = fmt.Errorf("sandbox: a reused child sent %q before its job's start line", textTrim(text))
				r.stray = true
				return r
			}
			started = true
			line = line[:0]
			continue
		}
		if rest, ok := bytes.CutPrefix(text, []byte(endPrefix)); ok {
			got, state, _ := bytes.Cut(rest, []byte{' '})
			var end JobEnd
			if string(got) != nonce || json.Unmarshal(state, &end) != nil {
				r.err = fmt.Errorf("sandbox: a reused child sent a wrong end line %q", textTrim(text))
				return r
			}
			r.end = &end
			return r
		}
		if onResult != nil {
			if err := onResult(text); err != nil {
				r.err = err
				return r
			}
		}
		r.lines++
		line = line[:0]
	}
}

func textTrim(b []byte) string {
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b)
}

// runFramed hands one job to a reusable child and collects its results.
// reusable reports whether the child ended the job clean and alive, so
// it may run its key's next job; otherwise it was retired. why says what
// retired it, for logs. idle says the child waited for this job (a spare
// or a parked child): then errSpareGone means it had died before the job
// reached it and nothing ran.
func (r *Runner) runFramed(ctx context.Context, c *child, input []byte, onResult ResultHandler, maxHeap int64, idle bool) (out *Outcome, reusable bool, why string, err error) {
	f := c.framed
	// A child that died while idle may not be reaped yet (c.exited lags
	// its death): its state in /proc says so at once, and the job goes
	// to another child rather than crash in this one.
	if idle && (!c.alive() || procDead(f.pid)) {
		c.discard()
		return nil, false, "", errSpareGone
	}
	cpu0, cpuErr := procCPU(f.pid)
	if cpuErr != nil {
		// Without its CPU time it cannot be watched: it runs nothing.
		c.retire()
		if idle {
			return nil, false, "", errSpareGone
		}
		return nil, false, "", fmt.Errorf("sandbox: read the child's CPU time: %w", cpuErr)
	}
	c.stdout.reset()
	c.stderr.reset()
	f.jobs++
	nonce := newNonce()
	frame := append([]byte(fmt.Sprintf("job %s %d\n", nonce, len(input))), input...)
	// As in runJob: a first page always fits in the empty pipe, so a child
	// that dies having read none of it is seen by unreadInput.
	first := frame[:min(len(frame), pipeAtomic)]
	c.stdin.Write(first)
	// The pool's priority for this job (priority.go); a kept child keeps
	// the lowest it was given, as no child's priority is raised.
	defer bindPriority(ctx, c)()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		c.stdin.Write(frame[len(first):])
	}()

	wallCtx, cancelWall := context.WithTimeout(ctx, c.limits.WallTime)
	defer cancelWall()
	stopWall := context.AfterFunc(wallCtx, c.kill)
	defer stopWall()
	handed := time.Now()

	var cpuKilled atomic.Bool
	watchDone := make(chan struct{})
	defer close(watchDone)
	go cpuWatch(f.pid, cpu0, c.limits.cpuSeconds(), c.kill, &cpuKilled, watchDone)

	readDone := make(chan framedRead, 1)
	go func() {
		res := readFramed(f.reader, c.limits.ResultBytes, nonce, onResult)
		if res.end == nil {
			c.kill()
		}
		readDone <- res
	}()

	var res framedRead
	select {
	case res = <-readDone:
	case <-c.exited:
		select {
		case res = <-readDone:
		case <-time.After(waitDelay):
			c.results.Close()
			res = <-readDone
		}
	}
	wall := time.Since(handed)
	out = &Outcome{
		Limits:     c.limits,
		Namespaces: c.namespaces,
		Warm:       idle,
		Reused:     f.jobs - 1,
		Wall:       wall,
		Results:    res.lines,
		ExitCode:   -1,
	}
	if res.end != nil {
		stopWall()
		cpu1, err := procCPU(f.pid)
		unread := false
		select {
		case <-wrote: // the child read its whole job before it ended it
		case <-time.After(waitDelay):
			unread = true
		}
		out.Ending = EndNormal
		out.ExitCode = 0
		out.CPU = cpu1 - cpu0
		out.MaxRSS = procPeakRSS(f.pid)
		out.Stdout, out.Stderr = c.stdout.Bytes(), c.stderr.Bytes()
		out.OutputTruncated = c.stdout.Truncated() || c.stderr.Truncated()
		why = res.end.unclean(maxHeap)
		switch {
		case err != nil || cpuKilled.Load() || wallCtx.Err() != nil || !c.alive():
			why = "stopped as the job ended"
		case len(out.Stdout)+len(out.Stderr) > 0:
			why = "it wrote to its stdout or stderr"
		case f.reader.Buffered() > 0 || pendingBytes(c.results) != 0:
			why = "it wrote results after its end line"
		case unread || pendingBytes(c.stdinPeek) != 0:
			why = "it left part of its job unread"
		case f.jobs >= f.maxJobs():
			why = "it ran its last job"
		}
		if why != "" {
			c.retire()
			<-wrote
			return out, false, why, nil
		}
		f.last = *res.end
		return out, true, "", nil
	}

	// The child ended, or was killed, before its end line: how it ended
	// says why, as for a one-job child.
	<-c.exited
	unread := c.unreadInput()
	c.stdinPeek.Close()
	c.stdin.Close()
	<-wrote
	c.results.Close()
	if err := c.confineFailed(); err != nil {
		return nil, false, "", err
	}
	if idle && unread > 0 && res.lines == 0 && res.err == nil && !res.overflow {
		// Died while idle (a spare, or a child waiting for its key's next
		// job), before it read this job: nothing of it ran.
		return nil, false, "", errSpareGone
	}
	if idle && res.stray {
		// It wrote after its last job's end: that job's doing, and none of
		// this one reached the caller, who gets it run in another child.
		return nil, false, "", errSpareGone
	}
	if c.cmd.ProcessState == nil {
		return nil, false, "", fmt.Errorf("sandbox: wait for child: %w", c.waitErr)
	}
	out.Stdout, out.Stderr = c.stdout.Bytes(), c.stderr.Bytes()
	out.OutputTruncated = c.stdout.Truncated() || c.stderr.Truncated()
	classify(out, c.cmd.ProcessState, res.overflow, ctx.Err() != nil, wallCtx.Err() != nil)
	out.CPU -= cpu0 // the process's whole life: this job's share
	if cpuKilled.Load() && out.Ending != EndResultLimit && out.Ending != EndCanceled {
		out.Ending = EndCPUTime
	}
	if res.err != nil && out.Ending == EndCrash {
		why = res.err.Error()
	}
	return out, false, "it ended before its end line: " + string(out.Ending), nil
}

// maxJobs is the most jobs the child may run (Reuse.MaxJobs at its start).
func (f *framedState) maxJobs() int { return f.limitJobs }

// cpuWatch kills the child once it has used budget seconds of CPU since
// cpu0, checking every cpuPoll until done is closed.
func cpuWatch(pid int, cpu0 time.Duration, budget int64, kill func(), killed *atomic.Bool, done <-chan struct{}) {
	limit := cpu0 + time.Duration(budget)*time.Second
	t := time.NewTicker(cpuPoll)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		used, err := procCPU(pid)
		if err != nil {
			return // it has exited
		}
		if used >= limit {
			killed.Store(true)
			kill()
			return
		}
	}
}

// retire kills a reusable child and frees what it held.
func (c *child) retire() {
	c.kill()
	<-c.exited
	c.stdin.Close()
	c.stdinPeek.Close()
	c.results.Close()
}
