package pyrun

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// initMessage is what the zygote reads on its stdin before anything else.
type initMessage struct {
	Module       string `json:"module"`
	ModuleSource string `json:"module_source"`
	File         string `json:"file"`
	Source       string `json:"source"`
	Entry        string `json:"entry"`
	Params       int    `json:"params"`
	Want         string `json:"want"`
	// ZygoteFilter and LaneFilter, when the process is confined, are
	// seccomp programs (hex) the zygote loads on itself before it loads
	// anything (no execve past its own start), and that a lane, or the
	// process that loads the submission first, loads before any
	// submitted code runs (no execve, no new process, no signal to
	// another process).
	ZygoteFilter string `json:"zygote_filter,omitempty"`
	LaneFilter   string `json:"lane_filter,omitempty"`
}

// laneRefuses are the calls a lane is refused besides execve and new
// processes: signals to another process (its zygote, its grading child).
var laneRefuses = []string{"kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal"}

// stackedFilters are the init message's filters (see initMessage).
func stackedFilters(init *initMessage) error {
	zf, err := sandbox.StackedFilter(false, true)
	if err != nil {
		return err
	}
	lf, err := sandbox.StackedFilter(false, false, laneRefuses...)
	if err != nil {
		return err
	}
	init.ZygoteFilter, init.LaneFilter = hex.EncodeToString(zf), hex.EncodeToString(lf)
	return nil
}

// zygote is a python3 process that loaded the kit's module and the
// submission once, and forks a process for each worker's call: a fork of
// a loaded interpreter costs about a millisecond, a fresh python3 some
// 20 ms. It talks over a SOCK_SEQPACKET pair on its fd 3: each "fork"
// message carries the worker's end of a new socket (SCM_RIGHTS), and the
// answer is the worker process's pid.
type zygote struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	ctl    int
	stderr *cappedBuffer
	closed bool
	exited chan struct{} // closed once the zygote is reaped
}

// startTimeout bounds the zygote's start and the submission's load. A
// load that loops is ended by its CPU time limit first (4 to 10 s of CPU,
// which on a busy machine took 13 s of wall time): the bound is for code
// that waits at import, and must leave the CPU limit room to speak.
const startTimeout = 20 * time.Second

// startZygote starts python: confined where pyenv.Launch says how
// (through the server binary's sandbox.ConfineExecCommand, with the
// Python policy and the stacked filters), else only with the operator's
// leave.
func startZygote(python string, init initMessage) (*zygote, *gradewire.Diagnostic, error) {
	via, confine, why := pyenv.Launch()
	if why != "" {
		return nil, nil, errors.New(why)
	}
	if via != nil {
		if err := stackedFilters(&init); err != nil {
			return nil, nil, fmt.Errorf("pyrun: the seccomp filters: %w", err)
		}
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("pyrun: socketpair: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "zygote-control")
	defer theirs.Close()
	data, err := json.Marshal(init)
	if err != nil {
		syscall.Close(fds[0])
		return nil, nil, err
	}
	// -P: no script or working directory on sys.path; -s -S: no site
	// packages; -B: no bytecode written. PYTHONHASHSEED fixes str hashes
	// (set and dict orders of strings) so that a rerun is the same run.
	argv := append(via[:len(via):len(via)], python, "-P", "-s", "-S", "-B", "-c", runtimeSource)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PYTHONHASHSEED=0", "PYTHONIOENCODING=utf-8", "LC_ALL=C.UTF-8"}, confine...)
	cmd.Dir = "/"
	cmd.Stdin = bytes.NewReader(data)
	z := &zygote{cmd: cmd, ctl: fds[0], stderr: &cappedBuffer{limit: 16 << 10}}
	cmd.Stdout, cmd.Stderr = z.stderr, z.stderr
	cmd.ExtraFiles = []*os.File{theirs}
	// In the grading child's process group, which the sandbox kills whole.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		syscall.Close(fds[0])
		return nil, nil, fmt.Errorf("pyrun: start %s: %w", python, err)
	}
	z.exited = make(chan struct{})
	go func() {
		_ = cmd.Wait() // its end is seen on its socket
		close(z.exited)
	}()
	tv := syscall.NsecToTimeval(startTimeout.Nanoseconds())
	_ = syscall.SetsockoptTimeval(z.ctl, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	var first struct {
		Ready bool                  `json:"ready"`
		Diag  *gradewire.Diagnostic `json:"diag"`
	}
	msg, err := z.recv()
	if err == nil {
		err = json.Unmarshal(msg, &first)
	}
	if err != nil || (!first.Ready && first.Diag == nil) {
		z.close()
		time.Sleep(10 * time.Millisecond) // its last words
		return nil, nil, fmt.Errorf("pyrun: the zygote did not load the code (%v): %s", err, strings.TrimSpace(z.stderr.String()))
	}
	if first.Diag != nil {
		z.close()
		return nil, first.Diag, nil
	}
	tv = syscall.Timeval{}
	_ = syscall.SetsockoptTimeval(z.ctl, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	return z, nil, nil
}

func (z *zygote) recv() ([]byte, error) {
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(z.ctl, buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, errors.New("the zygote ended")
		}
		return buf[:n], nil
	}
}

// fork starts a worker process: its socket (ours of the pair) and pid.
func (z *zygote) fork() (*os.File, int, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("pyrun: socketpair: %w", err)
	}
	defer syscall.Close(fds[1])
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.closed {
		syscall.Close(fds[0])
		return nil, 0, errors.New("pyrun: the zygote is closed")
	}
	if err := syscall.Sendmsg(z.ctl, []byte("fork"), syscall.UnixRights(fds[1]), nil, 0); err != nil {
		syscall.Close(fds[0])
		return nil, 0, fmt.Errorf("pyrun: ask the zygote to fork: %w (%s)", err, strings.TrimSpace(z.stderr.String()))
	}
	msg, err := z.recv()
	var ans struct {
		Pid int `json:"pid"`
	}
	if err == nil {
		err = json.Unmarshal(msg, &ans)
	}
	if err != nil || ans.Pid <= 0 {
		syscall.Close(fds[0])
		return nil, 0, fmt.Errorf("pyrun: the zygote did not fork (%v): %s", err, strings.TrimSpace(z.stderr.String()))
	}
	// Non-blocking, so that a call waiting for its lane parks on the
	// runtime's poller rather than holding a thread in read(2): a lane
	// answers in tens of microseconds, past which the runtime hands a
	// blocked thread's processor to another thread, thousands of times
	// a grade.
	_ = syscall.SetNonblock(fds[0], true)
	return os.NewFile(uintptr(fds[0]), "python-worker"), ans.Pid, nil
}

// ending is how lane pid ended, as its zygote (its parent) reaped it:
// "killed by SIGSEGV (...)", "exited with status 3 (...)"; "" when the
// zygote cannot say. limit is "cpu-time" when the kernel ended the lane
// at its CPU time limit (a sandbox.Ending). A lane still running (its
// socket closed by the code) is killed first.
func (z *zygote) ending(pid int) (how, limit string) {
	_ = syscall.Kill(pid, syscall.SIGKILL)
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.closed {
		return "", ""
	}
	if err := syscall.Sendmsg(z.ctl, []byte("wait "+strconv.Itoa(pid)), nil, nil, 0); err != nil {
		return "", ""
	}
	msg, err := z.recv()
	var ans struct {
		Ending string `json:"ending"`
		Limit  string `json:"limit"`
	}
	if err != nil || json.Unmarshal(msg, &ans) != nil {
		return "", ""
	}
	return ans.Ending, ans.Limit
}

// close ends the zygote: its control socket closes, it reaps its workers
// (the caller ended them) and exits, so that their CPU time is this
// process's children's; one that does not exit soon is killed.
func (z *zygote) close() {
	z.mu.Lock()
	if z.closed {
		z.mu.Unlock()
		return
	}
	z.closed = true
	syscall.Close(z.ctl)
	z.mu.Unlock()
	select {
	case <-z.exited:
	case <-time.After(closeTimeout):
		_ = z.cmd.Process.Kill()
		<-z.exited
	}
}

// closeTimeout bounds the wait for a closed zygote to exit.
const closeTimeout = 2 * time.Second

// cappedBuffer keeps the first limit bytes written to it.
type cappedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *cappedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
