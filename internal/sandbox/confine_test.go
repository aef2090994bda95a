package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hostileJob is what the confinement tests hand a hostile child: where
// its scratch directory is, and what of the host it will try to reach.
type hostileJob struct {
	Scratch string `json:"scratch"` // may be written
	Outside string `json:"outside"` // a directory outside it, with a file "keep" in it
	TCP     string `json:"tcp"`     // a listener's address, 127.0.0.1:PORT
	Unix    string `json:"unix"`    // a listening UNIX socket's path
	TmpDir  string `json:"tmpdir"`  // a directory to make in the host's temporary directory
}

// runHostileChild tries one thing a confined child must not do and writes
// one result line "MODE: ok" or "MODE: ERROR" (each mode in the comment
// of its case). The job (hostileJob) comes on stdin.
func runHostileChild(mode string, results io.Writer) {
	var job hostileJob
	data, _ := io.ReadAll(os.Stdin)
	json.Unmarshal(data, &job)
	report := func(err error) {
		if err == nil {
			fmt.Fprintf(results, "%s: ok\n", mode)
			return
		}
		fmt.Fprintf(results, "%s: %v\n", mode, err)
	}
	switch mode {
	case "socket-inet": // a TCP socket of any kind
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err == nil {
			syscall.Close(fd)
		}
		report(err)
	case "socket-inet6":
		fd, err := syscall.Socket(syscall.AF_INET6, syscall.SOCK_DGRAM, 0)
		if err == nil {
			syscall.Close(fd)
		}
		report(err)
	case "dial-local": // the server's own port on the loopback
		c, err := net.DialTimeout("tcp", job.TCP, 2*time.Second)
		if err == nil {
			c.Close()
		}
		report(err)
	case "dial-unix": // a UNIX socket of the host, by its path
		c, err := net.DialTimeout("unix", job.Unix, 2*time.Second)
		if err == nil {
			c.Close()
		}
		report(err)
	case "socketpair": // allowed: a pipe with two ends
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err == nil {
			syscall.Close(fds[0])
			syscall.Close(fds[1])
		}
		report(err)
	case "write-outside": // create a file outside the scratch directory
		f, err := os.Create(filepath.Join(job.Outside, "planted"))
		if err == nil {
			f.Close()
		}
		report(err)
	case "remove-outside": // delete one
		report(os.Remove(filepath.Join(job.Outside, "keep")))
	case "mkdir-tmp":
		report(os.Mkdir(job.TmpDir, 0o700))
	case "write-scratch": // allowed (empty: RLIMIT_FSIZE is 0)
		f, err := os.Create(filepath.Join(job.Scratch, "mine"))
		if err == nil {
			f.Close()
		}
		report(err)
	case "passwd":
		_, err := os.ReadFile("/etc/passwd")
		report(err)
	case "zoneinfo": // allowed: the runtime's own needs
		_, err := time.LoadLocation("Europe/Paris")
		report(err)
	case "exec": // start another program
		report(exec.Command("/bin/true").Run())
	case "execve": // become another program
		report(syscall.Exec("/bin/true", []string{"true"}, nil))
	case "fork": // a copy of this process, the raw call
		pid, _, errno := syscall.RawSyscall(syscall.SYS_FORK, 0, 0, 0)
		if errno == 0 && pid == 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
		if errno != 0 {
			report(errno)
			return
		}
		report(nil)
	case "clone-process": // clone without CLONE_THREAD is a fork
		pid, _, errno := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
		if errno == 0 && pid == 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
		if errno != 0 {
			report(errno)
			return
		}
		report(nil)
	case "stacked-fork", "stacked-clone": // fork after stacking StackedFilter(no exec, no spawn)
		prog, err := StackedFilter(false, false, "kill")
		if err != nil {
			report(err)
			return
		}
		runtime.LockOSThread() // the filter is this thread's (no TSYNC), as a Python lane's
		fprog := unix.SockFprog{Len: uint16(len(prog) / 8), Filter: (*unix.SockFilter)(unsafe.Pointer(&prog[0]))}
		if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
			report(err)
			return
		}
		nr := uintptr(syscall.SYS_FORK)
		if mode == "stacked-clone" {
			nr = syscall.SYS_CLONE
		}
		pid, _, errno := syscall.RawSyscall6(nr, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
		if errno == 0 && pid == 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
		if errno != 0 {
			report(errno)
			return
		}
		report(nil)
	case "threads": // allowed: the runtime makes threads
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				runtime.LockOSThread() // never unlocked: the thread ends with its goroutine
				time.Sleep(10 * time.Millisecond)
			})
		}
		wg.Wait()
		report(nil)
	case "signal-parent": // signal a process outside the child
		report(syscall.Kill(os.Getppid(), 0))
	case "io-uring": // its operations would bypass seccomp
		_, _, errno := syscall.RawSyscall(425 /* io_uring_setup on amd64 and arm64 */, 8, 0, 0)
		if errno != 0 {
			report(errno)
			return
		}
		report(nil)
	}
}

// TestConfinementRefuses runs a confined child that tries each thing a
// hostile submission would, with and without the network namespace, and
// checks it is refused with the kernel's own error, the allowed ones
// (threads, a socket pair, the scratch directory, the time zone files)
// still work, and nothing is left behind.
func TestConfinementRefuses(t *testing.T) {
	have := Confinement()
	t.Log(have)
	if !have.Seccomp || have.LandlockABI == 0 {
		t.Skipf("this kernel confines only in part: %v", have.Missing())
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	sockDir := t.TempDir()
	unixLn, err := net.Listen("unix", filepath.Join(sockDir, "host.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unixLn.Close()
	var accepted sync.WaitGroup
	var reached []string
	var mu sync.Mutex
	for _, ln := range []net.Listener{tcp, unixLn} {
		accepted.Go(func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				reached = append(reached, ln.Addr().String())
				mu.Unlock()
				c.Close()
			}
		})
	}

	const (
		eperm  = "operation not permitted"
		eacces = "permission denied"
	)
	tests := []struct {
		mode string
		want string // "ok" or the error's text
	}{
		{"socket-inet", eperm},
		{"socket-inet6", eperm},
		{"dial-local", eperm},
		{"dial-unix", eperm},
		{"socketpair", "ok"},
		{"write-outside", eacces},
		{"remove-outside", eacces},
		{"mkdir-tmp", eacces},
		{"write-scratch", "ok"},
		{"passwd", eacces},
		{"zoneinfo", "ok"},
		{"exec", eperm},
		{"execve", eperm},
		{"fork", eperm},
		{"clone-process", eperm},
		{"threads", "ok"},
		{"signal-parent", eperm},
		{"io-uring", eperm},
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []struct {
		name       string
		namespaces bool
		via        bool // confined by ConfineExecCommand before it executes the child
	}{
		{"self", true, false},
		{"self-no-namespaces", false, false},
		{"via", true, true},
	} {
		for _, tt := range tests {
			t.Run(tt.mode+"/"+how.name, func(t *testing.T) {
				if tt.mode == "signal-parent" && have.LandlockABI < 6 {
					t.Skipf("Landlock ABI %d does not scope signals (6 does)", have.LandlockABI)
				}
				if how.via && tt.mode == "execve" {
					// execve is allowed, to start the child: Landlock
					// refuses any other program.
					tt.want = eacces
				}
				scratch, outside := t.TempDir(), t.TempDir()
				keep := filepath.Join(outside, "keep")
				if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
				tmpDir := filepath.Join(os.TempDir(), "faultline-confine-"+filepath.Base(scratch))
				job, _ := json.Marshal(hostileJob{Scratch: scratch, Outside: outside, TCP: tcp.Addr().String(),
					Unix: unixLn.Addr().String(), TmpDir: tmpDir})
				r := testRunner(tt.mode, Limits{WallTime: 10 * time.Second})
				r.NoNamespaces = !how.namespaces
				r.Confine = &ConfinePolicy{Scratch: scratch}
				if how.via {
					r.ConfineVia = []string{self, ConfineExecCommand}
				}
				var lines []string
				var lmu sync.Mutex
				out, err := r.Run(context.Background(), job, collect(&lines, &lmu))
				if err != nil {
					t.Fatal(err)
				}
				if !out.OK() || len(lines) != 1 {
					t.Fatalf("the child ended %s with results %q; stderr %.300s", out.Describe(), lines, out.Stderr)
				}
				want := tt.mode + ": " + tt.want
				if !strings.HasSuffix(lines[0], tt.want) {
					t.Errorf("got %q, want %q", lines[0], want)
				}
				if _, err := os.Stat(filepath.Join(outside, "planted")); err == nil {
					t.Error("the child planted a file outside its scratch directory")
				}
				if data, err := os.ReadFile(keep); err != nil || string(data) != "x" {
					t.Errorf("the file outside the scratch directory changed: %q, %v", data, err)
				}
				if _, err := os.Stat(tmpDir); err == nil {
					os.Remove(tmpDir)
					t.Error("the child made a directory in the host's temporary directory")
				}
			})
		}
	}
	tcp.Close()
	unixLn.Close()
	accepted.Wait()
	if len(reached) > 0 {
		t.Errorf("confined children reached the host's sockets: %q", reached)
	}
}

// TestConfinementFailsClosed checks a child that cannot apply the
// confinement it was asked for runs nothing and the Run says why, as a
// fault of the sandbox (ErrConfine), for a one-job child and a reused one.
func TestConfinementFailsClosed(t *testing.T) {
	if have := Confinement(); have.LandlockABI == 0 {
		t.Skip("no Landlock here: a missing path is not looked at")
	}
	missing := filepath.Join(t.TempDir(), "no-such-library")
	policy := &ConfinePolicy{Read: []string{missing}}

	r := testRunner("echo", Limits{})
	r.Confine = policy
	out, err := r.Run(context.Background(), []byte("job"), nil)
	if !errors.Is(err, ErrConfine) || !strings.Contains(err.Error(), missing) {
		t.Errorf("one-job child: %v, %+v; want ErrConfine naming %s", err, out, missing)
	}

	runner := testRunner("framed", Limits{})
	runner.Confine = policy
	pool := NewPool(runner, 1, 1)
	pool.Reuse(Reuse{})
	defer pool.Close()
	ticket, err := pool.Admit("k")
	if err != nil {
		t.Fatal(err)
	}
	out, err = ticket.Run(context.Background(), []byte("pid"), nil)
	if !errors.Is(err, ErrConfine) {
		t.Errorf("reused child: %v, %+v; want ErrConfine", err, out)
	}
}

// TestConfinedChildIsReused checks a confined child still serves its
// key's jobs one after another (its end-of-job checks read /proc/self/fd),
// is confined in every one, and is still retired when a job leaves it
// unclean.
func TestConfinedChildIsReused(t *testing.T) {
	have := Confinement()
	if !have.Seccomp {
		t.Skip("no seccomp here")
	}
	runner := testRunner("framed", Limits{})
	runner.Confine = &ConfinePolicy{}
	pool := NewPool(runner, 2, 2)
	pool.Reuse(Reuse{})
	defer pool.Close()

	first := pidOf(t, pool, "k")
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", first))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "Seccomp:\t2") || !strings.Contains(string(status), "NoNewPrivs:\t1") {
		t.Errorf("the reused child is not under a seccomp filter:\n%s", status)
	}
	if again := pidOf(t, pool, "k"); again != first {
		t.Errorf("the confined child %d was not reused (%d ran the next job)", first, again)
	}
	if out, _ := submitAs(t, pool, "k", "leak"); !out.OK() {
		t.Fatalf("leak job: %s", out.Describe())
	}
	if next := pidOf(t, pool, "k"); next == first {
		t.Error("the confined child that leaked a goroutine ran the next job")
	}
	waitFor(t, func() bool { return processGone(first) })
}

// TestConfinedCommandLine checks what a Runner asks of its child on a
// kernel with all, some or none of the confinement: the parts it has, in
// the child's environment; through ConfineVia only when there is
// something to apply (the program refuses to run a child unconfined).
func TestConfinedCommandLine(t *testing.T) {
	all := ConfinementReport{LandlockABI: 7, Seccomp: true, Namespaces: true}
	noLandlock := ConfinementReport{LandlockErr: "not in lsm=", Seccomp: true, Namespaces: true}
	none := ConfinementReport{LandlockErr: "not in lsm=", SeccompErr: "refused"}
	const exe = "/srv/child" // not an ELF file: no loader to allow
	tests := []struct {
		name     string
		confine  *ConfinePolicy
		via      []string
		have     ConfinementReport
		wantArgv []string
		wantReq  *confineRequest // nil: no confinement asked
	}{
		{"off", nil, nil, all, []string{exe, "mode"}, nil},
		{"self", &ConfinePolicy{Scratch: "/s"}, nil, all, []string{exe, "mode"},
			&confineRequest{ConfinePolicy: ConfinePolicy{Scratch: "/s"}, Landlock: 7, Seccomp: true}},
		{"self without Landlock", &ConfinePolicy{}, nil, noLandlock, []string{exe, "mode"},
			&confineRequest{Seccomp: true}},
		{"via", &ConfinePolicy{}, []string{"/srv/server", ConfineExecCommand}, all,
			[]string{"/srv/server", ConfineExecCommand, "--", exe, "mode"},
			&confineRequest{ConfinePolicy: ConfinePolicy{Exec: []string{exe}}, Landlock: 7, Seccomp: true}},
		{"nothing to confine with", &ConfinePolicy{}, []string{"/srv/server", ConfineExecCommand}, none,
			[]string{exe, "mode"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Runner{Args: []string{"mode"}, Confine: tt.confine, ConfineVia: tt.via}
			argv, env := r.confinedBy(tt.have, exe, []string{"A=1"})
			if !slices.Equal(argv, tt.wantArgv) {
				t.Errorf("argv %q, want %q", argv, tt.wantArgv)
			}
			var got *confineRequest
			for _, kv := range env {
				if v, ok := strings.CutPrefix(kv, confineEnvName+"="); ok {
					got = &confineRequest{}
					if err := json.Unmarshal([]byte(v), got); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !reflect.DeepEqual(got, tt.wantReq) {
				t.Errorf("asked the child for %+v, want %+v", got, tt.wantReq)
			}
		})
	}
}

// TestConfinementReportWords checks the start-up line names what is
// there and why each missing part is missing.
func TestConfinementReportWords(t *testing.T) {
	tests := []struct {
		have     ConfinementReport
		complete bool
		want     []string
	}{
		{ConfinementReport{LandlockABI: 6, Seccomp: true, Namespaces: true}, true,
			[]string{"confined by Landlock ABI 6, seccomp, user+network namespaces"}},
		{ConfinementReport{LandlockErr: "not in lsm=", Seccomp: true, Namespaces: true}, false,
			[]string{"confined by seccomp, user+network namespaces", "missing: Landlock (files): not in lsm="}},
		{ConfinementReport{LandlockErr: "no", SeccompErr: "refused", NamespacesErr: "sysctl"}, false,
			[]string{"not confined by the kernel", "seccomp (sockets, processes): refused", "namespaces: sysctl"}},
	}
	for _, tt := range tests {
		s := tt.have.String()
		if tt.have.Complete() != tt.complete {
			t.Errorf("%s: Complete() = %v", s, !tt.complete)
		}
		for _, w := range tt.want {
			if !strings.Contains(s, w) {
				t.Errorf("%q does not say %q", s, w)
			}
		}
	}
}

// TestConfineAndExecNeedsARequest checks the confining program refuses
// to execute anything when no confinement was asked for (started by
// hand, or by a Runner without Confine): it would run it unconfined.
func TestConfineAndExecNeedsARequest(t *testing.T) {
	t.Setenv(confineEnvName, "")
	os.Unsetenv(confineEnvName)
	for _, argv := range [][]string{{"--", "/bin/true"}, {"/bin/true"}, {"--"}, nil} {
		err := ConfineAndExec(argv) // on success this process would be /bin/true now
		if err == nil || (len(argv) > 0 && argv[len(argv)-1] == "/bin/true" && !strings.Contains(err.Error(), confineEnvName)) {
			t.Errorf("ConfineAndExec(%q) = %v", argv, err)
		}
	}
}
