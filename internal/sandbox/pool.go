package sandbox

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
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

// Admission estimates (see Pool.expectedWaitLocked).
const (
	// firstEstimate is the job duration assumed before any job has finished.
	firstEstimate = 2 * time.Second
	// recentJobs is how many finished jobs the typical durations are
	// taken from (typicalLocked).
	recentJobs = 16
	// longMemory is how long an address whose job ran long has each of its
	// jobs counted at the wall-clock limit, the worst case.
	longMemory = 10 * time.Minute
	// minLongJob is the shortest run taken for a long one: below it a job
	// is only a slow quick one (a reference grading is about 0.15 s warm,
	// a second or so on a loaded machine).
	minLongJob = 2 * time.Second
	// maxKeyStates bounds what the pool remembers per key; past it the
	// keys with nothing to remember are dropped.
	maxKeyStates = 4096
)

// Pool runs at most Size children at once and lets at most Queue more
// wait. Past that, Submit fails at once with a *BusyError.
//
// Every job belongs to a key (the client address it came for; "" when the
// caller has none): when a place frees it goes to the waiting job whose key
// has the fewest jobs running; then to a key none of whose jobs ran long
// recently (see observeLocked) before one whose did; then to the key with
// the fewest jobs waiting; then to the key that last got a place longest
// ago; then to the job that has waited longest. So one key holding every
// place gets the next free one only when nobody else waits, and a newcomer
// waits for the first running job to end, not for the turns of many keys
// keeping endless loops queued: once their loops have run long those keys
// come after it, and before that each of them has a queue while the
// newcomer has one job. A key whose jobs are quick keeps its turn against
// any number of keys spinning, whatever its queue; the price is that a key
// whose code ran long (longMemory) waits behind every key whose code did
// not, and is told so at admission (its expected wait counts them).
//
// After KeepWarm the pool also keeps up to one spare child per place,
// started and initialised, blocked reading its job: a job given to a spare
// skips the child's start-up (exec, limits, namespaces, the runtime and
// the binary's package init). A spare runs one job, or with Reuse the
// jobs of the one key it first served (reuse_pool.go). Close kills the
// spares.
type Pool struct {
	runner  *Runner
	kinds   map[string]*Runner // SetKindRunner; set before the pool runs a job
	size    int
	queue   int
	maxWait time.Duration // 0: only the queue's length bounds waiting
	wall    time.Duration // the runner's wall-clock limit: a job's worst case
	now     func() time.Time
	// exec runs a job that has its place: p.run, a fake in tests.
	exec func(ctx context.Context, input []byte, onResult ResultHandler) (*Outcome, error)

	mu        sync.Mutex
	running   []*Ticket            // jobs with a place
	waiting   []*Ticket            // admitted, no place yet, in arrival order
	keys      map[string]*keyState // per key, see keyState
	recent    []time.Duration      // the last recentJobs quick jobs' durations
	surprises []bool               // the last recentJobs jobs: was each an unforeseen long one?
	warm      bool                 // KeepWarm was called and Close was not
	once      bool                 // Prestart's spare is being started: keep it
	// prestarted is closed when Prestart's spare has started (or failed to);
	// a job that comes first waits for it rather than start a second child.
	prestarted chan struct{}
	idle       []*child // spares waiting for a job, oldest first
	starting   int      // spares being started now
	starters   sync.WaitGroup
	reuse      reuser // children kept for their key's next job (reuse_pool.go)

	// The newcomer's place (SetNewcomerPlace, newcomer.go).
	newcomerPlace bool
	newcomer      *Ticket // the job holding it; nil when it is free
	// afterFunc runs f after d unless stopped: time.AfterFunc, a fake in
	// tests. It lowers a job's priority once the job runs long.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
}

// keyState is what the pool knows of one key's jobs.
type keyState struct {
	running   int
	waiting   int
	lastStart time.Time // when a job of the key last got a place
	longAt    time.Time // when a job of the key last ran long
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
	p := &Pool{runner: runner, size: size, queue: queue, wall: runner.Limits.withDefaults().WallTime,
		now: time.Now, keys: map[string]*keyState{}}
	p.exec = p.run
	p.afterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	return p
}

// SetMaxWait bounds how long a job may expect to wait for a place: past
// it Admit (and Submit) is refused with a *BusyError even when the queue
// has room. The expected wait reckons with each job's worst case, not its
// average: see expectedWaitLocked. Call it before the pool is used.
func (p *Pool) SetMaxWait(d time.Duration) { p.maxWait = d }

// Size is the number of children that may run at once.
func (p *Pool) Size() int { return p.size }

// Running is the number of children running now.
func (p *Pool) Running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.running)
}

// Waiting is the number of jobs queued for a place now.
func (p *Pool) Waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.waiting)
}

// Ticket is one job's admission to a Pool: a place in its queue from
// Admit on, a running child from Run's hand-over. A ticket runs one job;
// one never run must be released.
type Ticket struct {
	pool     *Pool
	key      string
	admitted time.Time
	ready    bool          // Run is waiting for a place
	place    chan struct{} // closed when the job has its place
	state    ticketState
	started  time.Time
	// Set when the job gets its place: its child's CPU priority, how long
	// it may run before it is taken for a long one (then the priority is
	// lowered), and whether it holds the newcomer's place.
	prio      *jobPriority
	longAfter time.Duration
	newcomer  bool
}

type ticketState int

const (
	ticketWaiting ticketState = iota
	ticketRunning
	ticketDone
)

// Admit admits a job of key to the queue, or refuses it at once with a
// *BusyError when the queue is full or the job's expected wait is past
// the pool's bound. The key decides the job's turn (see Pool); it never
// reaches the child.
func (p *Pool) Admit(key string) (*Ticket, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if (p.placesTakenLocked() >= p.size || len(p.waiting) > 0) && !p.newcomerOpenLocked(key, now) {
		if len(p.waiting) >= p.queue {
			return nil, &BusyError{RetryAfter: roundUp(p.expectedWaitLocked(key, now))}
		}
		if wait := p.expectedWaitLocked(key, now); p.maxWait > 0 && wait > p.maxWait {
			return nil, &BusyError{RetryAfter: roundUp(wait)}
		}
	}
	t := &Ticket{pool: p, key: key, admitted: now, place: make(chan struct{})}
	p.waiting = append(p.waiting, t)
	p.keyLocked(key).waiting++
	return t, nil
}

// Submit admits a job without a key and runs it: Admit("") then Run.
func (p *Pool) Submit(ctx context.Context, input []byte, onResult ResultHandler) (*Outcome, error) {
	t, err := p.Admit("")
	if err != nil {
		return nil, err
	}
	return t.Run(ctx, input, onResult)
}

// Run waits for the ticket's place, then runs the child like Runner.Run.
// Ending ctx while waiting returns ctx's error; ending it while running
// kills the child.
func (t *Ticket) Run(ctx context.Context, input []byte, onResult ResultHandler) (*Outcome, error) {
	p := t.pool
	p.mu.Lock()
	if t.state != ticketWaiting || t.ready {
		p.mu.Unlock()
		return nil, errors.New("sandbox: a ticket runs one job only")
	}
	t.ready = true
	p.dispatchLocked()
	p.mu.Unlock()

	select {
	case <-t.place:
	case <-ctx.Done():
		p.mu.Lock()
		granted := t.state == ticketRunning
		if !granted {
			p.leaveQueueLocked(t)
		}
		p.mu.Unlock()
		if granted { // the place came as the caller gave up: pass it on
			p.finish(t, 0, false, false)
		}
		return nil, fmt.Errorf("sandbox: gave up waiting for a free place: %w", ctx.Err())
	}
	stopWatch := p.afterFunc(t.longAfter, func() { t.prio.lower(LowNice) })
	out, err := p.exec(withKey(withPriority(ctx, t.prio), t.key), input, onResult)
	stopWatch()
	p.finish(t, p.now().Sub(t.started), err == nil, hitLimit(out))
	return out, err
}

// Release gives up a ticket that will not run, so its place in the queue
// goes to others. It does nothing to a ticket that ran or is running, or
// to a nil one.
func (t *Ticket) Release() {
	if t == nil {
		return
	}
	p := t.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.state == ticketWaiting {
		p.leaveQueueLocked(t)
	}
}

// RetryAfter is when a job of key should expect a place to free for it:
// when the first of key's own jobs should end (the caller limits how many
// a key may have), or when a newcomer of key would get a place. At least
// one second, in whole seconds.
func (p *Pool) RetryAfter(key string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	first := time.Duration(-1)
	for _, t := range p.running {
		if t.key == key {
			if r := p.remainingLocked(t, now); first < 0 || r < first {
				first = r
			}
		}
	}
	if first < 0 {
		first = p.expectedWaitLocked(key, now) + p.expectedLocked(key, now)
	}
	return roundUp(first)
}

// dispatchLocked gives free places to the ready waiting jobs, in the
// fair order, then the newcomer's place, if kept and free, to the first
// of them in that order whose key may have it (see SetNewcomerPlace).
func (p *Pool) dispatchLocked() {
	now := p.now()
	for p.placesTakenLocked() < p.size {
		best := p.bestWaitingLocked(now, nil)
		if best < 0 {
			break
		}
		p.startLocked(best, now, false)
	}
	p.dispatchNewcomerLocked(now)
}

// bestWaitingLocked is the index in p.waiting of the ready job that comes
// first in the fair order among those ok accepts (nil: all), or -1.
func (p *Pool) bestWaitingLocked(now time.Time, ok func(*Ticket) bool) int {
	best := -1
	for i, t := range p.waiting {
		if t.ready && (ok == nil || ok(t)) && (best < 0 || p.beforeLocked(t, p.waiting[best], now)) {
			best = i
		}
	}
	return best
}

// startLocked gives the waiting job at index i its place, at the CPU
// priority its key has earned (see niceLocked).
func (p *Pool) startLocked(i int, now time.Time, newcomer bool) {
	t := p.waiting[i]
	p.waiting = slices.Delete(p.waiting, i, i+1)
	ks := p.keyLocked(t.key)
	t.prio = newJobPriority(p.niceLocked(ks, now))
	t.longAfter = p.longAfterLocked()
	t.newcomer = newcomer
	if newcomer {
		p.newcomer = t
	}
	ks.waiting--
	ks.running++
	t.state = ticketRunning
	t.started = p.now()
	ks.lastStart = t.started
	p.running = append(p.running, t)
	close(t.place)
}

// beforeLocked reports whether waiting job a gets a place before b, at
// now, in the order Pool describes.
func (p *Pool) beforeLocked(a, b *Ticket, now time.Time) bool {
	ka, kb := p.keyLocked(a.key), p.keyLocked(b.key)
	switch {
	case ka.running != kb.running:
		return ka.running < kb.running
	case p.markedLocked(ka, now) != p.markedLocked(kb, now):
		return !p.markedLocked(ka, now)
	case ka.waiting != kb.waiting:
		return ka.waiting < kb.waiting
	case !ka.lastStart.Equal(kb.lastStart):
		return ka.lastStart.Before(kb.lastStart)
	}
	return a.admitted.Before(b.admitted)
}

func (p *Pool) leaveQueueLocked(t *Ticket) {
	if i := slices.Index(p.waiting, t); i >= 0 {
		p.waiting = slices.Delete(p.waiting, i, i+1)
		p.keyLocked(t.key).waiting--
	}
	t.state = ticketDone
	p.dispatchLocked()
}

// finish frees t's place, learns from how long it ran and whether it hit
// a limit when it ran to its end (observe), and hands the place on.
func (p *Pool) finish(t *Ticket, d time.Duration, observe, limit bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i := slices.Index(p.running, t); i >= 0 {
		p.running = slices.Delete(p.running, i, i+1)
		p.freedLocked(t)
	}
	t.state = ticketDone
	ks := p.keyLocked(t.key)
	ks.running--
	if observe {
		p.observeLocked(ks, d, limit)
	}
	p.dispatchLocked()
	p.pruneKeysLocked()
}

func (p *Pool) keyLocked(key string) *keyState {
	ks := p.keys[key]
	if ks == nil {
		ks = &keyState{}
		p.keys[key] = ks
	}
	return ks
}

// pruneKeysLocked forgets keys with nothing running or waiting and nothing
// recent to remember, once there are many.
func (p *Pool) pruneKeysLocked() {
	if len(p.keys) <= maxKeyStates {
		return
	}
	cut := p.now().Add(-longMemory)
	for k, ks := range p.keys {
		if ks.running == 0 && ks.waiting == 0 && ks.lastStart.Before(cut) && ks.longAt.Before(cut) {
			delete(p.keys, k)
		}
	}
}

// run gives the job to a spare when there is a live one, else to a child
// started now, and has the spare replaced in the background.
func (p *Pool) run(ctx context.Context, input []byte, onResult ResultHandler) (*Outcome, error) {
	if r := p.kinds[kindOf(ctx)]; r != nil {
		return r.Run(ctx, input, onResult)
	}
	p.mu.Lock()
	prestarted, reusing := p.prestarted, p.reuse.on
	p.mu.Unlock()
	if reusing {
		return p.runReusing(ctx, input, onResult)
	}
	if prestarted != nil {
		select {
		case <-prestarted:
		case <-ctx.Done():
		}
	}
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

// Prestart starts one spare in the background now and keeps no more: for
// a process that grades one job (server grade) and has other work to do
// before it (reading the content), so the child's start-up overlaps that
// work instead of following it. The spare runs one job as any; Close kills
// it if no job took it.
func (p *Pool) Prestart() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.warm || len(p.idle)+p.starting > 0 {
		return
	}
	p.once = true
	p.prestarted = make(chan struct{})
	p.starting++
	p.starters.Add(1)
	go p.startSpare()
}

// Close kills the idle spares, waits for spares being started, and stops
// keeping any. Running jobs are not touched; later Submits start their
// child cold. It is safe to call more than once.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.warm, p.once = false, false
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, c := range idle {
		c.discard()
	}
	p.closeReuse()
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
	c, err := p.startSpareChild()
	p.mu.Lock()
	p.starting--
	keep := err == nil && (p.warm || p.once)
	p.once = false
	if keep {
		p.idle = append(p.idle, c)
	}
	if p.prestarted != nil {
		close(p.prestarted)
		p.prestarted = nil
	}
	p.mu.Unlock()
	if err == nil && !keep {
		c.discard()
	}
}

// observeLocked learns from one finished job: a long one, or one that hit
// its CPU or wall-clock limit, marks its key; a quick one joins the
// typical durations. The first long job of a key not marked is a
// surprise: the share of surprises among recent jobs is the chance that a
// newcomer is long too. Later long jobs of a marked key were foreseen and
// say nothing about anyone else.
func (p *Pool) observeLocked(ks *keyState, d time.Duration, limit bool) {
	now := p.now()
	long := d >= p.longAfterLocked() || limit
	p.surprises = appendRecent(p.surprises, long && !p.markedLocked(ks, now))
	if long {
		ks.longAt = now
		return
	}
	p.recent = appendRecent(p.recent, d)
}

// markedLocked reports whether a job of ks's key ran long recently.
func (p *Pool) markedLocked(ks *keyState, now time.Time) bool {
	return ks != nil && !ks.longAt.IsZero() && now.Sub(ks.longAt) < longMemory
}

func appendRecent[T any](s []T, v T) []T {
	if len(s) == recentJobs {
		s = s[1:]
	}
	return append(s, v)
}

// typicalLocked is how long a quick job takes on average, and the longest
// of the recent quick ones. The average is for a queue of jobs, whose sum
// it estimates well; the maximum is for the one job holding a place.
func (p *Pool) typicalLocked() (mean, longest time.Duration) {
	if len(p.recent) == 0 {
		return firstEstimate, firstEstimate
	}
	var sum time.Duration
	for _, d := range p.recent {
		sum += d
	}
	return sum / time.Duration(len(p.recent)), slices.Max(p.recent)
}

// longAfterLocked is when a job stops looking like a slow quick one and is
// taken for a long one (code spinning to its limit): four times the
// longest recent quick job, between minLongJob and a quarter of the
// wall-clock limit.
func (p *Pool) longAfterLocked() time.Duration {
	_, longest := p.typicalLocked()
	return max(min(4*longest, p.wall/4), min(minLongJob, p.wall/4))
}

// expectedLocked is how long a job of key should take once it has its
// place. A key whose job ran long recently is counted at the wall-clock
// limit, its worst case. Any other key is an average quick job, plus the
// wall-clock limit in the share of recent jobs that were surprises (see
// observeLocked): after slow jobs from many keys a newcomer is not
// assumed quick.
func (p *Pool) expectedLocked(key string, now time.Time) time.Duration {
	if p.markedLocked(p.keys[key], now) {
		return p.wall
	}
	mean, _ := p.typicalLocked()
	surprises := 0
	for _, s := range p.surprises {
		if s {
			surprises++
		}
	}
	if surprises == 0 {
		return mean
	}
	return mean + time.Duration(surprises)*max(p.wall-mean, 0)/time.Duration(len(p.surprises))
}

// remainingLocked is how much longer running job t should take. Until the
// longest recent quick job (or its key's expected time, if longer), the
// rest of that; a little past it, another average job; once it has run
// long, up to the wall-clock limit, where it is killed whatever it does.
func (p *Pool) remainingLocked(t *Ticket, now time.Time) time.Duration {
	elapsed := now.Sub(t.started)
	mean, longest := p.typicalLocked()
	bound := max(longest, p.expectedLocked(t.key, now))
	switch {
	case elapsed < bound:
		return bound - elapsed
	case elapsed < p.longAfterLocked():
		return mean
	}
	return max(p.wall-elapsed, 0)
}

// expectedWaitLocked is how long a job of key admitted now should wait for
// a place: the places free as the running jobs end, and each goes to the
// waiting jobs ahead of it in the fair order (see beforeLocked), each
// holding it for its expected time. With the newcomer's place kept (see
// SetNewcomerPlace) its job moves into the first place that frees, and the
// newcomer's place itself goes only to a job whose key may have it, this
// one's included, so its wait is played out event by event.
func (p *Pool) expectedWaitLocked(key string, now time.Time) time.Duration {
	if p.newcomerOpenLocked(key, now) {
		return 0
	}
	// When each place frees, and when the newcomer's does while held.
	places := make([]time.Duration, 0, p.size)
	kept, keptFrees := false, time.Duration(0)
	for _, t := range p.running {
		if t.newcomer {
			kept, keptFrees = true, p.remainingLocked(t, now)
		} else {
			places = append(places, p.remainingLocked(t, now))
		}
	}
	for len(places) < p.size {
		places = append(places, 0)
	}
	newcomer := &Ticket{key: key, admitted: now.Add(time.Nanosecond)}
	// Once admitted the newcomer waits too, and counts in its key's turn.
	ks := p.keyLocked(key)
	ks.waiting++
	defer func() { ks.waiting-- }()
	queue := slices.DeleteFunc(slices.Clone(p.waiting), func(w *Ticket) bool { return !p.beforeLocked(w, newcomer, now) })
	slices.SortStableFunc(queue, func(a, b *Ticket) int {
		switch {
		case p.beforeLocked(a, b, now):
			return -1
		case p.beforeLocked(b, a, now):
			return 1
		}
		return 0
	})
	queue = append(queue, newcomer)
	mayTake := func(t *Ticket) bool { return p.mayTakeNewcomerPlaceLocked(t.key, now) }
	for at := time.Duration(0); ; {
		if kept && keptFrees <= at {
			kept = false
		}
		for i := range places {
			for places[i] <= at {
				if kept { // the newcomer's job moves into the freed place
					places[i], kept = keptFrees, false
					continue
				}
				if queue[0] == newcomer {
					return at
				}
				places[i] = at + p.expectedLocked(queue[0].key, now)
				queue = queue[1:]
			}
		}
		if p.newcomerPlace && !kept {
			if i := slices.IndexFunc(queue, mayTake); i >= 0 {
				if queue[i] == newcomer {
					return at
				}
				kept, keptFrees = true, at+p.expectedLocked(queue[i].key, now)
				queue = slices.Delete(queue, i, i+1)
			}
		}
		next := slices.Min(places)
		if kept && keptFrees < next {
			next = keptFrees
		}
		at = next
	}
}

// roundUp turns an estimate into a retry time: whole seconds, at least one.
func roundUp(d time.Duration) time.Duration {
	return max(time.Second, (d+time.Second-1)/time.Second*time.Second)
}
