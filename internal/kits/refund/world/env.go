package world

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/workerctx"
	"github.com/faultline-dev/faultline/internal/textclip"
)

// Gate is the scheduler of a run, seen from the harness. Every step that
// touches shared state (the store, the provider, the trace) first passes the
// gate, so exactly one actor at a time changes the world and a seeded
// scheduler decides the order: that is what makes interleavings reproducible.
type Gate interface {
	// Pass parks the calling goroutine, acting for actor, until the
	// scheduler lets it proceed. It returns false when the run is over
	// (its virtual-time budget ran out): the caller must then stop.
	Pass(actor string) bool
	// Go starts f as an actor the run waits for (a provider request still
	// being processed after its caller gave up, for example).
	Go(actor string, f func())
}

// Event is one line of a run's trace, on the virtual clock.
type Event struct {
	At    time.Duration // since the run started
	Actor string        // worker-1, provider, store, clock
	Kind  string        // call, reply, drop, sleep, crash, log, state
	Text  string
}

// Trace event kinds.
const (
	KindCall  = "call"
	KindReply = "reply"
	KindDrop  = "drop"
	KindSleep = "sleep"
	KindCrash = "crash"
	KindLog   = "log"
	KindState = "state"
)

// NetworkConfig is the provider's network model.
type NetworkConfig struct {
	Latency       time.Duration // one way, client to provider or back
	Processing    time.Duration // how long the provider works on a request
	ClientTimeout time.Duration // how long the client waits for a reply
	KeyTTL        time.Duration // idempotency keys are pruned after this
}

// DefaultNetwork is the network the scenarios assume unless they say otherwise.
var DefaultNetwork = NetworkConfig{
	Latency:       50 * time.Millisecond,
	Processing:    100 * time.Millisecond,
	ClientTimeout: 10 * time.Second,
	KeyTTL:        24 * time.Hour,
}

// PanicRule makes a harness call panic, as a helper with a bug or a dropped
// database connection would. Nth counts calls of that name in the run (all
// workers together), starting at 1.
type PanicRule struct {
	Call    string
	Nth     int
	Message string
	// Error: the store call fails with a *StoreError saying Message and
	// changes nothing, instead of panicking (a database that times out).
	Error bool `yaml:"error,omitempty" json:"error,omitempty"`
}

// StoreError is a store call that failed: nothing was read or written.
type StoreError struct {
	Call    string
	Message string
}

func (e *StoreError) Error() string {
	return "refundkit: the database failed in " + e.Call + ": " + e.Message
}

// storeCalls are the calls a PanicRule with Error may fail.
var storeCalls = map[string]bool{"GetRecord": true, "Claim": true, "MarkProcessing": true, "MarkDone": true, "MarkFailed": true, "MarkNeedsCheck": true}

// ValidatePanicRule reports a rule that cannot be run.
func ValidatePanicRule(r PanicRule) error {
	if r.Error && !storeCalls[r.Call] {
		return fmt.Errorf("refundkit: only a store call can fail with an error, not %q", r.Call)
	}
	return nil
}

// CrashPoint kills a worker's process before or after its Nth harness call
// (store and provider calls, counted from 1; Logf does not count).
type CrashPoint struct {
	Call   int
	Before bool
}

// Env is one run of a scenario: the store, the provider, the trace, and the
// workers that call into them. It is not safe to use without a Gate that
// serialises the steps; the mutex only guards against a broken scheduler.
type Env struct {
	mu       sync.Mutex
	gate     Gate
	start    time.Time
	net      NetworkConfig
	panics   []PanicRule
	calls    map[string]int // per call name, for panic rules
	trace    []Event
	store    *Store
	provider *Provider
	workers  []*Worker
	watches  []*watch
}

// watch is a hook on an event of the world, set by the engine: a write
// that gives a record a status, or a provider's answer reaching a worker.
// It fires once, inside the step that made the event, so an actor it
// starts is at the gate before the next step is chosen.
type watch struct {
	requestID string
	status    refundkit.Status
	worker    string
	fire      func()
}

// WhenStatus calls f the first time a write sets the record of requestID
// to st.
func (e *Env) WhenStatus(requestID string, st refundkit.Status, f func()) {
	e.watches = append(e.watches, &watch{requestID: requestID, status: st, fire: f})
}

// WhenAnswered calls f the first time one of worker's refund requests
// ends with an answer (a reply, or the client's timeout).
func (e *Env) WhenAnswered(worker string, f func()) {
	e.watches = append(e.watches, &watch{worker: worker, fire: f})
}

func (e *Env) fire(match func(*watch) bool) {
	for i := 0; i < len(e.watches); i++ {
		if w := e.watches[i]; match(w) {
			e.watches = append(e.watches[:i], e.watches[i+1:]...)
			i--
			w.fire()
		}
	}
}

func (e *Env) statusWritten(requestID string, st refundkit.Status) {
	e.fire(func(w *watch) bool { return w.worker == "" && w.requestID == requestID && w.status == st })
}

func (e *Env) answered(worker string) {
	e.fire(func(w *watch) bool { return w.worker != "" && w.worker == worker })
}

// NewEnv makes an empty world that starts now (the bubble's clock).
func NewEnv(gate Gate, net NetworkConfig) *Env {
	e := &Env{gate: gate, start: time.Now(), net: net, calls: map[string]int{}}
	e.store = &Store{env: e, records: map[string]*refundkit.Record{}}
	e.provider = &Provider{env: e, charges: map[string]*charge{}, keys: map[string]*keyEntry{}}
	return e
}

// Start is the virtual time the run began.
func (e *Env) Start() time.Time { return e.start }

// Store is the run's database.
func (e *Env) Store() *Store { return e.store }

// Provider is the run's payment provider.
func (e *Env) Provider() *Provider { return e.provider }

// Gate is the run's scheduler.
func (e *Env) Gate() Gate { return e.gate }

// AddPanic scripts a panic in a harness call.
func (e *Env) AddPanic(r PanicRule) { e.panics = append(e.panics, r) }

// Trace returns a copy of the events so far.
func (e *Env) Trace() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.trace...)
}

// TraceLen is how many events the trace holds: a position in the run's one
// order of steps, finer than the virtual clock.
func (e *Env) TraceLen() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.trace)
}

// Record appends an event at the current virtual time. Call it only while
// holding the gate (from a step).
func (e *Env) Record(actor, kind, format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.trace = append(e.trace, Event{At: time.Since(e.start), Actor: actor, Kind: kind, Text: fmt.Sprintf(format, args...)})
}

// NewWorker adds a worker (one invocation, one process) to the run.
func (e *Env) NewWorker(id string, crash CrashPoint) *Worker {
	w := &Worker{ID: id, env: e, crash: crash, crashed: make(chan struct{})}
	e.workers = append(e.workers, w)
	return w
}

// Workers returns the run's workers in creation order.
func (e *Env) Workers() []*Worker { return append([]*Worker(nil), e.workers...) }

// Worker is one invocation's view of a run: the identity that owns claims,
// and the entry point of every harness call. Each worker stands for a
// separate process: when it crashes, the whole process dies at once, every
// goroutine it started included. Go cannot kill a goroutine, so each one
// stops at its next harness call (every call passes the gate first) and
// none of them reaches the world again; replies to the process's requests
// still in flight are dropped (the requests themselves may still land at
// the provider); and whoever waits for the invocation stops waiting when
// the process dies (Crashed), not when its goroutine unwinds.
type Worker struct {
	ID    string
	env   *Env
	crash CrashPoint
	calls int // store and provider calls so far
	// dead: crashed, or the run is over. Atomic: a goroutine of the worker
	// checks it before passing the gate, while another of its goroutines,
	// holding the gate, may be dying.
	dead atomic.Bool
	// CrashedAt describes where the worker's process died, "" if it did not.
	CrashedAt string
	// DiedAt is when the process died, since the run started, and
	// DiedSeq where in the trace (Env.TraceLen).
	DiedAt  time.Duration
	DiedSeq int
	crashed chan struct{}
}

// WithWorker returns a context that carries w: how a natively compiled
// submission's calls of the harness reach the worker (an interpreted one
// gets the harness bound to its worker instead).
func WithWorker(ctx context.Context, w *Worker) context.Context {
	return workerctx.With(ctx, w)
}

// Env returns the run the worker belongs to.
func (w *Worker) Env() *Env { return w.env }

// Calls reports how many store and provider calls the worker made.
func (w *Worker) Calls() int { return w.calls }

// Dead reports whether the worker's process died (crash or end of run).
func (w *Worker) Dead() bool { return w.dead.Load() }

// Crashed is closed when the worker's process dies at a crash point.
func (w *Worker) Crashed() <-chan struct{} { return w.crashed }

// Pass takes the gate for this worker. A dead worker, or any worker once
// the run is over, stops here: its goroutine exits as its process would.
func (w *Worker) Pass() { w.pass("") }

// pass is Pass for a named step. Two goroutines of one worker can wait at
// the gate at one virtual instant, in an order the Go runtime picks; the
// step's name (after a NUL, so workers sort as before) puts them in an
// order of their own: a goroutine's reply before its sibling's next call
// whatever the runtime did, natively and interpreted alike.
func (w *Worker) pass(step string) {
	actor := w.ID
	if step != "" {
		actor += "\x00" + step
	}
	if w.dead.Load() || !w.env.gate.Pass(actor) || w.dead.Load() {
		w.dead.Store(true)
		runtime.Goexit()
	}
}

// enter starts a store or provider call: it takes the gate, counts the
// call and applies a crash scheduled before it, then a scripted panic.
func (w *Worker) enter(name string) error {
	w.pass(name)
	w.calls++
	if w.crash.Call == w.calls && w.crash.Before {
		w.die("before " + name)
	}
	w.env.calls[name]++
	for _, r := range w.env.panics {
		if r.Call == name && r.Nth == w.env.calls[name] {
			if r.Error {
				w.env.Record(w.ID, KindReply, "%s fails: %s (nothing read or written)", name, r.Message)
				return &StoreError{Call: name, Message: r.Message}
			}
			w.env.Record(w.ID, KindCrash, "%s panics: %s", name, r.Message)
			panic(r.Message)
		}
	}
	return nil
}

// leave ends a call: a crash scheduled after it happens now, once the call
// took effect but before the submission sees the answer.
func (w *Worker) leave(name string) {
	if w.crash.Call == w.calls && !w.crash.Before {
		w.die("after " + name)
	}
}

func (w *Worker) die(where string) {
	// CrashedAt and DiedAt first: another goroutine of the worker that
	// sees dead (an atomic) then sees them too.
	w.CrashedAt = fmt.Sprintf("%s (call %d)", where, w.calls)
	w.DiedAt, w.DiedSeq = time.Since(w.env.start), w.env.TraceLen()
	w.dead.Store(true)
	w.env.Record(w.ID, KindCrash, "the process of %s dies %s: nothing it does from here on takes effect, in any of its goroutines", w.ID, where)
	close(w.crashed)
	runtime.Goexit()
}

// Sleep is time.Sleep with a line in the trace. The grader gives it to the
// submission in place of time.Sleep.
func (w *Worker) Sleep(d time.Duration) {
	w.pass("Sleep")
	w.env.Record(w.ID, KindSleep, "sleeps %s", FormatDuration(d))
	time.Sleep(d)
}

// After is time.After with a line in the trace, so waits written as a
// select on time.After show on the timeline too.
func (w *Worker) After(d time.Duration) <-chan time.Time {
	w.pass("After")
	w.env.Record(w.ID, KindSleep, "waits up to %s (time.After)", FormatDuration(d))
	return time.After(d)
}

// GetRecord loads the refund record. A missing record is ErrNotFound.
func (w *Worker) GetRecord(ctx context.Context, requestID string) (*refundkit.Record, error) {
	if err := w.enter("GetRecord"); err != nil {
		w.leave("GetRecord")
		return nil, err
	}
	defer w.leave("GetRecord")
	return w.env.store.get(w, requestID)
}

// Claim atomically takes the record (see the package function Claim).
func (w *Worker) Claim(ctx context.Context, requestID string, lease time.Duration) (bool, error) {
	if err := w.enter("Claim"); err != nil {
		w.leave("Claim")
		return false, err
	}
	defer w.leave("Claim")
	return w.env.store.claim(w, requestID, lease)
}

// MarkProcessing writes processing with no check and no lease.
func (w *Worker) MarkProcessing(ctx context.Context, requestID string) error {
	if err := w.enter("MarkProcessing"); err != nil {
		w.leave("MarkProcessing")
		return err
	}
	defer w.leave("MarkProcessing")
	return w.env.store.mark(w, "MarkProcessing", requestID, refundkit.StatusProcessing, "")
}

// MarkDone sets the status to done.
func (w *Worker) MarkDone(ctx context.Context, requestID string) error {
	if err := w.enter("MarkDone"); err != nil {
		w.leave("MarkDone")
		return err
	}
	defer w.leave("MarkDone")
	return w.env.store.mark(w, "MarkDone", requestID, refundkit.StatusDone, "")
}

// MarkFailed sets the status to failed.
func (w *Worker) MarkFailed(ctx context.Context, requestID, reason string) error {
	if err := w.enter("MarkFailed"); err != nil {
		w.leave("MarkFailed")
		return err
	}
	defer w.leave("MarkFailed")
	return w.env.store.mark(w, "MarkFailed", requestID, refundkit.StatusFailed, reason)
}

// MarkNeedsCheck sets the status to needs_check.
func (w *Worker) MarkNeedsCheck(ctx context.Context, requestID, reason string) error {
	if err := w.enter("MarkNeedsCheck"); err != nil {
		w.leave("MarkNeedsCheck")
		return err
	}
	defer w.leave("MarkNeedsCheck")
	return w.env.store.mark(w, "MarkNeedsCheck", requestID, refundkit.StatusNeedsCheck, reason)
}

// CreateRefund sends a refund request to the provider (see RefundParams).
func (w *Worker) CreateRefund(ctx context.Context, p refundkit.RefundParams) (*refundkit.ProviderRefund, error) {
	_ = w.enter("CreateRefund") // a rule with Error applies to store calls only
	defer w.leave("CreateRefund")
	return w.env.provider.createRefund(ctx, w, p)
}

// ListRefunds asks the provider for the refunds of a charge.
func (w *Worker) ListRefunds(ctx context.Context, charge string) ([]refundkit.ProviderRefund, error) {
	_ = w.enter("ListRefunds") // a rule with Error applies to store calls only
	defer w.leave("ListRefunds")
	return w.env.provider.listRefunds(ctx, w, charge)
}

// Logf writes a line to the trace.
func (w *Worker) Logf(ctx context.Context, format string, args ...any) {
	w.pass("Logf")
	msg := textclip.Bytes(fmt.Sprintf(format, args...), 500, "...")
	w.env.Record(w.ID, KindLog, "%s", msg)
}

// FormatDuration prints a duration the way the trace does: milliseconds at
// most, no trailing noise ("1.25s", "10m0s", "168h0m0s").
func FormatDuration(d time.Duration) string {
	return d.Round(time.Millisecond).String()
}
