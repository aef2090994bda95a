package world

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/workerctx"
	"github.com/faultline-dev/faultline/internal/textclip"
)

// Gate is the scheduler of a run, seen from the harness (faultsim's):
// every step that touches shared state (the store, the provider, the
// trace) first passes it, so exactly one actor at a time changes the world
// and a seeded scheduler decides the order.
type Gate = faultsim.Gate

// Event is one line of a run's trace, on the virtual clock.
type Event = faultsim.Event

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

// The lanes of the world's fakes in a run's sequence diagram, and of the
// phases, which are no lane: a rule across them all.
const (
	LaneStore    = "store"
	LaneProvider = "provider"
	LaneClock    = "clock"
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
	// Ref names the rule in its scenario for the engine (Env.OnFault).
	Ref string `yaml:"-" json:"-"`
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

// CrashPoint kills a worker's process before or after its Nth harness
// call (store and provider calls, counted from 1; Logf does not count).
type CrashPoint = faultsim.CrashPoint

// Env is one run of a scenario: the store, the provider, the trace, and the
// workers that call into them. It is not safe to use without a Gate that
// serialises the steps; the mutex only guards against a broken scheduler.
type Env struct {
	mu       sync.Mutex
	gate     Gate
	start    time.Time
	net      NetworkConfig
	panics   []PanicRule
	onFault  func(ref string)
	mayFire  func(ref string) bool
	calls    map[string]int // per call name, for panic rules
	trace    *faultsim.Trace
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

// NewEnv makes an empty world that starts now (the bubble's clock), with
// a trace of its own.
func NewEnv(gate Gate, net NetworkConfig) *Env {
	return NewEnvOn(gate, faultsim.NewTrace(time.Now()), net)
}

// NewEnvOn makes an empty world of a run whose trace is tr, starting when
// tr does.
func NewEnvOn(gate Gate, tr *faultsim.Trace, net NetworkConfig) *Env {
	e := &Env{gate: gate, start: tr.Start(), net: net, calls: map[string]int{}, trace: tr}
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

// OnFault tells f, holding the gate, each time a scripted fault or panic
// rule with a Ref takes effect (faultsim.Run.Fire).
func (e *Env) OnFault(f func(ref string)) { e.onFault = f }

// OnFaultLimit tells the provider whether a fault of every request (or
// look-up) may take effect once more (faultsim.Run.MayFire): a request it
// may not hit meets no fault.
func (e *Env) OnFaultLimit(f func(ref string) bool) { e.mayFire = f }

// may says the fault ref may take effect once more.
func (e *Env) may(ref string) bool { return ref == "" || e.mayFire == nil || e.mayFire(ref) }

func (e *Env) fired(ref string) {
	if ref != "" && e.onFault != nil {
		e.onFault(ref)
	}
}

// AddPanic scripts a panic in a harness call.
func (e *Env) AddPanic(r PanicRule) { e.panics = append(e.panics, r) }

// Trace returns a copy of the events so far.
func (e *Env) Trace() []Event { return e.trace.Events() }

// TraceLen is how many events the trace holds: a position in the run's one
// order of steps, finer than the virtual clock.
func (e *Env) TraceLen() int { return e.trace.Len() }

// Record appends an event at the current virtual time. Call it only while
// holding the gate (from a step). The provider's actors ("provider/0003")
// are one actor to a reader of the trace.
func (e *Env) Record(actor, kind, format string, args ...any) {
	if strings.HasPrefix(actor, "provider/") {
		actor = "provider"
	}
	e.trace.Add(actor, kind, format, args...)
}

// RecordRule is Record for an event a rule of the page decided (see
// Rules): the trace shows the rule's id beside it.
func (e *Env) RecordRule(rule, actor, kind, format string, args ...any) {
	if strings.HasPrefix(actor, "provider/") {
		actor = "provider"
	}
	e.trace.AddRule(rule, actor, kind, format, args...)
}

// RecordStep is RecordRule for an event with its step in the run's
// sequence diagram (see Story).
func (e *Env) RecordStep(rule, actor, kind string, step faultsim.Step, format string, args ...any) {
	if strings.HasPrefix(actor, "provider/") {
		actor = "provider"
	}
	e.trace.AddStep(rule, actor, kind, step, format, args...)
}

// recordStoreCall records a worker's call of the store that got its answer
// in the same step: "call -> answer" in the trace, an arrow to the store
// and one back in the diagram.
func (e *Env) recordStoreCall(rule, actor, outcome, call string, callArgs []any, answer string, answerArgs ...any) {
	args := append(append(make([]any, 0, len(callArgs)+len(answerArgs)), callArgs...), answerArgs...)
	e.RecordStep(rule, actor, KindCall, faultsim.Step{Peer: LaneStore, Outcome: outcome, Message: call, Args: callArgs, Answer: answer, AnswerArgs: answerArgs},
		call+" -> "+answer, args...)
}

// NewWorker adds a worker (one invocation, one process) to the run, on a
// process of its own.
func (e *Env) NewWorker(id string, crash CrashPoint) *Worker {
	return e.Adopt(faultsim.NewWorker(id, e.gate, e.trace, crash))
}

// Adopt adds the engine's worker p to the run: the harness calls it makes
// reach this world.
func (e *Env) Adopt(p *faultsim.Worker) *Worker {
	w := &Worker{Worker: p, env: e}
	e.mu.Lock()
	e.workers = append(e.workers, w)
	e.mu.Unlock()
	return w
}

// Workers returns the run's workers in creation order.
func (e *Env) Workers() []*Worker { return append([]*Worker(nil), e.workers...) }

// Worker is one invocation's view of a run: the identity that owns claims,
// and the entry point of every harness call. It is the engine's worker (a
// process: when it crashes, every goroutine it started stops at its next
// step, replies to its requests still in flight are dropped, though the
// requests themselves may still land at the provider) with the fakes'
// calls on it.
type Worker struct {
	*faultsim.Worker
	env *Env
}

// WithWorker returns a context that carries w: how a natively compiled
// submission's calls of the harness reach the worker (an interpreted one
// gets the harness bound to its worker instead).
func WithWorker(ctx context.Context, w *Worker) context.Context {
	return workerctx.With(ctx, w)
}

// Env returns the run the worker belongs to.
func (w *Worker) Env() *Env { return w.env }

// Pass takes the gate for this worker. A dead worker, or any worker once
// the run is over, stops here: its goroutine exits as its process would.
func (w *Worker) Pass() { w.Step() }

// pass is Pass for a named step (see faultsim.Worker.StepAs).
func (w *Worker) pass(step string) { w.StepAs(step) }

// enter starts a store or provider call: it takes the gate, counts the
// call and applies a crash scheduled before it, then a scripted panic.
func (w *Worker) enter(name string) error {
	w.Enter(name)
	w.env.calls[name]++
	for _, r := range w.env.panics {
		if r.Call == name && r.Nth == w.env.calls[name] {
			w.env.fired(r.Ref)
			if r.Error {
				w.env.RecordStep("S3", w.ID, KindReply, faultsim.Step{Outcome: faultsim.OutcomeError}, "%s fails: %s (nothing read or written)", name, r.Message)
				return &StoreError{Call: name, Message: r.Message}
			}
			w.env.RecordStep("S3", w.ID, KindCrash, faultsim.Step{Outcome: faultsim.OutcomePanic}, "%s panics: %s", name, r.Message)
			panic(r.Message)
		}
	}
	return nil
}

// leave ends a call: a crash scheduled after it happens now, once the call
// took effect but before the submission sees the answer.
func (w *Worker) leave(string) { w.Leave() }

// Sleep is time.Sleep with a line in the trace. The grader gives it to the
// submission in place of time.Sleep.
func (w *Worker) Sleep(d time.Duration) {
	w.pass("Sleep")
	w.env.Record(w.ID, KindSleep, "sleeps %s", d.Round(time.Millisecond))
	time.Sleep(d)
}

// After is time.After with a line in the trace, so waits written as a
// select on time.After show on the timeline too.
func (w *Worker) After(d time.Duration) <-chan time.Time {
	w.pass("After")
	w.env.Record(w.ID, KindSleep, "waits up to %s (time.After)", d.Round(time.Millisecond))
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
