package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testChildArg makes this test binary act as a child (see TestMain): the
// real child modes live in the server binary, which this package must not
// depend on.
const testChildArg = "sandbox-test-child"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == ConfineExecCommand {
		ExitConfineFailed(ConfineAndExec(os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == testChildArg {
		runTestChild(os.Args[2])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var sink [][]byte

// runTestChild is one misbehaviour per mode, each the kind of thing
// interpreted code can make the grading child do.
func runTestChild(mode string) {
	if err := ConfineSelf(); err != nil {
		ExitConfineFailed(err)
	}
	results := os.NewFile(ResultFD, "results")
	if mode == "framed" {
		runFramedTestChild(results) // reuse_test.go
		return
	}
	if m, ok := strings.CutPrefix(mode, "read-"); ok {
		// Behave like a grading child until the job has arrived: a spare
		// waits for it without using CPU.
		io.ReadAll(os.Stdin)
		mode = m
	}
	switch mode {
	case "echo":
		in, _ := io.ReadAll(os.Stdin)
		fmt.Fprintf(results, "{\"progress\":1}\n")
		fmt.Fprintf(results, "{\"echo\":%q}\n", in)
	case "env":
		for _, kv := range os.Environ() {
			fmt.Fprintf(results, "%s\n", kv)
		}
		wd, _ := os.Getwd()
		fmt.Fprintf(results, "cwd=%s\n", wd)
	case "spin":
		for {
		}
	case "sleep":
		time.Sleep(time.Hour)
	case "alloc-huge":
		sink = append(sink, make([]byte, 1<<40))
	case "alloc-grow":
		for {
			sink = append(sink, bytes.Repeat([]byte{1}, 1<<20))
		}
	case "panic-goroutine":
		go func() { panic("boom in a goroutine") }()
		time.Sleep(time.Hour)
	case "map-writes":
		m := map[int]int{}
		for i := 0; i < 4; i++ {
			go func() {
				for j := 0; ; j++ {
					m[j%100] = j
				}
			}()
		}
		time.Sleep(time.Hour)
	case "stack-overflow":
		var f func(int) int
		f = func(n int) int { return f(n+1) + 1 }
		f(0)
	case "flood":
		chunk := bytes.Repeat([]byte("x"), 1<<10)
		for i := 0; i < 1024; i++ {
			os.Stdout.Write(chunk)
			os.Stderr.Write(chunk)
		}
		fmt.Fprintln(os.Stderr, "\nthe end")
		fmt.Fprintf(results, "{\"done\":true}\n")
	case "result-flood":
		line := bytes.Repeat([]byte("y"), 1<<10)
		for {
			results.Write(append(line, '\n'))
		}
	case "exit3":
		fmt.Fprintln(os.Stderr, "bad things")
		os.Exit(3)
	case "write-file":
		err := os.WriteFile("/tmp/faultline-sandbox-probe", []byte("x"), 0o600)
		fmt.Fprintf(results, "write=%v\n", err)
		os.Remove("/tmp/faultline-sandbox-probe")
	case "dial":
		_, err := net.DialTimeout("tcp", "1.1.1.1:80", 2*time.Second)
		fmt.Fprintf(results, "dial=%v\n", err)
	case "partial":
		fmt.Fprintf(results, "{\"complete\":1}\n{\"cut")
		os.Exit(0)
	default:
		runHostileChild(mode, results) // confine_test.go
	}
}

func testRunner(mode string, l Limits) *Runner {
	return &Runner{Args: []string{testChildArg, mode}, Limits: l, Env: []string{"YAEGI_EXTRA_BAD=1"}}
}

func collect(lines *[]string, mu *sync.Mutex) ResultHandler {
	return func(line []byte) error {
		mu.Lock()
		defer mu.Unlock()
		*lines = append(*lines, string(line))
		return nil
	}
}

func TestRunnerEndings(t *testing.T) {
	fast := Limits{WallTime: 3 * time.Second, CPUTime: time.Second, OutputBytes: 8 << 10, ResultBytes: 64 << 10}
	tests := []struct {
		mode       string
		limits     Limits
		ending     Ending
		describe   string // substring of Describe()
		results    int    // complete result lines, -1: don't care
		truncated  bool
		resultLine string // substring of some result line
	}{
		{mode: "echo", ending: EndNormal, describe: "finished", results: 2, resultLine: `"echo":"job-input"`},
		{mode: "spin", limits: Limits{WallTime: 60 * time.Second, CPUTime: time.Second}, ending: EndCPUTime, describe: "CPU time limit of 1s", results: 0},
		{mode: "sleep", limits: Limits{WallTime: 500 * time.Millisecond}, ending: EndWallTime, describe: "wall-clock time limit of 500ms", results: 0},
		{mode: "alloc-huge", ending: EndMemory, describe: "memory limit reached (address space 2 GiB)", results: 0},
		{mode: "alloc-grow", limits: Limits{WallTime: 20 * time.Second, CPUTime: 15 * time.Second, AddressSpace: 1 << 30, MemoryLimit: 256 << 20}, ending: EndMemory, describe: "memory limit reached (address space 1 GiB)", results: 0},
		// Too little address space for the Go runtime to even start is
		// still a memory limit, not a crash.
		{mode: "echo", limits: Limits{AddressSpace: 256 << 20}, ending: EndMemory, describe: "failed to reserve", results: 0},
		{mode: "panic-goroutine", ending: EndCrash, describe: "crashed: panic: boom in a goroutine", results: 0},
		{mode: "map-writes", limits: Limits{Procs: 2}, ending: EndCrash, describe: "crashed: fatal error: concurrent map writes", results: 0},
		// Unbounded recursion: the runtime doubles the goroutine stack until
		// the copy no longer fits under RLIMIT_AS.
		{mode: "stack-overflow", limits: Limits{WallTime: 20 * time.Second, CPUTime: 15 * time.Second}, ending: EndMemory, describe: "cannot allocate", results: 0},
		{mode: "flood", limits: fast, ending: EndNormal, results: 1, truncated: true},
		{mode: "result-flood", limits: fast, ending: EndResultLimit, describe: "result output passed its limit of 64 KiB", results: -1},
		{mode: "exit3", ending: EndCrash, describe: "crashed: exit status 3", results: 0},
		{mode: "write-file", ending: EndNormal, results: 1, resultLine: "write=write /tmp/faultline-sandbox-probe: file too large"},
		{mode: "partial", ending: EndNormal, results: 1, resultLine: `{"complete":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.mode+"/"+string(tt.ending), func(t *testing.T) {
			t.Parallel()
			if raceEnabled && tt.ending == EndMemory {
				t.Skip("a -race child runs out of address space in its own way")
			}
			var lines []string
			var mu sync.Mutex
			out, err := testRunner(tt.mode, tt.limits).Run(context.Background(), []byte("job-input"), collect(&lines, &mu))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if out.Ending != tt.ending {
				t.Fatalf("ending = %s (%s), want %s; stderr:\n%s", out.Ending, out.Describe(), tt.ending, out.Stderr)
			}
			if !strings.Contains(out.Describe(), tt.describe) {
				t.Errorf("Describe() = %q, want it to contain %q", out.Describe(), tt.describe)
			}
			if tt.results >= 0 && out.Results != tt.results {
				t.Errorf("results = %d, want %d: %q", out.Results, tt.results, lines)
			}
			if out.OutputTruncated != tt.truncated {
				t.Errorf("OutputTruncated = %v, want %v", out.OutputTruncated, tt.truncated)
			}
			if tt.truncated && !bytes.Contains(out.Stderr, []byte("the end")) {
				t.Errorf("the tail of a flooded stderr was not kept")
			}
			if tt.resultLine != "" && !strings.Contains(strings.Join(lines, "\n"), tt.resultLine) {
				t.Errorf("result lines %q, want one containing %q", lines, tt.resultLine)
			}
		})
	}
}

// TestRunnerEnvironment checks the child sees only the clean environment
// (plus what the Runner adds on purpose) and runs in "/".
func TestRunnerEnvironment(t *testing.T) {
	var lines []string
	var mu sync.Mutex
	r := &Runner{Args: []string{testChildArg, "env"}, Limits: Limits{Procs: 2, MemoryLimit: 100 << 20}}
	t.Setenv("YAEGI_SPECIAL_STDLIB", "leaked")
	out, err := r.Run(context.Background(), nil, collect(&lines, &mu))
	if err != nil || !out.OK() {
		t.Fatalf("Run: %v %+v", err, out)
	}
	want := []string{"GOMAXPROCS=2", fmt.Sprintf("GOMEMLIMIT=%d", 100<<20), "GOTRACEBACK=none", "cwd=/"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("child environment:\n%s\nwant exactly:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestRunnerNetworkNamespace checks a child cannot reach the network when
// the host allows namespaces.
func TestRunnerNetworkNamespace(t *testing.T) {
	var lines []string
	var mu sync.Mutex
	r := testRunner("dial", Limits{})
	out, err := r.Run(context.Background(), nil, collect(&lines, &mu))
	if err != nil || !out.OK() {
		t.Fatalf("Run: %v %+v", err, out)
	}
	if !out.Namespaces {
		t.Skip("this host does not allow new user and network namespaces")
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "network is unreachable") {
		t.Errorf("dial from the child: %q, want network is unreachable", lines)
	}
}

func TestRunnerCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	out, err := testRunner("sleep", Limits{}).Run(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Ending != EndCanceled || out.Wall > 5*time.Second {
		t.Errorf("ending %s after %s, want canceled promptly", out.Ending, out.Wall)
	}
}

func TestRunnerHandlerErrorKillsChild(t *testing.T) {
	stop := errors.New("enough")
	out, err := testRunner("result-flood", Limits{}).Run(context.Background(), nil, func([]byte) error { return stop })
	if err != nil {
		t.Fatal(err)
	}
	if out.OK() || out.Results != 0 {
		t.Errorf("child went on after the handler refused a line: %s, %d results", out.Ending, out.Results)
	}
}

func TestRunnerMissingExecutable(t *testing.T) {
	r := &Runner{Executable: "/nonexistent/faultline", Args: []string{"x"}}
	out, err := r.Run(context.Background(), nil, nil)
	// prlimit starts, then cannot exec the binary: it reports that and
	// exits non-zero, which is a crash of the child, not a sandbox error.
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if out.Ending != EndCrash || !strings.Contains(string(out.Stderr), "/nonexistent/faultline") {
		t.Errorf("ending %s, stderr %q", out.Ending, out.Stderr)
	}
}

func TestRunnerWithoutPrlimit(t *testing.T) {
	r := testRunner("echo", Limits{})
	r.Prlimit = "/nonexistent/prlimit"
	out, err := r.Run(context.Background(), nil, nil)
	if !errors.Is(err, ErrNoPrlimit) || out != nil {
		t.Fatalf("Run without prlimit: %v, %v; want ErrNoPrlimit and no child", out, err)
	}
	if !strings.Contains(err.Error(), "install util-linux") || !strings.Contains(err.Error(), "/nonexistent/prlimit") {
		t.Errorf("error %q should say what is missing and where it looked", err)
	}
}

func TestLimitsPrlimitArgs(t *testing.T) {
	tests := []struct {
		name   string
		limits Limits
		want   string
	}{
		{"defaults", Limits{}, "--as=2147483648 --cpu=10:11 --nofile=32 --fsize=0 --core=0"},
		{"cpu rounded up", Limits{CPUTime: 1500 * time.Millisecond, AddressSpace: 1 << 30, OpenFiles: 8},
			"--as=1073741824 --cpu=2:3 --nofile=8 --fsize=0 --core=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(tt.limits.withDefaults().prlimitArgs(), " ")
			if got != tt.want {
				t.Errorf("prlimit args %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCappedBuffer(t *testing.T) {
	tests := []struct {
		name      string
		writes    []string
		limit     int
		want      string
		truncated bool
	}{
		{"under the cap", []string{"ab", "cd"}, 10, "abcd", false},
		{"exactly the cap", []string{"abcde"}, 5, "abcde", false},
		{"over the cap keeps the tail", []string{"abc", "defg"}, 3, "abcdefg", false},
		{"far over", []string{"abc", strings.Repeat("x", tailBytes), "END"}, 3,
			"abc\n[... output truncated ...]\n" + strings.Repeat("x", tailBytes-3) + "END", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newCappedBuffer(tt.limit)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := string(b.Bytes()); got != tt.want {
				t.Errorf("Bytes() = %q, want %q", got, tt.want)
			}
			if b.Truncated() != tt.truncated {
				t.Errorf("Truncated() = %v", b.Truncated())
			}
		})
	}
}

func TestFatalLine(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{"panic: boom\n\ngoroutine 1 [running]:\n", "panic: boom"},
		{"runtime: out of memory: cannot allocate 1099511627776-byte block (3833856 in use)\nfatal error: out of memory\n", "runtime: out of memory: cannot allocate 1099511627776-byte block (3833856 in use)"},
		{"some output\nfatal error: concurrent map writes\n", "fatal error: concurrent map writes"},
		{"panic: boom [recovered, repanicked]\n", "panic: boom"},
		{"nothing useful\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := fatalLine([]byte(tt.stderr)); got != tt.want {
				t.Errorf("fatalLine = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNamespaceFallback checks a host that refuses namespaces makes the
// Runner retry without them, log it once, and not try again.
func TestNamespaceFallback(t *testing.T) {
	var logs bytes.Buffer
	r := testRunner("echo", Limits{})
	r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	tests := []struct {
		name  string
		err   error
		retry bool
	}{
		{"EPERM from clone", &os.SyscallError{Syscall: "clone", Err: syscall.EPERM}, true},
		{"again, logged no more", &os.SyscallError{Syscall: "clone", Err: syscall.EINVAL}, true},
		{"not a namespace problem", &os.SyscallError{Syscall: "execve", Err: syscall.ENOENT}, false},
		{"no errno at all", errors.New("something else"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.namespaceStartFailed(tt.err); got != tt.retry {
				t.Errorf("retry = %v, want %v", got, tt.retry)
			}
		})
	}
	if n := strings.Count(logs.String(), "namespaces are not allowed"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs.String())
	}
	out, err := r.Run(context.Background(), []byte("x"), nil)
	if err != nil || !out.OK() || out.Namespaces {
		t.Errorf("after the fallback: %v, ok=%v, namespaces=%v; want a normal run without namespaces", err, out.OK(), out.Namespaces)
	}
}

// niceOf reads the nice value of every thread of pid from /proc.
func niceOf(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	var nices []int
	for _, task := range tasks {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue // the thread ended meanwhile
		}
		// Fields after the command name, which may hold spaces: the
		// state is field 3, nice is field 19.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		n, err := strconv.Atoi(fields[19-3])
		if err != nil {
			t.Fatalf("nice field of %s: %v", stat, err)
		}
		nices = append(nices, n)
	}
	return nices
}

// TestChildRunsAtLowPriority checks that every thread of a child, spare or
// not, runs at the limits' nice value from the start, and that no thread
// of the server is left at that priority.
func TestChildRunsAtLowPriority(t *testing.T) {
	for _, nice := range []int{0, LowNice} { // 0: the default, DefaultNice
		t.Run(fmt.Sprint("nice ", nice), func(t *testing.T) {
			r := testRunner("read-sleep", Limits{WallTime: 10 * time.Second, Nice: nice})
			want := r.Limits.withDefaults().Nice
			c, err := r.start()
			if err != nil {
				t.Fatal(err)
			}
			defer c.discard()
			pid := c.cmd.Process.Pid
			// Once the Go runtime of the child runs it has several threads.
			waitFor(t, func() bool { return len(niceOf(t, pid)) > 1 })
			for _, n := range niceOf(t, pid) {
				if n != want {
					t.Errorf("a thread of the child has nice %d, want %d", n, want)
				}
			}
			// The thread that starts children keeps their nice value; no
			// other thread of this process may have it.
			ours := niceOf(t, os.Getpid())
			if n := len(slices.DeleteFunc(slices.Clone(ours), func(n int) bool { return n != want })); n != 1 {
				t.Errorf("%d threads of this process have nice %d, want 1 (the one starting children): %v", n, want, ours)
			}
		})
	}
}
