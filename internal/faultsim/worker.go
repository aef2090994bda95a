package faultsim

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// CrashPoint kills a worker's process before or after its Nth harness call
// (counted from 1). The zero value never crashes.
type CrashPoint struct {
	Call   int
	Before bool
}

func (c CrashPoint) String() string {
	if c.Call == 0 {
		return "no crash"
	}
	where := "after"
	if c.Before {
		where = "before"
	}
	return fmt.Sprintf("%s its call %d", where, c.Call)
}

// Worker is one process of the system under test: it runs one call of the
// entry point, and every goroutine it starts belongs to it. The fakes enter
// every harness call through it, which is where the gate is passed, the
// calls are counted and a crash point strikes. Go cannot kill a goroutine:
// once the process is dead (or the run is over) each of its goroutines
// exits at its next step, so none of them reaches the world again.
type Worker struct {
	ID    string
	gate  Gate
	trace *Trace
	crash CrashPoint
	calls int
	names []string // the calls, in order, for crash labels
	dead  atomic.Bool
	// Crashed is closed when the process dies at its crash point.
	crashed chan struct{}
	// DiedAt is when the process died (since the run started), and
	// DiedSeq where in the trace (its length then); Died says where ("" if
	// it did not die): "before Get (call 3)".
	DiedAt  time.Duration
	DiedSeq int
	Died    string
	seed    int64
	// seedRead is set once anything the worker's run does depends on its
	// seed: a random draw, a reading of Seed (see twins).
	seedRead atomic.Bool
	world    World
}

// Seed is the seed of the worker's call (its random source's). What reads
// it depends on the run's seed, so reading it marks the run as one whose
// schedule alone does not decide it (see twins).
func (w *Worker) Seed() int64 {
	w.seedRead.Store(true)
	return w.seed
}

// NewWorker is a worker outside the engine's runs: for fakes tried on
// their own, with a gate and trace of the caller's.
func NewWorker(id string, gate Gate, tr *Trace, crash CrashPoint) *Worker {
	return newWorker(id, gate, tr, crash)
}

func newWorker(id string, gate Gate, tr *Trace, crash CrashPoint) *Worker {
	return &Worker{ID: id, gate: gate, trace: tr, crash: crash, crashed: make(chan struct{})}
}

// Step takes the gate for one step of the worker that is not a harness
// call of its own (a reply arriving, a sleep ending). A dead worker's
// goroutine, or any once the run is over, exits here.
func (w *Worker) Step() { w.StepAs("") }

// StepAs is Step for a named step. Two goroutines of one worker can wait
// at the gate at one virtual instant, in an order the Go runtime picks;
// the step's name (after a NUL, so workers sort among each other as by
// their ids) puts them in an order of their own: a goroutine's reply
// before its sibling's next call whatever the runtime did, natively and
// interpreted alike.
func (w *Worker) StepAs(step string) {
	actor := w.ID
	if step != "" {
		actor += "\x00" + step
	}
	if w.dead.Load() || !w.gate.Pass(actor) || w.dead.Load() {
		w.dead.Store(true)
		runtime.Goexit()
	}
}

// Enter begins harness call name: it takes the gate (a step named name),
// counts the call and applies a crash due before it.
func (w *Worker) Enter(name string) {
	w.StepAs(name)
	w.calls++
	w.names = append(w.names, name)
	if w.crash.Call == w.calls && w.crash.Before {
		w.die("before " + name)
	}
}

// Leave ends the harness call Enter began, once its effect is done: a
// crash due after it strikes here, before the caller sees the result.
func (w *Worker) Leave() {
	if w.crash.Call == w.calls && !w.crash.Before && !w.dead.Load() {
		w.die("after " + w.names[w.calls-1])
	}
}

func (w *Worker) die(where string) {
	// Died and DiedAt first: another goroutine of the worker that sees
	// dead (an atomic) then sees them too.
	w.Died = fmt.Sprintf("%s (call %d)", where, w.calls)
	w.DiedAt, w.DiedSeq = w.trace.Since(), w.trace.Len()
	w.dead.Store(true)
	w.trace.AddStep("", w.ID, KindCrash, Step{Outcome: OutcomeCrash, Message: "%s dies %s", Args: []any{w.ID, where}},
		"the process of %s dies %s: nothing it does from here on takes effect, in any of its goroutines", w.ID, where)
	close(w.crashed)
	runtime.Goexit()
}

// Calls is how many harness calls the worker has entered.
func (w *Worker) Calls() int { return w.calls }

// Dead reports whether the process died or the run ended for it.
func (w *Worker) Dead() bool { return w.dead.Load() }

// Gate is the run's scheduler, for a fake that starts actors of its own.
func (w *Worker) Gate() Gate { return w.gate }

// Trace is the run's trace.
func (w *Worker) Trace() *Trace { return w.trace }

// World is the world of the worker's run (nil outside a run): how a
// harness bound to no world finds the one its calling worker lives in.
func (w *Worker) World() World { return w.world }

// Crashed is closed when the process dies at its crash point.
func (w *Worker) Crashed() <-chan struct{} { return w.crashed }

// OpenGate lets every step through at once: for a worker outside a run (a
// submission loaded before any scenario runs).
type OpenGate struct{}

// Pass implements Gate.
func (OpenGate) Pass(string) bool { return true }

// Go implements Gate.
func (OpenGate) Go(_ string, f func()) { go f() }
