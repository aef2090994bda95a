package sandbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// poolHarness drives a pool of fake jobs (fakeJobs) on a fake clock and
// keeps each job's ticket and priority, and the timers the pool set.
type poolHarness struct {
	t       *testing.T
	clock   *fakeClock
	pool    *Pool
	jobs    *fakeJobs
	wg      sync.WaitGroup
	mu      sync.Mutex
	tickets map[string]*Ticket
	prio    map[string]*jobPriority
	timers  []fakeTimer
	ended   map[string]bool
}

type fakeTimer struct {
	d time.Duration
	f func()
}

func newPoolHarness(t *testing.T, size int, newcomerPlace bool) *poolHarness {
	h := &poolHarness{t: t, clock: newFakeClock(), tickets: map[string]*Ticket{}, prio: map[string]*jobPriority{}, ended: map[string]bool{}}
	h.pool = NewPool(&Runner{Limits: Limits{WallTime: 20 * time.Second}}, size, 100)
	h.pool.now = h.clock.Now
	h.pool.SetNewcomerPlace(newcomerPlace)
	h.pool.recent = []time.Duration{300 * time.Millisecond}
	h.jobs = newFakeJobs(h.pool)
	fake := h.pool.exec
	h.pool.exec = func(ctx context.Context, input []byte, onResult ResultHandler) (*Outcome, error) {
		h.mu.Lock()
		h.prio[string(input)], _ = ctx.Value(priorityKey{}).(*jobPriority)
		h.mu.Unlock()
		return fake(ctx, input, onResult)
	}
	h.pool.afterFunc = func(d time.Duration, f func()) func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.timers = append(h.timers, fakeTimer{d, f})
		return func() bool { return true }
	}
	t.Cleanup(func() { // every job, so that a failure does not hang
		h.mu.Lock()
		names := slices.Collect(func(yield func(string) bool) {
			for name := range h.tickets {
				if !yield(name) {
					return
				}
			}
		})
		h.mu.Unlock()
		for _, name := range names {
			h.end(name)
		}
		h.wg.Wait()
	})
	return h
}

// submit admits a job of key named name and runs it, and waits until the
// pool has seen it ready for its place.
func (h *poolHarness) submit(key, name string) {
	h.t.Helper()
	ticket, err := h.pool.Admit(key)
	if err != nil {
		h.t.Fatalf("Admit %s: %v", name, err)
	}
	h.mu.Lock()
	h.tickets[name] = ticket
	h.mu.Unlock()
	h.wg.Go(func() { ticket.Run(context.Background(), []byte(name), nil) })
	waitFor(h.t, func() bool {
		h.pool.mu.Lock()
		defer h.pool.mu.Unlock()
		return ticket.ready
	})
}

// running reports whether the job has its place.
func (h *poolHarness) running(name string) bool {
	h.mu.Lock()
	ticket := h.tickets[name]
	h.mu.Unlock()
	h.pool.mu.Lock()
	defer h.pool.mu.Unlock()
	return ticket.state == ticketRunning
}

// runningJobs are the jobs holding a place, in name order.
func (h *poolHarness) runningJobs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pool.mu.Lock()
	defer h.pool.mu.Unlock()
	var names []string
	for name, ticket := range h.tickets {
		if ticket.state == ticketRunning {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

func (h *poolHarness) end(name string) {
	h.mu.Lock()
	done := h.ended[name]
	h.ended[name] = true
	h.mu.Unlock()
	if !done {
		close(h.jobs.endOf(name))
	}
}

// endAndWait ends a running job and waits until its place is handed on.
func (h *poolHarness) endAndWait(name string) {
	h.end(name)
	h.mu.Lock()
	ticket := h.tickets[name]
	h.mu.Unlock()
	waitFor(h.t, func() bool {
		h.pool.mu.Lock()
		defer h.pool.mu.Unlock()
		return ticket.state == ticketDone
	})
}

// nice is the level job name runs at, once it has started.
func (h *poolHarness) nice(name string) int {
	h.t.Helper()
	var j *jobPriority
	waitFor(h.t, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		j = h.prio[name]
		return j != nil
	})
	return j.level()
}

// markLong records that key's code ran long a moment ago.
func (h *poolHarness) markLong(keys ...string) {
	h.pool.mu.Lock()
	defer h.pool.mu.Unlock()
	for _, k := range keys {
		h.pool.keyLocked(k).longAt = h.clock.Now()
	}
}

// spinners admits three jobs from each of n keys spinner-0 ... and starts
// the first ones.
func (h *poolHarness) spinners(n int) {
	for i := range n {
		for j := range 3 {
			h.submit(fmt.Sprint("spinner-", i), fmt.Sprintf("spinner-%d/%d", i, j))
		}
	}
}

// TestPoolNewcomerPlace checks the place a pool keeps for a newcomer: with
// ten keys known to spin endless loops holding every place and thirty
// jobs queued, a newcomer's job starts at once at the usual priority while
// theirs run at LowNice; a key that has a job running is no newcomer; a
// key not yet known to spin may take the place too, and then the newcomer
// gets the next one that frees; and the newcomer's job moves into a place
// that frees, so the next newcomer starts at once too. Without the place
// (the old dispatch) the newcomer waits for a spinner's job to end.
func TestPoolNewcomerPlace(t *testing.T) {
	t.Run("known spinners: the newcomer starts at once", func(t *testing.T) {
		h := newPoolHarness(t, 2, true)
		h.markLong("spinner-0", "spinner-1", "spinner-2", "spinner-3", "spinner-4", "spinner-5", "spinner-6", "spinner-7", "spinner-8", "spinner-9")
		h.spinners(10)
		h.clock.Advance(3 * time.Second)
		h.submit("newcomer", "newcomer/grade")
		if !h.running("newcomer/grade") {
			t.Fatalf("the newcomer waits; running: %v", h.runningJobs())
		}
		if got := len(h.runningJobs()); got != 3 {
			t.Errorf("%d jobs run, want the 2 places and the newcomer's", got)
		}
		for _, name := range h.runningJobs() {
			want := LowNice
			if name == "newcomer/grade" {
				want = DefaultNice
			}
			if got := h.nice(name); got != want {
				t.Errorf("%s runs at nice %d, want %d", name, got, want)
			}
		}
		h.pool.mu.Lock()
		wait := h.pool.expectedWaitLocked("another", h.clock.Now())
		spinnerWait := h.pool.expectedWaitLocked("spinner-0", h.clock.Now())
		h.pool.mu.Unlock()
		if wait > time.Second {
			t.Errorf("with the newcomer's place taken, another newcomer expects to wait %s; want the newcomer's job (300 ms), not a spinner's", wait)
		}
		if spinnerWait < 10*time.Second {
			t.Errorf("a spinner expects to wait %s; want a spinner's job", spinnerWait)
		}
	})

	t.Run("without the newcomer's place the newcomer waits for a spinner", func(t *testing.T) {
		h := newPoolHarness(t, 2, false)
		h.markLong("spinner-0", "spinner-1", "spinner-2", "spinner-3")
		h.spinners(4)
		h.submit("newcomer", "newcomer/grade")
		if h.running("newcomer/grade") {
			t.Fatal("the newcomer started with every place taken and no newcomer's place")
		}
		h.endAndWait(h.runningJobs()[0])
		if !h.running("newcomer/grade") {
			t.Errorf("the first free place went elsewhere; running: %v", h.runningJobs())
		}
	})

	t.Run("a key with a job running is no newcomer", func(t *testing.T) {
		h := newPoolHarness(t, 1, true)
		h.submit("a", "a/1")
		h.submit("a", "a/2")
		if h.running("a/2") {
			t.Fatalf("a second job of a running key took the newcomer's place")
		}
		h.submit("b", "b/1")
		if !h.running("b/1") {
			t.Errorf("a newcomer waits behind a key with a job running; running: %v", h.runningJobs())
		}
		if got := len(h.runningJobs()); got != 2 {
			t.Errorf("%d jobs run, want 2: the place and the newcomer's", got)
		}
	})

	t.Run("an unknown spinner holds the place; the newcomer gets the next", func(t *testing.T) {
		h := newPoolHarness(t, 2, true)
		h.spinners(4) // not known to spin yet
		if got := len(h.runningJobs()); got != 3 {
			t.Fatalf("%d jobs run, want 3: the first comer took the newcomer's place", got)
		}
		h.submit("newcomer", "newcomer/grade")
		if h.running("newcomer/grade") {
			t.Fatal("a fourth job started")
		}
		h.endAndWait(h.runningJobs()[0])
		if !h.running("newcomer/grade") {
			t.Errorf("the first free place went elsewhere; running: %v", h.runningJobs())
		}
		if got := len(h.runningJobs()); got != 3 {
			t.Errorf("%d jobs run, want 3", got)
		}
	})

	t.Run("the newcomer's job moves into a freed place", func(t *testing.T) {
		h := newPoolHarness(t, 1, true)
		h.markLong("spinner-0", "spinner-1")
		h.spinners(2)
		h.submit("first", "first/grade")
		if !h.running("first/grade") {
			t.Fatal("the first newcomer waits")
		}
		spinner := slices.DeleteFunc(h.runningJobs(), func(n string) bool { return n == "first/grade" })[0]
		h.endAndWait(spinner)
		// Both places are held again: first/grade in the freed one, and
		// the newcomer's place is free, so no spinner job started.
		if got := h.runningJobs(); !slices.Equal(got, []string{"first/grade"}) {
			t.Fatalf("running %v, want only first/grade", got)
		}
		h.submit("second", "second/grade")
		if !h.running("second/grade") {
			t.Errorf("the second newcomer waits; running: %v", h.runningJobs())
		}
		if len(h.runningJobs()) > 2 {
			t.Errorf("running %v: more than the place and the newcomer's", h.runningJobs())
		}
	})

	t.Run("the newcomer's place admits past a full queue", func(t *testing.T) {
		h := newPoolHarness(t, 1, true)
		h.pool.queue = 3
		h.markLong("spinner-0", "spinner-1")
		for i := range 4 { // 1 running, 3 queued
			h.submit(fmt.Sprint("spinner-", i%2), fmt.Sprint("spinner/", i))
		}
		if _, err := h.pool.Admit("spinner-0"); err == nil {
			t.Fatal("a spinner admitted past a full queue")
		}
		if _, err := h.pool.Admit("late"); err != nil {
			t.Errorf("a newcomer refused with the newcomer's place free: %v", err)
		}
	})
}

// TestPoolLowersLongJobs checks the priority a job runs at: a key whose
// code ran long starts at LowNice; any other at the children's own, lowered
// to LowNice when the job runs long (the pool's timer, at the bound after
// which a job is taken for a long one); and a job that hit its CPU or
// wall-clock limit marks its key, so its next job starts low.
func TestPoolLowersLongJobs(t *testing.T) {
	h := newPoolHarness(t, 2, false)
	h.submit("quick", "quick/1")
	if got := h.nice("quick/1"); got != DefaultNice {
		t.Fatalf("a newcomer's job runs at nice %d, want %d", got, DefaultNice)
	}
	h.mu.Lock()
	timers := slices.Clone(h.timers)
	h.mu.Unlock()
	h.pool.mu.Lock()
	longAfter := h.pool.longAfterLocked()
	h.pool.mu.Unlock()
	if len(timers) != 1 || timers[0].d != longAfter {
		t.Fatalf("timers %v; want one at %s, when a job is taken for a long one", timers, longAfter)
	}
	timers[0].f()
	if got := h.nice("quick/1"); got != LowNice {
		t.Errorf("after running long the job runs at nice %d, want %d", got, LowNice)
	}

	// A job that hit a limit, however quickly, marks its key.
	h.pool.exec = func(ctx context.Context, input []byte, _ ResultHandler) (*Outcome, error) {
		return &Outcome{Ending: EndCPUTime}, nil
	}
	ticket, err := h.pool.Admit("limited")
	if err != nil {
		t.Fatal(err)
	}
	ticket.Run(context.Background(), []byte("limited/1"), nil)
	h.pool.mu.Lock()
	marked := h.pool.markedLocked(h.pool.keys["limited"], h.clock.Now())
	nice := h.pool.niceLocked(h.pool.keys["limited"], h.clock.Now())
	h.pool.mu.Unlock()
	if !marked || nice != LowNice {
		t.Errorf("after a CPU limit the key is marked %v and its next job starts at nice %d; want marked, %d", marked, nice, LowNice)
	}
}

// TestJobPriorityLowersEveryThread checks, on a real child holding its
// job, that lowering the job's priority sets every thread of the child,
// and that nothing is set after the job ended.
func TestJobPriorityLowersEveryThread(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	tests := []struct {
		name, mode, job string
		reuse           bool
	}{
		{"a one-job child", "read-sleep", "job", false},
		{"a child kept for its key's jobs", "framed", "sleep", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := NewPool(testRunner(tt.mode, Limits{WallTime: 20 * time.Second}), 1, 1)
			if tt.reuse {
				pool.Reuse(Reuse{})
				defer pool.Close()
			}
			var lowerNow func()
			pool.afterFunc = func(d time.Duration, f func()) func() bool {
				lowerNow = f
				return func() bool { return true }
			}
			ticket, err := pool.Admit("a")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				ticket.Run(ctx, []byte(tt.job), nil)
			}()
			var pid int
			waitFor(t, func() bool {
				pool.mu.Lock()
				j := ticket.prio
				pool.mu.Unlock()
				if j == nil {
					return false
				}
				j.mu.Lock()
				defer j.mu.Unlock()
				pid = j.pgid
				return pid != 0
			})
			waitFor(t, func() bool { return len(niceOf(t, pid)) > 1 })
			for _, n := range niceOf(t, pid) {
				if n != DefaultNice {
					t.Fatalf("a thread of the child has nice %d before it is lowered, want %d", n, DefaultNice)
				}
			}
			lowerNow()
			for _, n := range niceOf(t, pid) {
				if n != LowNice {
					t.Errorf("a thread of the lowered child has nice %d, want %d", n, LowNice)
				}
			}
			cancel()
			<-done
			var calls int
			old := renice
			renice = func(int, int) error { calls++; return nil }
			defer func() { renice = old }()
			ticket.prio.lower(LowNice + 1)
			if calls != 0 {
				t.Errorf("a job that ended was reniced %d times; its group id may belong to another process now", calls)
			}
		})
	}
}

// TestPoolExpectedWaitWithNewcomerPlace checks the wait a job is told to
// expect (its Retry-After when refused) with the newcomer's place kept:
// the newcomer's job moves into the first place that frees, so a key that
// may not have the newcomer's place waits for that job too, and a key that
// may have it waits only for the newcomer's job and the jobs ahead of it
// that may have it too. (The estimate without the place, the first place
// to free, told a spinner 2 s for a wait of 12 s, and a newcomer 20 s for
// a wait of less than one.)
func TestPoolExpectedWaitWithNewcomerPlace(t *testing.T) {
	tests := []struct {
		name     string
		newcomer bool // the newcomer's place kept
		setup    func(h *poolHarness)
		key      string
		want     time.Duration
	}{
		{"without the newcomer's place: the first place to free", false, func(h *poolHarness) {
			h.markLong("a")
			h.submit("a", "a/1")
			h.clock.Advance(10 * time.Second)
		}, "c", 10 * time.Second},
		{"a newcomer waits for the newcomer's job, not for the places", true, func(h *poolHarness) {
			h.markLong("a")
			h.submit("a", "a/1")
			h.clock.Advance(10 * time.Second)
			h.submit("b", "b/1") // the newcomer's place, 300 ms expected
		}, "c", 300 * time.Millisecond},
		{"a spinner waits for the newcomer's job that moves into the freed place", true, func(h *poolHarness) {
			h.submit("b", "b/1")
			h.submit("c", "c/1") // the newcomer's place
			h.clock.Advance(10 * time.Second)
			h.endAndWait("b/1") // c/1 moves into b/1's place: 10 s left of 20 s
			h.submit("a", "a/1")
			h.clock.Advance(8 * time.Second) // c/1 has 2 s left, a/1 12 s
			h.markLong("m")
		}, "m", 12 * time.Second},
		{"a newcomer waits for the newcomer's job and those ahead that may have it", true, func(h *poolHarness) {
			h.markLong("a")
			h.submit("a", "a/1")
			h.submit("b", "b/1") // the newcomer's place, 300 ms
			h.submit("c", "c/1") // next in the newcomer's place, 300 ms
		}, "d", 600 * time.Millisecond},
		{"a spinner waits for a place, whoever has the newcomer's", true, func(h *poolHarness) {
			h.markLong("a", "m")
			h.submit("a", "a/1")
			h.submit("b", "b/1")
			h.submit("c", "c/1")
		}, "m", 20 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newPoolHarness(t, 1, tt.newcomer)
			tt.setup(h)
			h.pool.mu.Lock()
			got := h.pool.expectedWaitLocked(tt.key, h.clock.Now())
			h.pool.mu.Unlock()
			if got > tt.want || got < tt.want-10*time.Millisecond { // the fake clock ticks on every reading
				t.Errorf("%s expects to wait %s, want %s", tt.key, got, tt.want)
			}
			// Past the pool's bound the same wait is the busy answer's retry time.
			h.pool.SetMaxWait(got - time.Millisecond)
			_, err := h.pool.Admit(tt.key)
			var busy *BusyError
			if got > 0 && (!errors.As(err, &busy) || busy.RetryAfter != roundUp(got)) {
				t.Errorf("Admit(%q) past the bound: %v, want busy, retry after %s", tt.key, err, roundUp(got))
			}
		})
	}
}
