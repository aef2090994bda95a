package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// DefaultPrlimitPath is where util-linux's prlimit is looked for when it
// is not on PATH.
const DefaultPrlimitPath = "/usr/bin/prlimit"

// ResultFD is the file descriptor on which a child writes its results.
const ResultFD = 3

// waitDelay bounds how long Wait waits for the child's output pipes after
// it was killed or exited: a grandchild holding them must not hang us.
const waitDelay = 2 * time.Second

// ErrNoPrlimit means util-linux prlimit is not installed: without it the
// limits cannot be applied before the child's runtime starts, and no
// child is run.
var ErrNoPrlimit = errors.New("sandbox: prlimit (util-linux) not found; install util-linux")

// Runner starts one child process per Run. The zero value is not usable:
// set Args at least. A Runner is safe for concurrent use.
type Runner struct {
	// Executable is the binary to run in child mode; empty means the
	// current one (os.Executable).
	Executable string
	// Args select the child mode, e.g. {"__grade-child"}.
	Args []string
	// Env is added to the child's clean environment (KEY=VALUE).
	Env []string
	// Limits for every child; zero fields take their defaults.
	Limits Limits
	// Prlimit is the path of util-linux's prlimit; empty means look it
	// up on PATH, then at DefaultPrlimitPath.
	Prlimit string
	// NoNamespaces skips new user and network namespaces even where the
	// host allows them.
	NoNamespaces bool
	// Logger receives the one-time note when namespaces are unavailable;
	// nil means slog.Default().
	Logger *slog.Logger
	// Confine, when set, has every child confine itself by the kernel
	// under this policy (confine.go): the child must call ConfineSelf
	// before it reads its job, or ConfineVia must be set.
	Confine *ConfinePolicy
	// ConfineVia, when set with Confine, is a program and its arguments
	// that confines itself and then executes the child (the server binary
	// and ConfineExecCommand): for a child that cannot call ConfineSelf.
	ConfineVia []string

	mu         sync.Mutex
	nsBroken   bool // namespaces failed once: never try again
	niceBroken bool // setpriority failed once: logged
	prlimit    string
	lookupErr  error
	looked     bool
}

// ResultHandler receives each complete line the child writes to fd 3,
// without its newline, in order, on one goroutine. The slice is only valid
// during the call. Returning an error kills the child.
type ResultHandler func(line []byte) error

// Run starts the child, writes input to its stdin, hands every result
// line to onResult, and classifies how it ended. The child is killed when
// ctx ends or its wall-clock limit runs out. The error is only for a
// failure of the sandbox itself (no prlimit, cannot start the binary);
// anything the child does is described by the Outcome.
func (r *Runner) Run(ctx context.Context, input []byte, onResult ResultHandler) (*Outcome, error) {
	c, err := r.start()
	if err != nil {
		return nil, err
	}
	return r.runJob(ctx, c, input, onResult, false)
}

// pipeAtomic is what a write to a fresh, empty pipe always takes without
// blocking (one page, the smallest pipe capacity Linux shrinks a pipe to).
const pipeAtomic = 4096

// errSpareGone means a spare child had died before its job reached it:
// the job was not given to it and nothing of the job ran.
var errSpareGone = errors.New("sandbox: the spare child died while idle")

// child is a started child process that may not have its job yet: it
// blocks reading stdin until runJob writes the job. A child gets exactly
// one job, or (reusable, reuse.go) the jobs of one key only: a process
// never serves two keys, which is what keeps one candidate's code from
// seeing another's.
type child struct {
	cmd        *exec.Cmd
	limits     Limits
	namespaces bool
	stdin      *os.File // our end of the child's stdin
	stdinPeek  *os.File // a copy of the child's end, only to count what it left unread
	results    *os.File // our end of the result pipe (fd 3)
	stdout     *cappedBuffer
	stderr     *cappedBuffer
	kill       context.CancelFunc // ends the child's life: kills its process group
	started    time.Time
	exited     chan struct{} // closed once Wait returned
	waitErr    error         // what Wait returned; read after exited
	framed     *framedState  // set for a reusable child (reuse.go)
}

// start starts a child under the Runner's limits, ready for a job. The
// child has done its runtime and package initialisation by the time it
// blocks on stdin, so handing a job to it later skips all that.
func (r *Runner) start() (*child, error) { return r.startChild(nil) }

// startChild starts a one-job child, or with reuse a reusable one (see
// reuse.go).
func (r *Runner) startChild(reuse *Reuse) (*child, error) {
	limits := r.Limits.withDefaults()
	exe, prlimit, err := r.paths()
	if err != nil {
		return nil, err
	}
	resultR, resultW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: result pipe: %w", err)
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		resultR.Close()
		resultW.Close()
		return nil, fmt.Errorf("sandbox: stdin pipe: %w", err)
	}
	// The child's life is not the job's: a spare waits for a job that has
	// no context yet. runJob ties the job's context and wall-clock limit
	// to kill when it hands the job over.
	life, kill := context.WithCancel(context.Background())
	c := &child{
		limits:    limits,
		stdin:     stdinW,
		stdinPeek: stdinR,
		results:   resultR,
		stdout:    newCappedBuffer(limits.OutputBytes),
		stderr:    newCappedBuffer(limits.OutputBytes),
		kill:      kill,
		exited:    make(chan struct{}),
	}
	var lifeCPU int64
	if reuse != nil {
		lifeCPU = limits.lifeCPUSeconds(reuse.MaxJobs)
	}
	c.namespaces = r.namespacesWanted()
	c.cmd = r.command(life, exe, prlimit, limits, lifeCPU, stdinR, c.stdout, c.stderr, resultW, c.namespaces)
	err = r.startNiced(c.cmd, limits.Nice)
	if err != nil && c.namespaces && r.namespaceStartFailed(err) {
		c.namespaces = false
		c.cmd = r.command(life, exe, prlimit, limits, lifeCPU, stdinR, c.stdout, c.stderr, resultW, false)
		err = r.startNiced(c.cmd, limits.Nice)
	}
	// The child holds its own copy; EOF on results comes when it exits.
	resultW.Close()
	if err != nil {
		kill()
		resultR.Close()
		stdinR.Close()
		stdinW.Close()
		return nil, fmt.Errorf("sandbox: start %s: %w", exe, err)
	}
	c.started = time.Now()
	if reuse != nil {
		id, _ := statExe(exe)
		c.framed = &framedState{exe: exe, exeID: id, reader: bufio.NewReaderSize(resultR, 64<<10),
			pid: c.cmd.Process.Pid, limitJobs: reuse.MaxJobs}
	}
	go func() {
		c.waitErr = c.cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// startNiced starts cmd from an OS thread whose nice value is nice. A
// process inherits the nice value of the thread that forks it, so the
// child runs at that priority from its first instruction: prlimit, then
// the binary's runtime and every thread it makes. Setting it after the
// start would race the child's runtime, and Linux keeps a nice value per
// thread, so a later setpriority on the pid would miss threads already
// made.
func (r *Runner) startNiced(cmd *exec.Cmd, nice int) error {
	niceErr, err := lowPriority.start(cmd, nice)
	if niceErr != nil {
		r.priorityFailed(niceErr)
	}
	return err
}

// lowPriority starts children from one thread per nice value, each locked
// to its goroutine and kept for the life of the process. An unprivileged
// thread cannot lower its nice value back, so it is set once and the
// thread does nothing else. It must live on: the children's Pdeathsig
// fires when the thread that forked them ends, not only the process. (The
// runtime makes no new thread from a locked one, so nothing else inherits
// the nice value.)
var lowPriority niceStarters

type niceStarters struct {
	mu       sync.Mutex
	starters map[int]chan startRequest
}

type startRequest struct {
	cmd  *exec.Cmd
	done chan [2]error // the setpriority error, the start error
}

func (n *niceStarters) start(cmd *exec.Cmd, nice int) (niceErr, err error) {
	n.mu.Lock()
	if n.starters == nil {
		n.starters = map[int]chan startRequest{}
	}
	requests := n.starters[nice]
	if requests == nil {
		requests = make(chan startRequest)
		n.starters[nice] = requests
		go serveStarts(requests, nice)
	}
	n.mu.Unlock()
	done := make(chan [2]error, 1)
	requests <- startRequest{cmd: cmd, done: done}
	errs := <-done
	return errs[0], errs[1]
}

func serveStarts(requests <-chan startRequest, nice int) {
	runtime.LockOSThread() // never unlocked: see lowPriority
	niceErr := syscall.Setpriority(syscall.PRIO_PROCESS, 0, nice)
	for req := range requests {
		req.done <- [2]error{niceErr, req.cmd.Start()}
	}
}

// priorityFailed logs once that children run at the server's priority.
// Raising one's own nice value is always allowed on Linux; only a seccomp
// filter or an unusual kernel refuses it, and grading still works.
func (r *Runner) priorityFailed(err error) {
	r.mu.Lock()
	first := !r.niceBroken
	r.niceBroken = true
	log := r.Logger
	r.mu.Unlock()
	if !first {
		return
	}
	if log == nil {
		log = slog.Default()
	}
	log.Warn("sandbox: cannot lower the grading children's CPU priority; they compete with the server as equals",
		slog.String("error", err.Error()))
}

// alive reports whether the child has not exited yet.
func (c *child) alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// discard kills a child that never got a job and waits until it is reaped.
func (c *child) discard() {
	c.kill()
	<-c.exited
	c.stdin.Close()
	c.stdinPeek.Close()
	c.results.Close()
}

// unreadInput is the number of bytes of the job still in the child's stdin
// pipe, unread. After the child exited, more than zero means it died before
// it had its whole job: none of the job ran.
func (c *child) unreadInput() int {
	var n int32
	raw, err := c.stdinPeek.SyscallConn()
	if err != nil {
		return 0
	}
	var errno syscall.Errno
	raw.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	})
	if errno != 0 {
		return 0
	}
	return int(n)
}

// runJob hands input to a started child, collects its results and
// classifies how it ended. The wall-clock limit counts from the hand-over,
// not from the child's start. When spare is set and the child turns out to
// have died before the job reached it, runJob returns errSpareGone having
// run nothing, and the caller starts a fresh child instead.
func (r *Runner) runJob(ctx context.Context, c *child, input []byte, onResult ResultHandler, spare bool) (*Outcome, error) {
	if spare && !c.alive() {
		c.discard()
		return nil, errSpareGone
	}
	// The first bytes go in at once: a fresh pipe always takes them, so
	// this cannot block. With them in the pipe, a child that exits having
	// read nothing is seen by unreadInput.
	first := input[:min(len(input), pipeAtomic)]
	c.stdin.Write(first)
	defer c.results.Close()
	defer c.kill()
	defer bindPriority(ctx, c)() // the pool's priority for this job (priority.go)

	wallCtx, cancelWall := context.WithTimeout(ctx, c.limits.WallTime)
	defer cancelWall()
	stopWall := context.AfterFunc(wallCtx, c.kill)
	defer stopWall()
	handed := time.Now()

	go func() {
		// A child that stops reading (killed, or done with what it needs)
		// makes this fail: nothing to report.
		c.stdin.Write(input[len(first):])
		c.stdin.Close()
	}()

	var overflow bool
	readDone := make(chan int, 1)
	go func() {
		n, over, handlerErr := readResults(c.results, c.limits.ResultBytes, onResult)
		if over || handlerErr != nil {
			overflow = over
			c.kill()
		}
		readDone <- n
	}()

	<-c.exited
	wall := time.Since(handed)
	unread := c.unreadInput()
	// Closing our copy of the read end makes a writer still blocked on a
	// full pipe (the child died before reading it all) fail and return.
	c.stdinPeek.Close()
	var results int
	select {
	case results = <-readDone:
	case <-time.After(waitDelay):
		// Something outside the group still holds the pipe: stop reading.
		c.results.Close()
		results = <-readDone
	}
	if err := c.confineFailed(); err != nil {
		return nil, err
	}
	if spare && unread > 0 && results == 0 {
		// Killed at the very moment of the hand-over (the signal was on
		// its way while the job went in): the job never ran. A grading
		// child always reads its whole job before running any of it.
		return nil, errSpareGone
	}

	out := &Outcome{
		Limits:          c.limits,
		Namespaces:      c.namespaces,
		Warm:            spare,
		Wall:            wall,
		Stdout:          c.stdout.Bytes(),
		Stderr:          c.stderr.Bytes(),
		OutputTruncated: c.stdout.Truncated() || c.stderr.Truncated(),
		Results:         results,
		ExitCode:        -1,
	}
	if c.cmd.ProcessState == nil {
		return nil, fmt.Errorf("sandbox: wait for child: %w", c.waitErr)
	}
	classify(out, c.cmd.ProcessState, overflow, ctx.Err() != nil, wallCtx.Err() != nil)
	return out, nil
}

// command builds the exec.Cmd: prlimit applies the limits and then execs
// the binary itself, so the limits hold before the Go runtime starts.
// lifeCPU, when not zero, is the RLIMIT_CPU of a reusable child's whole
// life, in seconds.
func (r *Runner) command(ctx context.Context, exe, prlimit string, l Limits, lifeCPU int64, stdin *os.File,
	stdout, stderr io.Writer, results *os.File, namespaces bool) *exec.Cmd {
	limitArgs := l.prlimitArgs()
	env := childEnv(l, r.Env)
	if lifeCPU > 0 {
		for i, a := range limitArgs {
			if strings.HasPrefix(a, "--cpu=") {
				limitArgs[i] = fmt.Sprintf("--cpu=%d:%d", lifeCPU, lifeCPU)
			}
		}
		env = append(env, framedEnvName+"=1")
	}
	child, env := r.confined(exe, env)
	args := append(append(limitArgs, "--"), child...)
	cmd := exec.CommandContext(ctx, prlimit, args...)
	cmd.Dir = "/"
	cmd.Env = env
	cmd.Stdin = stdin
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.ExtraFiles = []*os.File{results} // becomes fd 3
	cmd.WaitDelay = waitDelay
	cmd.Cancel = func() error { return killGroup(cmd) }
	attr := &syscall.SysProcAttr{
		Setpgid:   true,
		Pdeathsig: syscall.SIGKILL, // the child dies with the server
	}
	if namespaces {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	cmd.SysProcAttr = attr
	return cmd
}

// childEnv is the child's whole environment. Nothing of ours is inherited:
// no YAEGI_* (yaegi reads them, one names a command to run), no secrets,
// no HOME or PATH (the child runs no other program and writes no files).
// GOMAXPROCS keeps one child to its share of the cores, GOMEMLIMIT makes
// the GC work before RLIMIT_AS becomes fatal, and GOTRACEBACK=none keeps
// the interpreter's Go stack (useless to a candidate, and full of host
// paths) out of stderr while the "panic:" or "fatal error:" line stays.
func childEnv(l Limits, extra []string) []string {
	env := []string{
		"GOMAXPROCS=" + strconv.Itoa(l.Procs),
		"GOMEMLIMIT=" + strconv.FormatInt(l.MemoryLimit, 10),
		"GOTRACEBACK=none",
	}
	return append(env, extra...)
}

// killGroup kills the child's whole process group (its pgid is its pid).
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// readResults hands each line of r to onResult until EOF, the byte cap, or
// a handler error. A last line without a newline was cut off by the
// child's death and is dropped.
func readResults(r io.Reader, capBytes int, onResult ResultHandler) (lines int, overflow bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var total int
	var line []byte
	for {
		chunk, readErr := br.ReadSlice('\n')
		total += len(chunk)
		if total > capBytes {
			return lines, true, nil
		}
		line = append(line, chunk...)
		if readErr == bufio.ErrBufferFull {
			continue
		}
		if readErr != nil {
			return lines, false, nil
		}
		if onResult != nil {
			if err := onResult(bytes.TrimSuffix(line, []byte{'\n'})); err != nil {
				return lines, false, err
			}
		}
		lines++
		line = line[:0]
	}
}

// classify fills the Ending and its details from how the process ended.
func classify(out *Outcome, ps *os.ProcessState, overflow, canceled, wallExpired bool) {
	out.CPU = ps.UserTime() + ps.SystemTime()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		out.MaxRSS = ru.Maxrss << 10 // Linux reports KiB
	}
	ws, _ := ps.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		out.Signal = ws.Signal().String()
	} else {
		out.ExitCode = ws.ExitStatus()
	}
	out.Fatal = fatalLine(out.Stderr)
	cpuLimit := time.Duration(out.Limits.cpuSeconds()) * time.Second

	switch {
	case overflow:
		out.Ending = EndResultLimit
	case canceled:
		out.Ending = EndCanceled
	case ws.Signaled() && (ws.Signal() == syscall.SIGXCPU ||
		ws.Signal() == syscall.SIGKILL && out.CPU >= cpuLimit-200*time.Millisecond):
		// The kernel's SIGKILL at the hard RLIMIT_CPU, not ours: the CPU
		// time used says which. Checked before the wall limit because the
		// CPU limit was reached first even if our timer fired meanwhile.
		out.Ending = EndCPUTime
	case wallExpired:
		out.Ending = EndWallTime
	case isMemoryFailure(out.Stderr):
		out.Ending = EndMemory
	case ws.Exited() && ws.ExitStatus() == 0:
		out.Ending = EndNormal
	default:
		out.Ending = EndCrash
	}
}

// paths resolves the child binary and prlimit once.
func (r *Runner) paths() (exe, prlimit string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.looked {
		r.looked = true
		r.prlimit, r.lookupErr = findPrlimit(r.Prlimit)
	}
	if r.lookupErr != nil {
		return "", "", r.lookupErr
	}
	exe = r.Executable
	if exe == "" {
		exe, err = os.Executable()
		if err != nil {
			return "", "", fmt.Errorf("sandbox: find the current executable: %w", err)
		}
	}
	return exe, r.prlimit, nil
}

// findPrlimit resolves prlimit: the given path, or PATH, or the default.
func findPrlimit(path string) (string, error) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("%w (looked at %s)", ErrNoPrlimit, path)
		}
		return path, nil
	}
	if p, err := exec.LookPath("prlimit"); err == nil {
		return p, nil
	}
	if _, err := os.Stat(DefaultPrlimitPath); err == nil {
		return DefaultPrlimitPath, nil
	}
	return "", fmt.Errorf("%w (not on PATH, not at %s)", ErrNoPrlimit, DefaultPrlimitPath)
}

func (r *Runner) namespacesWanted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.NoNamespaces && !r.nsBroken
}

// namespaceStartFailed records that this host refuses new namespaces (a
// container without user namespaces, a sysctl forbidding them) and logs it
// once; it reports whether the start should be retried without them.
func (r *Runner) namespaceStartFailed(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS: // what clone(CLONE_NEWUSER) returns when refused
	default:
		return false
	}
	r.mu.Lock()
	first := !r.nsBroken
	r.nsBroken = true
	log := r.Logger
	r.mu.Unlock()
	if first {
		if log == nil {
			log = slog.Default()
		}
		log.Warn("sandbox: new user and network namespaces are not allowed on this host; children run without them (limits still apply)",
			slog.String("error", err.Error()))
	}
	return true
}
