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
	// DiedAt is when the process died (since the run started), "" where
	// empty; Died says where.
	DiedAt time.Duration
	Died   string
}

func newWorker(id string, gate Gate, tr *Trace, crash CrashPoint) *Worker {
	return &Worker{ID: id, gate: gate, trace: tr, crash: crash, crashed: make(chan struct{})}
}

// Step takes the gate for one step of the worker that is not a harness
// call of its own (a reply arriving, a sleep ending). A dead worker's
// goroutine, or any once the run is over, exits here.
func (w *Worker) Step() {
	if w.dead.Load() || !w.gate.Pass(w.ID) || w.dead.Load() {
		w.dead.Store(true)
		runtime.Goexit()
	}
}

// Enter begins harness call name: it takes the gate, counts the call and
// applies a crash due before it.
func (w *Worker) Enter(name string) {
	w.Step()
	w.calls++
	w.names = append(w.names, name)
	if w.crash.Call == w.calls && w.crash.Before {
		w.die(fmt.Sprintf("before its call %d (%s)", w.calls, name))
	}
}

// Leave ends the harness call Enter began, once its effect is done: a
// crash due after it strikes here, before the caller sees the result.
func (w *Worker) Leave() {
	if w.crash.Call == w.calls && !w.crash.Before && !w.dead.Load() {
		w.die(fmt.Sprintf("after its call %d (%s)", w.calls, w.names[w.calls-1]))
	}
}

func (w *Worker) die(where string) {
	w.Died, w.DiedAt = where, w.trace.Since()
	w.trace.Add(w.ID, KindCrash, "the process of %s dies %s", w.ID, where)
	w.dead.Store(true)
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
