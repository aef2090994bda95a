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
type Pool struct {
	runner *Runner
	size   int
	queue  int
	slots  chan struct{} // a token per running child

	mu      sync.Mutex
	waiting int           // submitted, not yet running
	average time.Duration // moving average of job wall time
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
	out, err := p.runner.Run(ctx, input, onResult)
	p.observe(time.Since(started))
	return out, err
}

func (p *Pool) enqueue() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waiting >= p.queue {
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
