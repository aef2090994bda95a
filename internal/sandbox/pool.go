package sandbox

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// ErrBusy is matched (errors.Is) by every *BusyError.
var ErrBusy = errors.New("sandbox: busy")

// BusyError means the pool is running its maximum of children and its
// queue is full: the caller should answer "try again later" at once
// rather than wait.
type BusyError struct {
	// RetryAfter is an estimate of when a place frees up, whole seconds.
	RetryAfter time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("sandbox: busy, try again in %d s", int(e.RetryAfter/time.Second))
}

// Is makes errors.Is(err, ErrBusy) true.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// firstEstimate is the job duration assumed before any job has finished.
const firstEstimate = 2 * time.Second

// Pool runs at most Size children at once and lets at most Queue more
// wait. Past that, Submit fails at once with a *BusyError.
//
// After KeepWarm the pool also keeps up to one spare child per place,
// started and initialised, blocked reading its job: a job given to a spare
// skips the child's start-up (exec, limits, namespaces, the runtime and
// the binary's package init). A spare still runs exactly one job. Close
// kills the spares.
type Pool struct {
	runner  *Runner
	size    int
	queue   int
	maxWait time.Duration // 0: only the queue's length bounds waiting
	slots   chan struct{} // a token per running child

	mu       sync.Mutex
	waiting  int           // submitted, not yet running
	average  time.Duration // moving average of job wall time
	warm     bool          // KeepWarm was called and Close was not
	idle     []*child      // spares waiting for a job, oldest first
	starting int           // spares being started now
	starters sync.WaitGroup
}

// NewPool returns a pool over runner. size <= 0 means runtime.NumCPU();
// queue < 0 means 2*size.
func NewPool(runner *Runner, size, queue int) *Pool {
	if size <= 0 {
		size = runtime.NumCPU()
	}
	if queue < 0 {
		queue = 2 * size
	}
	return &Pool{runner: runner, size: size, queue: queue, slots: make(chan struct{}, size)}
}

// SetMaxWait bounds how long a job may expect to wait for a place: past
// it Submit is refused with a *BusyError even when the queue has room.
// The expected wait comes from the moving average of recent jobs, so a
// burst of quick gradings queues deeply while a run of slow ones (code
// that spins to its wall-clock limit) turns newcomers away early. Call it
// before the pool is used.
func (p *Pool) SetMaxWait(d time.Duration) { p.maxWait = d }

// Size is the number of children that may run at once.
func (p *Pool) Size() int { return p.size }

// Running is the number of children running now.
func (p *Pool) Running() int { return len(p.slots) }

// Waiting is the number of jobs queued for a place now.
func (p *Pool) Waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting
}

// Submit waits for a free place (or fails with *BusyError when the queue
// is full), then runs the child like Runner.Run. Ending ctx while waiting
// returns ctx's error; ending it while running kills the child.
func (p *Pool) Submit(ctx context.Context, input []byte, onResult ResultHandler) (*Outcome, error) {
	select {
	case p.slots <- struct{}{}: // a place free right now: no queueing
	default:
		if err := p.enqueue(); err != nil {
			return nil, err
		}
		select {
		case p.slots <- struct{}{}:
			p.dequeue()
		case <-ctx.Done():
			p.dequeue()
			return nil, fmt.Errorf("sandbox: gave up waiting for a free place: %w", ctx.Err())
		}
	}
	defer func() { <-p.slots }()
	started := time.Now()
	out, err := p.run(ctx, input, onResult)
	p.observe(time.Since(started))
	return out, err
}

// run gives the job to a spare when there is a live one, else to a child
// started now, and has the spare replaced in the background.
func (p *Pool) run(ctx context.Context, input []byte, onResult ResultHandler) (*Outcome, error) {
	for {
		c := p.takeSpare()
		if c == nil {
			break
		}
		p.refill()
		out, err := p.runner.runJob(ctx, c, input, onResult, true)
		if !errors.Is(err, errSpareGone) {
			return out, err
		}
		// Killed while idle (by an operator, the OOM killer, or its
		// parent-death signal): the job never reached it; try the next.
	}
	p.refill()
	return p.runner.Run(ctx, input, onResult)
}

// KeepWarm makes the pool keep a spare child per place from now on, and
// starts them in the background. It is for a long-running server: a
// process that grades one job and exits only wastes a spare. Call Close
// when done, or the spares live (idle, using no CPU) until this process
// exits; they die with it.
//
// The child must read its whole input before it acts on any of it (the
// grading child does): a spare found dead with part of its job still
// unread in its stdin is taken to have died idle, and the job is run
// again in a fresh child.
func (p *Pool) KeepWarm() {
	p.mu.Lock()
	p.warm = true
	p.mu.Unlock()
	p.refill()
}

// Close kills the idle spares, waits for spares being started, and stops
// keeping any. Running jobs are not touched; later Submits start their
// child cold. It is safe to call more than once.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.warm = false
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, c := range idle {
		c.discard()
	}
	p.starters.Wait()
	return nil
}

// Spares is the number of idle spare children now (alive or not yet seen
// to have died).
func (p *Pool) Spares() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// takeSpare returns the oldest spare that is still alive, discarding dead
// ones on the way, or nil.
func (p *Pool) takeSpare() *child {
	for {
		p.mu.Lock()
		if len(p.idle) == 0 {
			p.mu.Unlock()
			return nil
		}
		c := p.idle[0]
		p.idle = p.idle[1:]
		p.mu.Unlock()
		if c.alive() {
			return c
		}
		c.discard()
	}
}

// refill starts spares in the background until idle and starting ones
// make one per place.
func (p *Pool) refill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.warm && len(p.idle)+p.starting < p.size {
		p.starting++
		p.starters.Add(1)
		go p.startSpare()
	}
}

// startSpare starts one spare and adds it to the idle ones, unless the
// pool was closed meanwhile. A failed start is not retried here: the next
// job starts cold, reports the failure itself, and calls refill again.
func (p *Pool) startSpare() {
	defer p.starters.Done()
	c, err := p.runner.start()
	p.mu.Lock()
	p.starting--
	keep := err == nil && p.warm
	if keep {
		p.idle = append(p.idle, c)
	}
	p.mu.Unlock()
	if err == nil && !keep {
		c.discard()
	}
}

func (p *Pool) enqueue() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waiting >= p.queue || p.maxWait > 0 && p.expectedWaitLocked(p.waiting+1) > p.maxWait {
		return &BusyError{RetryAfter: p.estimateLocked()}
	}
	p.waiting++
	return nil
}

func (p *Pool) dequeue() {
	p.mu.Lock()
	p.waiting--
	p.mu.Unlock()
}

// observe folds one job's duration into the moving average.
func (p *Pool) observe(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.average == 0 {
		p.average = d
		return
	}
	p.average = (3*p.average + d) / 4
}

// expectedWaitLocked is how long the job at position (from 1) in the
// queue should wait for a place: one average job per round of size places.
func (p *Pool) expectedWaitLocked(position int) time.Duration {
	avg := p.average
	if avg == 0 {
		avg = firstEstimate
	}
	return time.Duration((position+p.size-1)/p.size) * avg
}

// estimateLocked guesses when a place frees up: everyone waiting plus one
// round of the running jobs, spread over the pool, rounded up to seconds.
func (p *Pool) estimateLocked() time.Duration {
	avg := p.average
	if avg == 0 {
		avg = firstEstimate
	}
	rounds := (p.waiting + p.size) / p.size
	d := time.Duration(rounds) * avg
	return max(time.Second, d.Round(time.Second)+time.Second)
}
