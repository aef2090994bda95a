package sandbox

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestPoolBusy fills a pool of one with one running and one queued job and
// checks the next one is refused at once with a retry estimate, and that a
// queued job whose caller gives up leaves without running.
func TestPoolBusy(t *testing.T) {
	pool := NewPool(testRunner("sleep", Limits{WallTime: 3 * time.Second}), 1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	running := make(chan error, 1)
	go func() {
		_, err := pool.Submit(ctx, nil, nil)
		running <- err
	}()
	waitFor(t, func() bool { return len(pool.slots) == 1 })

	queuedCtx, cancelQueued := context.WithCancel(ctx)
	queued := make(chan error, 1)
	go func() {
		_, err := pool.Submit(queuedCtx, nil, nil)
		queued <- err
	}()
	waitFor(t, func() bool { pool.mu.Lock(); defer pool.mu.Unlock(); return pool.waiting == 1 })

	started := time.Now()
	_, err := pool.Submit(ctx, nil, nil)
	if elapsed := time.Since(started); elapsed > time.Second {
		t.Errorf("a refused Submit took %s; it must not wait", elapsed)
	}
	var busy *BusyError
	if !errors.As(err, &busy) || !errors.Is(err, ErrBusy) {
		t.Fatalf("third Submit: %v, want a *BusyError", err)
	}
	if busy.RetryAfter < time.Second || !strings.Contains(err.Error(), "busy, try again in") {
		t.Errorf("busy error %q with RetryAfter %s", err, busy.RetryAfter)
	}

	cancelQueued()
	select {
	case err := <-queued:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("queued Submit after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a queued Submit did not return after its context was canceled")
	}
	if err := <-running; err != nil {
		t.Errorf("running Submit: %v", err)
	}
}

// TestPoolRunsAtMostSize checks the pool never runs more than Size children
// at once, and that every queued job runs in the end.
func TestPoolRunsAtMostSize(t *testing.T) {
	pool := NewPool(testRunner("echo", Limits{}), 2, 10)
	const jobs = 6
	type result struct {
		out *Outcome
		err error
	}
	results := make(chan result, jobs)
	peak := 0
	stop := make(chan struct{})
	sampled := make(chan int)
	go func() {
		for {
			select {
			case <-stop:
				sampled <- peak
				return
			default:
				peak = max(peak, len(pool.slots))
				time.Sleep(time.Millisecond)
			}
		}
	}()
	for range jobs {
		go func() {
			out, err := pool.Submit(context.Background(), []byte("x"), nil)
			results <- result{out, err}
		}()
	}
	for range jobs {
		r := <-results
		if r.err != nil || !r.out.OK() {
			t.Errorf("job: %v %+v", r.err, r.out)
		}
	}
	close(stop)
	if p := <-sampled; p > 2 {
		t.Errorf("%d children ran at once, the pool allows 2", p)
	}
}

func TestPoolDefaults(t *testing.T) {
	p := NewPool(&Runner{}, 0, -1)
	if p.Size() < 1 || p.queue != 2*p.Size() {
		t.Errorf("size %d queue %d", p.Size(), p.queue)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitForSpares waits until pool has n idle spares and returns their pids.
func waitForSpares(t *testing.T, pool *Pool, n int) []int {
	t.Helper()
	waitFor(t, func() bool { return pool.Spares() == n })
	pool.mu.Lock()
	defer pool.mu.Unlock()
	var pids []int
	for _, c := range pool.idle {
		pids = append(pids, c.cmd.Process.Pid)
	}
	return pids
}

// processGone reports whether pid no longer exists (reaped).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// TestPoolWarmSpare checks a job goes to a spare, that the spare's idle
// time does not count against the wall-clock limit, that each spare runs
// one job only (a new one replaces it), and that Close kills the spares.
func TestPoolWarmSpare(t *testing.T) {
	limits := Limits{WallTime: time.Second}
	if raceEnabled {
		limits.WallTime = 4 * time.Second // a -race child is slow to start and to exit
	}
	pool := NewPool(testRunner("echo", limits), 2, 0)
	defer pool.Close()
	pool.KeepWarm()
	first := waitForSpares(t, pool, 2)
	// Idle longer than the wall-clock limit: it must start at hand-over.
	time.Sleep(limits.WallTime + 500*time.Millisecond)

	var lines []string
	var mu sync.Mutex
	out, err := pool.Submit(context.Background(), []byte("job one"), collect(&lines, &mu))
	if err != nil || !out.OK() {
		t.Fatalf("Submit to a spare: %v %+v", err, out)
	}
	if !out.Warm {
		t.Error("the job did not go to the idle spare")
	}
	if want := `{"echo":"job one"}`; len(lines) != 2 || lines[1] != want {
		t.Errorf("spare answered %q, want its last line %s", lines, want)
	}
	if out.Wall >= limits.WallTime {
		t.Errorf("wall %s counted the idle time", out.Wall)
	}

	now := waitForSpares(t, pool, 2)
	for _, pid := range first[:1] {
		if slices.Contains(now, pid) {
			t.Errorf("spare %d is idle again after running a job", pid)
		}
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range now {
		if !processGone(pid) {
			t.Errorf("spare %d still exists after Close", pid)
		}
	}
	if pool.Spares() != 0 {
		t.Errorf("%d spares after Close", pool.Spares())
	}
	out, err = pool.Submit(context.Background(), []byte("x"), nil)
	if err != nil || !out.OK() || out.Warm {
		t.Errorf("Submit after Close: %v %+v, want a cold child", err, out)
	}
	time.Sleep(100 * time.Millisecond)
	if pool.Spares() != 0 {
		t.Error("a closed pool started a spare")
	}
}

// TestPoolDeadSpare checks a spare killed while idle is noticed and the
// job runs in a fresh child, whether the death was seen before the
// hand-over or only by the write of the job.
func TestPoolDeadSpare(t *testing.T) {
	for _, tt := range []struct {
		name     string
		waitReap bool // let the pool's Wait see the death first
	}{
		{"reaped before the job", true},
		{"killed just before the job", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pool := NewPool(testRunner("echo", Limits{}), 1, 0)
			defer pool.Close()
			pool.KeepWarm()
			pid := waitForSpares(t, pool, 1)[0]
			if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if tt.waitReap {
				waitFor(t, func() bool { return processGone(pid) })
			}
			out, err := pool.Submit(context.Background(), []byte("x"), nil)
			if err != nil || !out.OK() {
				t.Fatalf("Submit after the spare died: %v %+v", err, out)
			}
			if out.Warm && tt.waitReap {
				t.Error("the job went to the dead spare")
			}
			newPid := waitForSpares(t, pool, 1)[0]
			if newPid == pid {
				t.Error("the dead spare was not replaced")
			}
		})
	}
}

// TestPoolWarmLimits checks every way of stopping a child holds for a
// spare as for a cold one, counted from the hand-over.
func TestPoolWarmLimits(t *testing.T) {
	if raceEnabled {
		t.Skip("a -race child fails differently under the limits")
	}
	tests := []struct {
		name   string
		mode   string
		limits Limits
		cancel time.Duration // cancel the job's context after this; 0: never
		want   Ending
	}{
		{"busy loop", "read-spin", Limits{WallTime: 10 * time.Second, CPUTime: time.Second}, 0, EndCPUTime},
		{"sleeps past the wall clock", "read-sleep", Limits{WallTime: time.Second}, 0, EndWallTime},
		{"canceled", "read-sleep", Limits{WallTime: time.Second}, 300 * time.Millisecond, EndCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := NewPool(testRunner(tt.mode, tt.limits), 1, 0)
			defer pool.Close()
			pool.KeepWarm()
			waitForSpares(t, pool, 1)
			// Idle past the CPU and wall-clock limits of two of the cases:
			// both count from the hand-over, and idling costs no CPU.
			time.Sleep(1500 * time.Millisecond)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel > 0 {
				time.AfterFunc(tt.cancel, cancel)
			}
			out, err := pool.Submit(ctx, []byte("job"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.Ending != tt.want || !out.Warm {
				t.Errorf("spare ended %s (warm %v), want %s", out.Ending, out.Warm, tt.want)
			}
			if tt.want == EndWallTime && out.Wall < tt.limits.WallTime {
				t.Errorf("killed after %s, before its wall-clock limit of %s", out.Wall, tt.limits.WallTime)
			}
		})
	}
}

// TestPoolMaxWait checks that with a wait bound the queue admits jobs while
// their expected wait (rounds of the average job) fits, and refuses the
// rest at once with a retry time, even though the queue has room.
func TestPoolMaxWait(t *testing.T) {
	tests := []struct {
		name      string
		size      int
		average   time.Duration
		maxWait   time.Duration
		wantQueue int // admitted before the first refusal
	}{
		{"quick jobs queue deeply", 2, 150 * time.Millisecond, 3 * time.Second, 40},
		{"slow jobs turn newcomers away", 2, 20 * time.Second, 30 * time.Second, 2},
		{"one place", 1, time.Second, 3 * time.Second, 3},
		{"no average yet uses the first estimate", 2, 0, 10 * time.Second, 10},
		{"the queue length still caps it", 2, time.Millisecond, time.Hour, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := NewPool(testRunner("sleep", Limits{}), tt.size, 50)
			pool.SetMaxWait(tt.maxWait)
			pool.average = tt.average
			admitted := 0
			for ; admitted < 1000; admitted++ {
				if err := pool.enqueue(); err != nil {
					var busy *BusyError
					if !errors.As(err, &busy) || busy.RetryAfter < time.Second {
						t.Fatalf("refusal %v; want a *BusyError with a retry time", err)
					}
					break
				}
			}
			if admitted != tt.wantQueue {
				t.Errorf("admitted %d jobs to the queue; want %d", admitted, tt.wantQueue)
			}
		})
	}
}
