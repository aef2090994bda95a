package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// runFramedTestChild is a reusable child whose every job is a command:
// what a job of interpreted code can leave behind in a child that lives on.
func runFramedTestChild(results *os.File) {
	jobs := NewChildJobs(os.Stdin, results, 1<<20)
	var kept [][]byte
	for {
		data, err := jobs.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "fatal error: %v\n", err)
			os.Exit(2)
		}
		cmd, arg, _ := strings.Cut(string(data), " ")
		unfit := ""
		switch cmd {
		case "pid":
			fmt.Fprintf(results, "{\"pid\":%d}\n", os.Getpid())
		case "burn": // arg milliseconds of CPU
			ms, _ := strconv.Atoi(arg)
			burnCPU(time.Duration(ms) * time.Millisecond)
			fmt.Fprintf(results, "{\"burnt\":%d}\n", ms)
		case "spin":
			for {
			}
		case "sleep":
			time.Sleep(time.Hour)
		case "leak":
			go func() { select {} }()
			fmt.Fprintf(results, "{\"leaked\":1}\n")
		case "file":
			f, _ := os.Open("/proc/self/stat")
			openKept = append(openKept, f)
			fmt.Fprintf(results, "{\"opened\":1}\n")
		case "heap":
			for i := 0; i < 160; i++ {
				kept = append(kept, make([]byte, 1<<20))
			}
			fmt.Fprintf(results, "{\"kept\":%d}\n", len(kept))
		case "stray":
			fmt.Fprintln(os.Stderr, "a stray line")
			fmt.Fprintf(results, "{\"stray\":1}\n")
		case "panic":
			panic("boom in a reused child")
		case "after-end": // a result line after the end line
			jobs.Finished("")
			fmt.Fprintf(results, "{\"late\":1}\n")
			continue
		case "forged-end": // an end line with a nonce it guessed
			fmt.Fprintf(results, "%s0123 {}\n", endPrefix)
		case "unfit": // it changed what only it can see
			fmt.Fprintf(results, "{\"unfit\":1}\n")
			unfit = "a package variable changed"
		}
		if err := jobs.Finished(unfit); err != nil {
			os.Exit(2)
		}
	}
}

// burnCPU uses d of CPU time on this thread.
func burnCPU(d time.Duration) {
	start := threadCPU()
	for threadCPU()-start < d {
		for i := 0; i < 100000; i++ {
			cpuSink += i
		}
	}
}

var (
	cpuSink  int
	openKept []*os.File
)

func threadCPU() time.Duration {
	d, _ := procCPU(os.Getpid())
	return d
}

func reusingPool(t *testing.T, l Limits, r Reuse) *Pool {
	t.Helper()
	// A queue, so a job admitted while a retired child's place is still
	// being given back waits for it rather than being refused.
	pool := NewPool(testRunner("framed", l), 2, 2)
	pool.Reuse(r)
	t.Cleanup(func() { pool.Close() })
	return pool
}

// submitAs runs one job of key and returns its outcome and result lines.
func submitAs(t *testing.T, pool *Pool, key, job string) (*Outcome, []string) {
	t.Helper()
	ticket, err := pool.Admit(key)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var mu sync.Mutex
	out, err := ticket.Run(context.Background(), []byte(job), collect(&lines, &mu))
	if err != nil {
		t.Fatalf("job %q of %q: %v", job, key, err)
	}
	return out, lines
}

func pidOf(t *testing.T, pool *Pool, key string) int {
	t.Helper()
	out, lines := submitAs(t, pool, key, "pid")
	if !out.OK() || len(lines) != 1 {
		t.Fatalf("pid job of %q: %s, lines %q, stderr %q", key, out.Describe(), lines, out.Stderr)
	}
	var pid int
	fmt.Sscanf(lines[0], "{\"pid\":%d}", &pid)
	return pid
}

// TestPoolReusesTheKeysChild checks a key's second job runs in the child
// its first one left, that another key never gets it, and that Close
// retires the children kept.
func TestPoolReusesTheKeysChild(t *testing.T) {
	pool := reusingPool(t, Limits{}, Reuse{})
	a1 := pidOf(t, pool, "a")
	a2 := pidOf(t, pool, "a")
	if a1 != a2 {
		t.Errorf("key a's second job ran in child %d, its first in %d: no reuse", a2, a1)
	}
	out, _ := submitAs(t, pool, "a", "pid")
	if !out.Warm || out.Reused != 2 {
		t.Errorf("third job: warm %v, reused %d; want warm after 2 jobs", out.Warm, out.Reused)
	}
	b := pidOf(t, pool, "b")
	if b == a1 {
		t.Errorf("key b's job ran in key a's child %d", b)
	}
	if n := pool.Parked(); n != 2 {
		t.Errorf("%d children kept, want one per key", n)
	}
	none := pidOf(t, pool, "")
	if again := pidOf(t, pool, ""); again == none {
		t.Errorf("two jobs without a key shared child %d", none)
	}
	pool.Close()
	for _, pid := range []int{a1, b, none} {
		waitFor(t, func() bool { return processGone(pid) })
	}
}

// TestPoolRetiresAnUncleanChild checks that whatever a job leaves behind,
// or however it ends, its child runs no other job and is killed.
func TestPoolRetiresAnUncleanChild(t *testing.T) {
	// A wall-clock limit far from the CPU limit: a loaded machine gives a
	// child at nice 19 little of a core.
	l := Limits{WallTime: 20 * time.Second, CPUTime: time.Second}
	tests := []struct {
		job    string
		ending Ending
	}{
		{"leak", EndNormal},
		{"file", EndNormal},
		{"heap", EndNormal},
		{"stray", EndNormal},
		{"after-end", EndNormal},
		{"unfit", EndNormal},
		{"forged-end", EndCrash},
		{"panic", EndCrash},
		{"spin", EndCPUTime},
		{"sleep", EndWallTime},
	}
	for _, tt := range tests {
		t.Run(tt.job, func(t *testing.T) {
			if raceEnabled && tt.job == "heap" {
				t.Skip("a -race child's shadow memory does not fit 160 MiB more under RLIMIT_AS")
			}
			l := l
			if tt.ending == EndWallTime {
				l.WallTime = time.Second
			}
			pool := reusingPool(t, l, Reuse{MaxHeap: 64 << 20})
			first := pidOf(t, pool, "k")
			out, _ := submitAs(t, pool, "k", tt.job)
			if out.Ending != tt.ending {
				t.Errorf("job %q ended %s (%s), want %s", tt.job, out.Ending, out.Describe(), tt.ending)
			}
			if next := pidOf(t, pool, "k"); next == first {
				t.Errorf("the child that ran %q ran the next job", tt.job)
			}
			waitFor(t, func() bool { return processGone(first) })
		})
	}
}

// TestPoolReusedChildCPULimitPerJob checks the CPU limit counts each job
// of a reused child on its own: jobs using most of it pass one after
// another, and a job spinning is stopped at its own limit, though the
// child's life used more than that before it.
func TestPoolReusedChildCPULimitPerJob(t *testing.T) {
	pool := reusingPool(t, Limits{WallTime: 30 * time.Second, CPUTime: time.Second}, Reuse{})
	pid := pidOf(t, pool, "k")
	for i := range 3 {
		out, _ := submitAs(t, pool, "k", "burn 700")
		if !out.OK() {
			t.Fatalf("burn job %d: %s", i+1, out.Describe())
		}
		if out.CPU < 600*time.Millisecond || out.CPU > 900*time.Millisecond {
			t.Errorf("burn job %d counted %s of CPU, want about 700ms", i+1, out.CPU)
		}
	}
	if p := pidOf(t, pool, "k"); p != pid {
		t.Fatalf("the burn jobs ran in a new child %d, not %d", p, pid)
	}
	out, _ := submitAs(t, pool, "k", "spin")
	if out.Ending != EndCPUTime || out.Reused != 5 {
		t.Fatalf("spin as the child's 6th job: %s (reused %d), want the CPU limit", out.Describe(), out.Reused)
	}
	if out.CPU < time.Second || out.CPU > 1500*time.Millisecond {
		t.Errorf("the spinning job used %s of CPU; its limit is 1s", out.CPU)
	}
	if !processGone(pid) {
		waitFor(t, func() bool { return processGone(pid) })
	}
}

// TestPoolReuseBounds checks an idle child is retired after its idle
// time, that no more than MaxIdle are kept, that a child runs at most
// MaxJobs jobs, and that a child whose binary was replaced runs no more.
func TestPoolReuseBounds(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		pool := reusingPool(t, Limits{}, Reuse{Idle: 200 * time.Millisecond})
		pid := pidOf(t, pool, "k")
		waitFor(t, func() bool { return processGone(pid) })
		if n := pool.Parked(); n != 0 {
			t.Errorf("%d kept after the idle time", n)
		}
	})
	t.Run("max idle", func(t *testing.T) {
		pool := reusingPool(t, Limits{}, Reuse{MaxIdle: 1})
		a := pidOf(t, pool, "a")
		b := pidOf(t, pool, "b")
		waitFor(t, func() bool { return processGone(a) })
		if n := pool.Parked(); n != 1 {
			t.Errorf("%d kept, want MaxIdle 1", n)
		}
		if again := pidOf(t, pool, "b"); again != b {
			t.Errorf("b's child %d was retired instead of a's", b)
		}
	})
	t.Run("max jobs", func(t *testing.T) {
		pool := reusingPool(t, Limits{}, Reuse{MaxJobs: 2})
		first := pidOf(t, pool, "k")
		if second := pidOf(t, pool, "k"); second != first {
			t.Fatalf("no reuse before MaxJobs")
		}
		if third := pidOf(t, pool, "k"); third == first {
			t.Errorf("child %d ran a third job, MaxJobs is 2", first)
		}
	})
	t.Run("binary replaced", func(t *testing.T) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		copyPath := t.TempDir() + "/child"
		if err := os.WriteFile(copyPath, data, 0o755); err != nil {
			t.Fatal(err)
		}
		runner := testRunner("framed", Limits{})
		runner.Executable = copyPath
		pool := NewPool(runner, 1, 0)
		pool.Reuse(Reuse{})
		defer pool.Close()
		first := pidOf(t, pool, "k")
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(copyPath, later, later); err != nil {
			t.Fatal(err)
		}
		if next := pidOf(t, pool, "k"); next == first {
			t.Errorf("child %d of the old binary ran a job after the binary changed", first)
		}
	})
}

// TestPoolReuseSurvivesItsChildren checks a kept child killed while it
// waited costs its key nothing (the job runs in another child), that a
// canceled job retires its child, and that two jobs of one key at once
// both run and leave one child kept.
func TestPoolReuseSurvivesItsChildren(t *testing.T) {
	pool := reusingPool(t, Limits{}, Reuse{})
	first := pidOf(t, pool, "k")
	syscall.Kill(first, syscall.SIGKILL)
	waitFor(t, func() bool { return processDead(first) })
	if next := pidOf(t, pool, "k"); next == first {
		t.Fatal("a dead child ran a job")
	}

	kept := pidOf(t, pool, "k")
	ticket, err := pool.Admit("k")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	out, err := ticket.Run(ctx, []byte("sleep"), nil)
	if err != nil || out.Ending != EndCanceled {
		t.Fatalf("canceled job: %v %+v", err, out)
	}
	waitFor(t, func() bool { return processGone(kept) })

	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ticket, err := pool.Admit("k")
			if err != nil {
				t.Error(err)
				return
			}
			var lines []string
			var mu sync.Mutex
			out, err := ticket.Run(context.Background(), []byte("burn 100"), collect(&lines, &mu))
			if err != nil || !out.OK() {
				t.Errorf("job %d at once: %v %v", i, err, out)
			}
		}()
	}
	wg.Wait()
	if n := pool.Parked(); n != 1 {
		t.Errorf("%d children kept for one key, want 1", n)
	}
}
