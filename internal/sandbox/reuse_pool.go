package sandbox

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// reuser is a Pool's children kept for the key they served (Pool.Reuse).
type reuser struct {
	on     bool
	opts   Reuse
	closed bool
	parked map[string]*parked // at most one idle child per key
}

// parked is a child waiting for its key's next job.
type parked struct {
	c     *child
	key   string
	since time.Time
	timer *time.Timer // retires it after Reuse.Idle
}

// Reuse makes the pool keep the child that ran a key's job, when it ended
// the job clean, for that key's next job: the next grade of the same
// person skips the child's start, its runtime's and packages' first
// touches of a fresh heap. A child serves one key only, runs at most
// MaxJobs jobs, waits at most Idle for the next, and is retired (killed
// as a process group, never reused) after any limit, crash, protocol error,
// stray output, or a job that left goroutines, open files or a large heap
// behind (see reuse.go). Jobs without a key ("") never share a child. The
// spares KeepWarm keeps are started reusable too. Call it before the pool
// is used.
func (p *Pool) Reuse(r Reuse) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reuse = reuser{on: true, opts: r.withDefaults(p.size), parked: map[string]*parked{}}
}

// Parked is the number of children waiting for their key's next job.
func (p *Pool) Parked() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.reuse.parked)
}

type keyContext struct{}

type kindContext struct{}

// WithKind marks the job ctx runs (Ticket.Run) as one of kind. A pool
// with a Runner for that kind (SetKindRunner) runs it in a child that
// Runner starts for it alone: never a spare, never a child kept for its
// key, and that child is not kept, so no child serves jobs of two kinds.
// A kind without a Runner takes the pool's own children.
func WithKind(ctx context.Context, kind string) context.Context {
	return context.WithValue(ctx, kindContext{}, kind)
}

func kindOf(ctx context.Context) string {
	kind, _ := ctx.Value(kindContext{}).(string)
	return kind
}

// SetKindRunner has r start the children of kind's jobs (WithKind),
// whose confinement, say, differs from the pool's own children's. The
// jobs still take places in the pool's one queue. Call it before the
// pool runs a job.
func (p *Pool) SetKindRunner(kind string, r *Runner) {
	if p.kinds == nil {
		p.kinds = map[string]*Runner{}
	}
	p.kinds[kind] = r
}

// withKey carries the ticket's key to the pool's exec.
func withKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyContext{}, key)
}

func keyOf(ctx context.Context) string {
	key, _ := ctx.Value(keyContext{}).(string)
	return key
}

// startSpareChild starts a spare: reusable when the pool reuses children.
func (p *Pool) startSpareChild() (*child, error) {
	p.mu.Lock()
	on, opts := p.reuse.on, p.reuse.opts
	p.mu.Unlock()
	if on {
		return p.runner.startChild(&opts)
	}
	return p.runner.start()
}

// runReusing runs a job in the child its key left, else in a spare, else
// in a child started now, and keeps the child for the key's next job if it
// ended this one clean.
func (p *Pool) runReusing(ctx context.Context, input []byte, onResult ResultHandler) (*Outcome, error) {
	key := keyOf(ctx)
	p.mu.Lock()
	opts := p.reuse.opts
	p.mu.Unlock()
	for {
		c := p.takeParked(key)
		if c == nil {
			if c = p.takeSpare(); c == nil {
				break
			}
			p.refill()
		}
		if c.framed == nil { // started before Reuse: a one-job spare
			out, err := p.runner.runJob(ctx, c, input, onResult, true)
			if errors.Is(err, errSpareGone) {
				continue
			}
			return out, err
		}
		out, err := p.runFramedAndKeep(ctx, key, c, input, onResult, opts, true)
		if errors.Is(err, errSpareGone) {
			// Died while idle: the job never reached it; try the next.
			continue
		}
		return out, err
	}
	p.refill()
	c, err := p.runner.startChild(&opts)
	if err != nil {
		return nil, err
	}
	return p.runFramedAndKeep(ctx, key, c, input, onResult, opts, false)
}

func (p *Pool) runFramedAndKeep(ctx context.Context, key string, c *child, input []byte, onResult ResultHandler, opts Reuse, idle bool) (*Outcome, error) {
	out, reusable, why, err := p.runner.runFramed(ctx, c, input, onResult, opts.MaxHeap, idle)
	if err != nil {
		return out, err
	}
	if !reusable {
		p.runner.logger().Debug("sandbox: child retired", slog.String("why", why), slog.Int("jobs", c.framed.jobs))
		return out, nil
	}
	p.runner.logger().Debug("sandbox: child kept", slog.Int("jobs", c.framed.jobs),
		slog.Int64("heap", c.framed.last.HeapBytes), slog.Int("goroutines", c.framed.last.Goroutines),
		slog.Int("files", c.framed.last.OpenFiles), slog.Int64("rss", procRSS(c.framed.pid)))
	p.park(key, c)
	return out, nil
}

// takeParked returns the live child key's last job left, or nil.
func (p *Pool) takeParked(key string) *child {
	if key == "" {
		return nil
	}
	p.mu.Lock()
	pk := p.reuse.parked[key]
	if pk != nil {
		delete(p.reuse.parked, key)
		pk.timer.Stop() // if it fired, expire finds it gone and leaves it to us
	}
	p.mu.Unlock()
	if pk == nil {
		return nil
	}
	if pk.c.framed.key != key { // cannot happen: parked under its own key only
		pk.c.retire()
		return nil
	}
	// Results written while it waited belong to no job: it is broken.
	stray := pk.c.framed.reader.Buffered() > 0 || pendingBytes(pk.c.results) != 0
	if stray || !pk.c.alive() || !pk.c.framed.sameBinary() {
		pk.c.retire()
		return nil
	}
	return pk.c
}

// park keeps c, which ended a job of key clean, for key's next job.
func (p *Pool) park(key string, c *child) {
	if key == "" {
		c.retire()
		return
	}
	if c.framed.key == "" {
		c.framed.key = key
	}
	var retired []*child
	p.mu.Lock()
	if p.reuse.closed || c.framed.key != key {
		p.mu.Unlock()
		c.retire()
		return
	}
	if old := p.reuse.parked[key]; old != nil {
		// Two jobs of the key ran at once: keep the newer child.
		old.timer.Stop()
		delete(p.reuse.parked, key)
		retired = append(retired, old.c)
	}
	pk := &parked{c: c, key: key, since: time.Now()}
	pk.timer = time.AfterFunc(p.reuse.opts.Idle, func() { p.expire(pk) })
	p.reuse.parked[key] = pk
	for len(p.reuse.parked) > p.reuse.opts.MaxIdle {
		var oldest *parked
		for _, q := range p.reuse.parked {
			if oldest == nil || q.since.Before(oldest.since) {
				oldest = q
			}
		}
		oldest.timer.Stop()
		delete(p.reuse.parked, oldest.key)
		retired = append(retired, oldest.c)
	}
	p.mu.Unlock()
	for _, old := range retired {
		old.retire()
	}
}

// expire retires pk after its idle time, unless a job took it meanwhile.
func (p *Pool) expire(pk *parked) {
	p.mu.Lock()
	mine := p.reuse.parked[pk.key] == pk
	if mine {
		delete(p.reuse.parked, pk.key)
	}
	p.mu.Unlock()
	if mine {
		pk.c.retire()
	}
}

// closeReuse retires the parked children and parks no more.
func (p *Pool) closeReuse() {
	p.mu.Lock()
	p.reuse.closed = true
	var all []*parked
	for k, pk := range p.reuse.parked {
		pk.timer.Stop()
		delete(p.reuse.parked, k)
		all = append(all, pk)
	}
	p.mu.Unlock()
	for _, pk := range all {
		pk.c.retire()
	}
}

func (r *Runner) logger() *slog.Logger {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}
