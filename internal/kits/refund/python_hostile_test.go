package refund_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"golang.org/x/sys/unix"
)

// pythonHostileHeader is every hostile file's start: the kit's module,
// and escaped(what), which a file calls when what it tried worked.
const pythonHostileHeader = `import asyncio, os, sys, time
import refundkit
from refundkit import Outcome, Status

def escaped(what):
    raise SystemError("ESCAPED: " + what)

`

// pythonHostileCases are Python answers written to break out, each with
// the report's status and a message it must show. The refused ones let
// the refusal escape as the exception the report shows.
// orWallClock lets a case that burns CPU end at the wall-clock limit
// instead: grading children run at the lowest priority, and on a machine
// busy with other work (a test package's other tests, CI's neighbours) the
// wall clock can run out before the CPU limit does. Either way the answer
// was stopped at a limit the report names, with nothing left behind.
const orWallClock = `|wall-clock time limit of`

// cpuLimit is the report of an answer that loops for ever in its call:
// stopped at the CPU time limit, worded as a Go answer's is (the grade
// stops there; it does not go on looping in the next scenario's process
// until the wall clock runs out).
const cpuLimit = `The submission was stopped while the submission was loading or running the first scenario, ..success-on-retry..: it used up the CPU time limit of 4s; look for a loop` + orWallClock

var pythonHostileCases = []struct {
	name   string
	body   string // refund_money's body, indented four spaces
	status string // the report's status (regexp)
	want   string // in the report's text (regexp)
}{
	{"read /etc/passwd", `    open("/etc/passwd").read()
    escaped("read /etc/passwd")`, "fail", `PermissionError: \[Errno 13\] Permission denied: '/etc/passwd'`},
	{"list a directory outside the runtime", `    os.listdir("/tmp")
    escaped("listed /tmp")`, "fail", `PermissionError: \[Errno 13\] Permission denied: '/tmp'`},
	{"read the grading child's environment", `    open("/proc/%d/environ" % os.getppid()).read()
    escaped("read the parent's environment")`, "fail", `PermissionError: \[Errno 13\] Permission denied: '/proc/\d+/environ'`},
	{"write outside scratch", `    with open(PROBE, "w") as f:
        f.write("x")
    escaped("wrote " + PROBE)`, "fail", `PermissionError: \[Errno 13\] Permission denied: '.*escape-probe'`},
	{"socket to 127.0.0.1", `    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect(("127.0.0.1", 22))
    escaped("opened a socket")`, "fail", `PermissionError: \[Errno 1\] Operation not permitted`},
	{"a UNIX socket", `    import socket
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    escaped("opened a UNIX socket")`, "fail", `PermissionError: \[Errno 1\] Operation not permitted`},
	{"subprocess", `    import subprocess
    subprocess.run(["/bin/sh", "-c", "true"])
    escaped("ran a subprocess")`, "fail", `PermissionError: \[Errno 1\] Operation not permitted`},
	{"os.system", `    rc = os.system("touch " + PROBE)
    if rc == 0:
        escaped("os.system")
    raise OSError("os.system returned %d" % rc)`, "fail", `OSError: os.system returned 32512`}, // the shell never started: system(3)'s 127
	{"os.fork", `    if os.fork() == 0:
        os._exit(0)
    escaped("forked")`, "fail", `PermissionError: \[Errno 1\] Operation not permitted`},
	{"os.execv", `    os.execv(sys.executable, [sys.executable, "-c", "pass"])`, "fail", `PermissionError: \[Errno 1\] Operation not permitted`},
	{"ctypes: libc fork and socket", `    import ctypes
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    if libc.fork() >= 0 or libc.socket(2, 1, 0) >= 0 or libc.syscall(57) >= 0:
        escaped("ctypes")
    raise OSError(ctypes.get_errno(), "libc refused: " + os.strerror(ctypes.get_errno()))`, "fail", `(PermissionError|OSError): \[Errno 1\] libc refused: Operation not permitted`},
	{"os.kill of the parent", `    os.kill(os.getppid(), 9)
    escaped("killed the parent")`, "fail", `PermissionError: \[Errno 1\] Operation not permitted`},
	{"a huge allocation", `    b = bytearray(1 << 40)
    escaped("allocated 1 TiB")`, "fail", `MemoryError`},
	{"deep recursion past setrecursionlimit", `    sys.setrecursionlimit(10**6)
    def down(n):
        return down(n + 1) + 1
    down(0)`, "fail", `RecursionError: maximum recursion depth exceeded`},
	{"C recursion past setrecursionlimit", `    sys.setrecursionlimit(10**6)
    deep = []
    for _ in range(10**6):
        deep = [deep]
    repr(deep)`, "fail|error", `worker-1 ended before its call returned: killed by SIGSEGV \(the interpreter crashed: a stack overflow` + orWallClock},
	{"an infinite loop", `    while True:
        pass`, "error", cpuLimit},
	{"an infinite loop ignoring SIGTERM, SIGXCPU and SIGALRM", `    import signal
    for s in (signal.SIGTERM, signal.SIGXCPU, signal.SIGALRM, signal.SIGINT):
        signal.signal(s, signal.SIG_IGN)
    signal.alarm(1)
    while True:
        pass`, "error", cpuLimit},
	{"an output flood, then an answer", `    for _ in range(100000):
        print("x" * 500)
        os.write(1, b"y" * 500)
        os.write(2, b"z" * 500)
    raise ValueError("flooded")`, "fail", `ValueError: flooded`},
	{"an infinite loop at import", `    pass
while True:
    pass`, "error", `loading the code ended its process: killed by SIG(XCPU|KILL) \((the|stopped at a) .*CPU time limit` + orWallClock},
	{"os._exit at import", `    pass
os._exit(3)`, "error", `loading the code ended its process: it exited with status 3`},
	{"an output flood", `    line = "x" * 1000
    while True:
        print(line)`, "error", cpuLimit},
}

// TestPythonHostileContained grades each hostile Python answer through a
// real grading child of the kind a Python job gets (grading.NewPool's),
// confined as the server confines it: each is refused or stopped with a
// clear message in the report (the user's failure is data, never an
// error of the grader), leaves no process running and no file written,
// and the next grade in the same pool still passes.
func TestPythonHostileContained(t *testing.T) {
	if testing.Short() {
		t.Skip("grades hostile Python in child processes")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	if !sandbox.Confinement().Complete() {
		t.Skip("this kernel does not give all of the confinement: " + strings.Join(sandbox.Confinement().Missing(), "; "))
	}
	t.Setenv(pyenv.UnconfinedEnv, "")
	// Orphans of this test's children come to this process, where the
	// check below finds any still running.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)

	bin := builtServer(t)
	limits := sandbox.Limits{WallTime: 30 * time.Second, CPUTime: 4 * time.Second}
	runner := grading.NewChildRunner(limits, nil)
	runner.Executable = bin
	pyRunner := grading.NewPythonChildRunner(limits, nil)
	pyRunner.Executable = bin
	pool := sandbox.NewPool(runner, 1, 1)
	pool.SetKindRunner(grading.KindPython, pyRunner)
	svc := grading.New(pool, nil)
	scenarios, err := os.ReadFile("../../../content/" + refund.BuiltinScenariosFile)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(t.TempDir(), "escape-probe")
	gradeOnly := func(t *testing.T, source string, only ...string) *gradewire.Report {
		t.Helper()
		job := gradewire.Job{Kit: refund.Name, ScenariosFile: refund.BuiltinScenariosFile, Scenarios: scenarios,
			File: "refund.py", Source: source, FirstSeed: 1, Seeds: 2, Only: only}
		rep, err := svc.GradeKit(context.Background(), nil, job, only, nil)
		if err != nil {
			t.Fatalf("the grader failed (a hostile answer's failure must be data): %v", err)
		}
		return rep
	}
	grade := func(t *testing.T, source string) *gradewire.Report { return gradeOnly(t, source, "success-on-retry") }
	for _, tc := range pythonHostileCases {
		t.Run(tc.name, func(t *testing.T) {
			src := pythonHostileHeader + "PROBE = " + strconv.Quote(probe) + "\n\nasync def refund_money(request_id: str) -> Outcome:\n" + tc.body + "\n"
			rep := grade(t, src)
			text, _ := json.MarshalIndent(rep, "", "  ")
			if strings.Contains(string(text), "ESCAPED") {
				t.Fatalf("not contained:\n%s", text)
			}
			if !regexp.MustCompile("^("+tc.status+")$").MatchString(rep.Status) || !regexp.MustCompile(tc.want).Match(text) {
				t.Errorf("status %q, want %q; want the report to say %q:\n%s", rep.Status, tc.status, tc.want, unheld(rep))
			}
			if _, err := os.Stat(probe); err == nil {
				t.Errorf("%s was written", probe)
				os.Remove(probe)
			}
			if left := runningDescendants(); len(left) > 0 {
				t.Errorf("left running: %v", left)
			}
		})
	}
	// A lane is a process of its own, and one whose process ended is
	// replaced: each new one starts with what is left of the grade's CPU
	// time, not with the whole limit again. Four scenarios, each call
	// spending 2 of the 4 s and ending its process. A grading child keeps
	// a Python grade on one CPU (pyrun.Runtime.OneCPU), so its runs take
	// one lane at a time: the second lane has 2 s left and spends them,
	// and the grade stops in the second scenario, or, when that call's
	// loop ends within the kernel's tick before its limit does, in the
	// third, on the 1 s floor (on two lanes at once, as before OneCPU, it
	// stopped in the third or fourth: [23] of 4 had finished). Without the budget
	// every scenario fails in a lane of its own and the grade ends as a
	// fail; on a machine so busy that 5 s of CPU take 30 s, the wall clock
	// may stop it first, as it may the other cases.
	t.Run("CPU time spent across processes", func(t *testing.T) {
		src := pythonHostileHeader + "\nasync def refund_money(request_id: str) -> Outcome:\n" +
			"    start = time.process_time()\n    while time.process_time() - start < 2:\n        pass\n    os._exit(0)\n"
		rep := gradeOnly(t, src, "success-on-retry", "lost-reply", "all-attempts-fail", "lost-reply-then-outage")
		want := regexp.MustCompile(`^The submission was stopped in scenario "[a-z-]+" \([12] of 4 scenarios had finished\): it used up the CPU time limit of 4s` + orWallClock)
		if rep.Status != "error" || !want.MatchString(rep.Message) {
			t.Errorf("status %q, want the report to say %q:\n%s", rep.Status, want, unheld(rep))
		}
		if left := runningDescendants(); len(left) > 0 {
			t.Errorf("left running: %v", left)
		}
	})
	t.Run("the reference still passes after", func(t *testing.T) {
		rep := grade(t, readSource(t, pyReferenceFile))
		if rep.Status != "pass" {
			t.Errorf("the reference: %s %s", rep.Status, rep.Message)
		}
	})
}

// runningDescendants are the processes (not zombies) whose parent chain
// leads to this one, each as "pid comm"; it waits up to a second for the
// ones ending.
func runningDescendants() []string {
	var left []string
	for try := 0; try < 20; try++ {
		left = left[:0]
		self := os.Getpid()
		parent := map[int]int{}
		comm := map[int]string{}
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			// pid (comm) state ppid ...
			s := string(data)
			i := strings.LastIndexByte(s, ')')
			if i < 0 {
				continue
			}
			f := strings.Fields(s[i+1:])
			if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
				continue
			}
			ppid, _ := strconv.Atoi(f[1])
			parent[pid] = ppid
			comm[pid] = s[strings.IndexByte(s, '(')+1 : i]
		}
		for pid := range parent {
			for p, n := parent[pid], 0; p > 1 && n < 64; p, n = parent[p], n+1 {
				if p == self {
					left = append(left, strconv.Itoa(pid)+" "+comm[pid])
					break
				}
			}
		}
		if len(left) == 0 {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return left
}

// unheld is what the report says besides the invariants that held.
func unheld(rep *gradewire.Report) string {
	var b strings.Builder
	b.WriteString(rep.Status + ": " + rep.Message + "\n")
	for _, sc := range rep.Scenarios {
		for _, inv := range sc.Invariants {
			if inv.Status != "held" {
				data, _ := json.Marshal(inv)
				b.WriteString("  " + sc.Name + ": " + string(data) + "\n")
			}
		}
	}
	return b.String()
}
