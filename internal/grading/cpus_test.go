package grading

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestCPUSharesSpreadGrades: grades going at once get CPUs of their own
// while there are enough, then the least taken; a CPU given back is
// taken again first; one CPU (or none known) gives none.
func TestCPUSharesSpreadGrades(t *testing.T) {
	c := sharesOf([]int{1000, 1002, 1005}) // none the one this test runs on
	a, giveA := c.take()
	b, _ := c.take()
	d, _ := c.take()
	if got := []int{a, b, d}; got[0] != 1000 || got[1] != 1002 || got[2] != 1005 {
		t.Fatalf("three grades at once took CPUs %v, want 1000 1002 1005", got)
	}
	giveA()
	giveA() // given back once only
	if c.taken[1000] != 0 {
		t.Fatalf("CPU 1000 is taken %d times after its grade gave it back", c.taken[1000])
	}
	if f, _ := c.take(); f != 1000 {
		t.Errorf("the next grade took CPU %d, want 1000, the one free", f)
	}
	if e, _ := c.take(); c.taken[e] != 2 || c.taken[1000]+c.taken[1002]+c.taken[1005] != 4 {
		t.Errorf("a fifth grade took CPU %d, now taken %v: want one of the least taken, once more", e, c.taken)
	}
	// Among the least taken, the CPU the caller runs on.
	if here, ok := sandbox.CurrentCPU(); ok {
		c := sharesOf([]int{here + 1000, here})
		if cpu, _ := c.take(); cpu != here {
			t.Errorf("took CPU %d, want %d, the one this test runs on", cpu, here)
		}
	}
	for _, one := range [][]int{nil, {3}} {
		if cpu, give := sharesOf(one).take(); cpu != -1 {
			t.Errorf("CPUs %v: took %d, want none", one, cpu)
		} else {
			give()
		}
	}
}

// TestPythonGradesAtOnceGetCPUsOfTheirOwn: the jobs of two Python grades
// going at once name two CPUs; a Go grade's names none.
func TestPythonGradesAtOnceGetCPUsOfTheirOwn(t *testing.T) {
	if newCPUShares() == nil {
		t.Skip("this process may run on one CPU")
	}
	// A child that passes its job on (through a FIFO: a grading child may
	// write no file) and ends without a report, after long enough for the
	// other grades to start beside it.
	dir := t.TempDir()
	fifo := filepath.Join(dir, "jobs")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	jobs, err := os.OpenFile(fifo, os.O_RDWR, 0) // read-write: opening waits for no writer
	if err != nil {
		t.Fatal(err)
	}
	defer jobs.Close()
	script := filepath.Join(dir, "child.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$(cat)\" > \"$JOBS\"\nsleep 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	runner := &sandbox.Runner{Executable: "/bin/sh", Args: []string{script}, Env: []string{"JOBS=" + fifo}, NoNamespaces: true,
		Limits: sandbox.Limits{WallTime: 30 * time.Second}}
	pool := sandbox.NewPool(runner, 3, 3)
	t.Cleanup(func() { pool.Close() })
	svc := New(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	got := make(chan gradewire.Job, 8)
	go func() {
		sc := bufio.NewScanner(jobs)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var job gradewire.Job
			if len(sc.Bytes()) > 0 && json.Unmarshal(sc.Bytes(), &job) == nil {
				got <- job
			}
		}
	}()
	var wg sync.WaitGroup
	for _, file := range []string{"refund.py", "refund.py", "refund.go"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job := gradewire.Job{Kit: "refund", File: file, Source: "x", Seeds: 1}
			svc.GradeKit(context.Background(), nil, job, []string{"one"}, nil) // no report: an error, not this test's
		}()
	}
	wg.Wait()
	cpus := map[string][]int{}
	for range 3 {
		select {
		case job := <-got:
			cpu := -1
			if job.CPU != nil {
				cpu = *job.CPU
			}
			cpus[job.File] = append(cpus[job.File], cpu)
		case <-time.After(10 * time.Second):
			t.Fatalf("the children passed on the jobs %v, not three", cpus)
		}
	}
	if py := cpus["refund.py"]; len(py) != 2 || py[0] < 0 || py[1] < 0 || py[0] == py[1] {
		t.Errorf("two Python grades at once were given CPUs %v, want two different ones", py)
	}
	if g := cpus["refund.go"]; len(g) != 1 || g[0] != -1 {
		t.Errorf("a Go grade was given CPU %v, want none", g)
	}
}
