package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
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
	waitFor(t, func() bool { return pool.Running() == 1 })

	queuedCtx, cancelQueued := context.WithCancel(ctx)
	queued := make(chan error, 1)
	go func() {
		_, err := pool.Submit(queuedCtx, nil, nil)
		queued <- err
	}()
	waitFor(t, func() bool { return pool.Waiting() == 1 })

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
				peak = max(peak, pool.Running())
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

// processDead reports whether pid has died: reaped, or a zombie its parent
// has not waited for yet.
func processDead(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X'
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
			// SIGKILL is delivered asynchronously: a job written while it
			// is on its way can be read by the child before it dies, which
			// is a job that crashed, not a spare that died idle. Both cases
			// start once the child is dead; the second before the pool has
			// reaped it.
			if tt.waitReap {
				waitFor(t, func() bool { return processGone(pid) })
			} else {
				waitFor(t, func() bool { return processDead(pid) })
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

// fakeClock is a clock that moves only when told, and a little at every
// reading so that admissions in a row have distinct times.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Microsecond)
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fakeJobs stands in for the children: each job is named by its input,
// reports when it starts, and ends when told.
type fakeJobs struct {
	started chan string
	mu      sync.Mutex
	end     map[string]chan struct{}
}

func newFakeJobs(p *Pool) *fakeJobs {
	f := &fakeJobs{started: make(chan string, 100), end: map[string]chan struct{}{}}
	p.exec = func(ctx context.Context, input []byte, _ ResultHandler) (*Outcome, error) {
		name := string(input)
		f.started <- name
		select {
		case <-f.endOf(name):
		case <-ctx.Done():
		}
		return &Outcome{Ending: EndNormal}, nil
	}
	return f
}

func (f *fakeJobs) endOf(name string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.end[name] == nil {
		f.end[name] = make(chan struct{})
	}
	return f.end[name]
}

// TestPoolFairOrder checks that a free place goes to the waiting job whose
// key has the fewest running, then to the key served longest ago, then to
// the job that waited longest, so one key holding every place does not
// keep them while others wait.
func TestPoolFairOrder(t *testing.T) {
	tests := []struct {
		name  string
		size  int
		first []string // admitted and running, in this order ("key/n")
		queue []string // admitted after them, in this order
		want  []string // the queue's jobs in the order they get a place, one job ending at a time
	}{
		{"another key goes before the key holding every place", 2,
			[]string{"a/1", "a/2"}, []string{"a/3", "a/4", "b/1"}, []string{"b/1", "a/3", "a/4"}},
		{"keys take turns on one place", 1,
			[]string{"a/1"}, []string{"a/2", "a/3", "b/1", "c/1"}, []string{"b/1", "c/1", "a/2", "a/3"}},
		{"the key with the fewest running goes first", 3,
			[]string{"a/1", "a/2", "b/1"}, []string{"a/3", "b/2", "c/1", "c/2"}, []string{"c/1", "a/3", "b/2", "c/2"}},
		{"one key alone is first come first served", 1,
			[]string{"a/1"}, []string{"a/2", "a/3", "a/4"}, []string{"a/2", "a/3", "a/4"}},
		{"a key with one job waiting goes before keys with a queue", 1,
			[]string{"a/1"}, []string{"b/1", "b/2", "c/1"}, []string{"c/1", "b/1", "b/2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			pool := NewPool(&Runner{}, tt.size, 100)
			pool.now = clock.Now
			jobs := newFakeJobs(pool)
			var wg sync.WaitGroup
			defer wg.Wait()
			submit := func(name string) {
				key, _, _ := strings.Cut(name, "/")
				ticket, err := pool.Admit(key)
				if err != nil {
					t.Fatalf("Admit %s: %v", name, err)
				}
				wg.Go(func() {
					if _, err := ticket.Run(context.Background(), []byte(name), nil); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				})
			}
			var running []string
			for _, name := range tt.first {
				submit(name)
				if got := <-jobs.started; got != name {
					t.Fatalf("started %s, want %s", got, name)
				}
				running = append(running, name)
			}
			for _, name := range tt.queue {
				submit(name)
			}
			waitFor(t, func() bool {
				pool.mu.Lock()
				defer pool.mu.Unlock()
				return !slices.ContainsFunc(pool.waiting, func(t *Ticket) bool { return !t.ready })
			})
			var got []string
			for range tt.want {
				clock.Advance(time.Second)
				close(jobs.endOf(running[0]))
				running = running[1:]
				name := <-jobs.started
				got = append(got, name)
				running = append(running, name)
			}
			for _, name := range running {
				close(jobs.endOf(name))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("places went to %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPoolNewcomerAmongSpinners checks the promise the fair order makes
// to a newcomer: with ten keys each keeping three endless loops in the
// pool, before and after their loops have run long, the newcomer's job
// gets the first place that frees and is admitted under the wait bound,
// and a key whose jobs are quick keeps its turn against the spinning keys
// whatever its own queue.
func TestPoolNewcomerAmongSpinners(t *testing.T) {
	const spinners = 10
	tests := []struct {
		name string
		// long: the spinners' loops have already run long (after the
		// first round); otherwise none has finished yet.
		long bool
		// queued: the newcomer's own jobs already waiting before it.
		queued int
	}{
		{name: "before any loop ran long"},
		{name: "after the loops ran long", long: true},
		{name: "a quick key with a queue, after the loops ran long", long: true, queued: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			pool := NewPool(&Runner{Limits: Limits{WallTime: 20 * time.Second}}, 2, 64)
			pool.now = clock.Now
			pool.SetMaxWait(25 * time.Second)
			pool.recent = []time.Duration{300 * time.Millisecond}
			jobs := newFakeJobs(pool)
			var wg sync.WaitGroup
			defer wg.Wait()
			ended := map[string]bool{}
			end := func(name string) {
				if !ended[name] {
					ended[name] = true
					close(jobs.endOf(name))
				}
			}
			var names []string
			defer func() { // every job, so that a failure does not hang
				for _, name := range names {
					end(name)
				}
			}()
			submit := func(key, name string) {
				t.Helper()
				ticket, err := pool.Admit(key)
				if err != nil {
					t.Errorf("Admit %s: %v", name, err)
					return
				}
				names = append(names, name)
				wg.Go(func() { ticket.Run(context.Background(), []byte(name), nil) })
			}
			for i := range spinners {
				for j := range 3 {
					submit(fmt.Sprint("spinner-", i), fmt.Sprintf("spinner-%d/%d", i, j))
				}
			}
			if tt.long { // they were admitted before their loops ran long
				pool.mu.Lock()
				for i := range spinners {
					pool.keyLocked(fmt.Sprint("spinner-", i)).longAt = clock.Now()
				}
				pool.mu.Unlock()
			}
			running := []string{<-jobs.started, <-jobs.started}
			for j := range tt.queued {
				submit("newcomer", fmt.Sprint("newcomer/queued-", j))
			}
			clock.Advance(3 * time.Second)
			pool.mu.Lock()
			wait := pool.expectedWaitLocked("newcomer", clock.Now())
			pool.mu.Unlock()
			if wait > 20*time.Second {
				t.Errorf("the newcomer expects to wait %s; want at most the running jobs' wall-clock limit, 20s", wait)
			}
			submit("newcomer", "newcomer/grade")
			waitFor(t, func() bool {
				pool.mu.Lock()
				defer pool.mu.Unlock()
				return !slices.ContainsFunc(pool.waiting, func(t *Ticket) bool { return !t.ready })
			})
			clock.Advance(10 * time.Second)
			end(running[0])
			got := <-jobs.started
			want := "newcomer/grade"
			if tt.queued > 0 {
				want = "newcomer/queued-0"
			}
			if got != want {
				t.Errorf("the first free place went to %s, want %s", got, want)
			}
		})
	}
}

// TestPoolAdmission checks that admission reckons with each job's worst
// case: running jobs' elapsed time, the longest of the recent quick jobs
// for a job holding a place, and the wall-clock limit for a key whose job
// ran long, while a crowd of quick jobs from many keys still queues deeply.
func TestPoolAdmission(t *testing.T) {
	type running struct {
		key     string
		elapsed time.Duration
	}
	tests := []struct {
		name      string
		recent    []time.Duration // quick jobs observed
		surprises int             // of 16 recent jobs, unforeseen long ones
		long      []string        // keys whose job ran long a minute ago
		running   []running
		newcomer  func(i int) string // the key of the i-th newcomer
		wantAdmit int                // admitted before the first refusal
		wantRetry time.Duration      // the first refusal's RetryAfter; 0: any
	}{
		{name: "twenty people before any job has finished",
			newcomer: distinct, wantAdmit: 26},
		{name: "quick jobs queue up to the queue's length",
			recent: []time.Duration{150 * time.Millisecond, 100 * time.Millisecond}, newcomer: distinct, wantAdmit: 50},
		{name: "running jobs count at the longest recent job, queued ones at the average",
			recent:   []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 4 * time.Second},
			running:  []running{{"x", 0}, {"y", 0}},
			newcomer: distinct, wantAdmit: 40},
		{name: "a newcomer waits for jobs that ran long only until the wall limit",
			recent:   []time.Duration{150 * time.Millisecond},
			running:  []running{{"x", 6 * time.Second}, {"y", 6 * time.Second}},
			newcomer: distinct, wantAdmit: 50},
		{name: "a key that ran long is counted at the wall limit",
			recent: []time.Duration{150 * time.Millisecond}, long: []string{"a"},
			running:  []running{{"a", time.Second}, {"a", time.Second}},
			newcomer: same("a"), wantAdmit: 2, wantRetry: 39 * time.Second},
		{name: "another key is not held up by the long key's queue",
			recent: []time.Duration{150 * time.Millisecond}, long: []string{"a"},
			running: []running{{"a", time.Second}, {"a", time.Second}},
			newcomer: func(i int) string {
				if i < 2 {
					return "a"
				}
				return distinct(i)
			}, wantAdmit: 50},
		{name: "after unforeseen long jobs a newcomer is not assumed quick",
			recent: []time.Duration{150 * time.Millisecond}, surprises: 8,
			running:  []running{{"x", 0}, {"y", 0}},
			newcomer: distinct, wantAdmit: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			pool := NewPool(&Runner{Limits: Limits{WallTime: 20 * time.Second}}, 2, 50)
			pool.now = clock.Now
			pool.SetMaxWait(25 * time.Second)
			pool.recent = tt.recent
			for i := range 16 {
				pool.surprises = append(pool.surprises, i < tt.surprises)
			}
			for _, k := range tt.long {
				pool.keyLocked(k).longAt = clock.Now().Add(-time.Minute)
			}
			for _, r := range tt.running {
				ticket := &Ticket{pool: pool, key: r.key, state: ticketRunning, started: clock.Now().Add(-r.elapsed)}
				pool.running = append(pool.running, ticket)
				pool.keyLocked(r.key).running++
			}
			admitted := 0
			for ; admitted < 1000; admitted++ {
				_, err := pool.Admit(tt.newcomer(admitted))
				if err != nil {
					var busy *BusyError
					if !errors.As(err, &busy) || busy.RetryAfter < time.Second {
						t.Fatalf("refusal %v; want a *BusyError with a retry time", err)
					}
					if tt.wantRetry != 0 && busy.RetryAfter != tt.wantRetry {
						t.Errorf("refused with RetryAfter %s, want %s", busy.RetryAfter, tt.wantRetry)
					}
					break
				}
			}
			if admitted != tt.wantAdmit {
				t.Errorf("admitted %d jobs; want %d", admitted, tt.wantAdmit)
			}
		})
	}
}

func distinct(i int) string { return fmt.Sprint("client-", i) }

func same(key string) func(int) string { return func(int) string { return key } }

// TestPoolRetryAfter checks the time a key is told to come back: when the
// first of its own jobs should end.
func TestPoolRetryAfter(t *testing.T) {
	clock := newFakeClock()
	pool := NewPool(&Runner{Limits: Limits{WallTime: 20 * time.Second}}, 2, 50)
	pool.now = clock.Now
	pool.recent = []time.Duration{200 * time.Millisecond}
	pool.keyLocked("a").longAt = clock.Now()
	for _, r := range []struct {
		key     string
		elapsed time.Duration
	}{{"a", 4 * time.Second}, {"b", 100 * time.Millisecond}} {
		pool.running = append(pool.running, &Ticket{pool: pool, key: r.key, state: ticketRunning, started: clock.Now().Add(-r.elapsed)})
		pool.keyLocked(r.key).running++
	}
	for _, tt := range []struct {
		key  string
		want time.Duration
	}{
		{"a", 16 * time.Second}, // a long key: until the wall limit
		{"b", time.Second},      // a quick job nearly done
		{"c", time.Second},      // a newcomer: b's place, then its own typical job, rounded up
	} {
		if got := pool.RetryAfter(tt.key); got != tt.want {
			t.Errorf("RetryAfter(%s) = %s, want %s", tt.key, got, tt.want)
		}
	}
}

// TestPoolTicketRelease checks that a ticket given up before it ran frees
// its place in the queue, and that a ticket runs one job only.
func TestPoolTicketRelease(t *testing.T) {
	pool := NewPool(&Runner{}, 1, 1)
	jobs := newFakeJobs(pool)
	first, err := pool.Admit("a")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := first.Run(context.Background(), []byte("one"), nil); done <- err }()
	<-jobs.started
	queued, err := pool.Admit("b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Admit("c"); !errors.Is(err, ErrBusy) {
		t.Fatalf("Admit with the queue full: %v, want busy", err)
	}
	queued.Release()
	queued.Release() // twice is harmless
	if pool.Waiting() != 0 {
		t.Errorf("%d waiting after Release", pool.Waiting())
	}
	if _, err := queued.Run(context.Background(), []byte("x"), nil); err == nil {
		t.Error("a released ticket ran")
	}
	if _, err := pool.Admit("c"); err != nil {
		t.Errorf("Admit after Release: %v", err)
	}
	close(jobs.endOf("one"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := first.Run(context.Background(), []byte("again"), nil); err == nil {
		t.Error("a ticket ran a second job")
	}
	var none *Ticket
	none.Release()
}
