package faultsim

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/textclip"
)

// How a call of the entry point ended.
const (
	EndReturned     = "returned"
	EndPanicked     = "panicked"
	EndCrashed      = "crashed"
	EndDidNotReturn = "did-not-return"
	EndNotLoaded    = "not-loaded"
)

// Run is one execution of a scenario: one seed, at most one crash point.
// Invariants read it once it is over.
type Run struct {
	Seed        int64
	CrashWorker string
	Crash       CrashPoint
	Plan        Plan
	Scenario    Scenario
	Trace       *Trace
	World       World
	Calls       []*Invocation
	// Stopped says which limit cut the run short (StopNone if none);
	// Deadlock is synctest's message when calls stayed blocked forever.
	Stopped  string
	Deadlock string
	EndedAt  time.Duration
	internal error
	sched    *Scheduler
}

// Gate is the run's scheduler, for the fakes.
func (r *Run) Gate() Gate { return r.sched }

// Label names the run in a report.
func (r *Run) Label() string {
	if r.Crash.Call == 0 {
		return fmt.Sprintf("seed %d", r.Seed)
	}
	return fmt.Sprintf("seed %d, %s crashes %s", r.Seed, r.CrashWorker, r.Crash)
}

// Invocation is what one call of the entry point did.
type Invocation struct {
	Call      Call
	Worker    *Worker
	Restarted bool
	Ended     string
	Result    string
	Panic     string
	LoadError string
	StartedAt time.Duration
	EndedAt   time.Duration
	output    *sandbox.OutputBuffer
	entry     any
	index     int // in Run.Calls: seeds the worker's random source
}

// execute runs one scenario once, in a new bubble.
func execute(b Bubble, k Kit, prog Program, r *Run) {
	defer func() {
		v := recover()
		for _, iv := range r.Calls {
			if iv.Worker != nil && iv.Worker.Died != "" && (iv.Ended == EndDidNotReturn || iv.Ended == "") {
				iv.Ended, iv.EndedAt = EndCrashed, iv.Worker.DiedAt
			}
		}
		if v != nil {
			if msg := fmt.Sprint(v); strings.Contains(msg, "deadlock") {
				if !allEnded(r) {
					r.Deadlock = msg
				}
			} else {
				r.internal = fmt.Errorf("faultsim: scenario %s (%s): %v", r.Plan.Name, r.Label(), v)
			}
		}
		if f, ok := prog.(finisher); ok {
			for _, iv := range r.Calls {
				if iv.entry != nil {
					// A call that did not unwind normally leaves its
					// interpreter in a state no later run may inherit. A
					// crash unwinds its goroutine (Goexit) as a panic does;
					// the bubble ending with nothing blocked (v == nil)
					// says no goroutine of the call stayed behind.
					ended := iv.Ended == EndReturned || iv.Ended == EndPanicked || iv.Ended == EndCrashed
					f.Finished(iv.Worker, ended && r.Stopped == StopNone && v == nil)
				}
			}
		}
	}()
	b(func() {
		r.sched = NewScheduler(r.Seed)
		r.Trace = NewTrace(time.Now())
		w, err := k.NewWorld(r.Scenario, r)
		if err != nil {
			r.internal = err
			return
		}
		r.World = w
		for _, c := range r.Plan.Calls {
			iv := &Invocation{Call: c, index: len(r.Calls)}
			r.Calls = append(r.Calls, iv)
			r.sched.Start(func() { r.supervise(k, prog, iv) })
		}
		r.Stopped = r.sched.Run(r.Plan.Budget)
		r.EndedAt = r.Trace.Since()
	})
}

func allEnded(r *Run) bool {
	for _, iv := range r.Calls {
		switch iv.Ended {
		case EndReturned, EndPanicked, EndCrashed, EndNotLoaded:
		default:
			return false
		}
	}
	return true
}

// supervise runs one call on its worker, and once more as the same worker
// if its process dies and the plan restarts it.
func (r *Run) supervise(k Kit, prog Program, iv *Invocation) {
	c := iv.Call
	if c.At > 0 {
		time.Sleep(c.At)
	}
	crash := CrashPoint{}
	if c.Worker == r.CrashWorker {
		crash = r.Crash
	}
	w := r.start(k, prog, iv, crash)
	if w.Died == "" || r.Plan.Restart <= 0 {
		return
	}
	time.Sleep(r.Plan.Restart)
	if !r.sched.Pass("engine") {
		return
	}
	r.Trace.Add("engine", KindState, "%s restarts and calls %s(%s) again", c.Worker, k.Entry().Name, c.Subject)
	again := &Invocation{Call: c, Restarted: true, index: len(r.Calls)}
	r.Calls = append(r.Calls, again)
	r.start(k, prog, again, CrashPoint{})
}

// start runs iv on a new worker and waits until the call ends or the
// worker's process dies.
func (r *Run) start(k Kit, prog Program, iv *Invocation, crash CrashPoint) *Worker {
	w := newWorker(iv.Call.Worker, r.sched, r.Trace, crash)
	iv.Worker, iv.Ended = w, EndDidNotReturn
	iv.output = &sandbox.OutputBuffer{Limit: sandbox.OutputLimit / 4}
	done := make(chan struct{})
	seed := r.Seed*1000 + int64(iv.index)
	release := r.sched.Start(func() {
		defer close(done)
		r.invoke(k, prog, iv, seed)
	})
	select {
	case <-done:
	case <-w.crashed:
		// Every goroutine of a dead process is gone: stop waiting for
		// the call, whose goroutine may be blocked where no step reaches.
		release()
	}
	return w
}

func (r *Run) invoke(k Kit, prog Program, iv *Invocation, seed int64) {
	w := iv.Worker
	entry, err := prog.Load(w, seed, iv.output)
	if err != nil {
		iv.Ended, iv.LoadError = EndNotLoaded, err.Error()
		return
	}
	iv.entry = entry
	w.Step()
	iv.StartedAt = r.Trace.Since()
	name := k.Entry().Name
	r.Trace.Add(w.ID, KindCall, "calls %s(%s)", name, iv.Call.Subject)
	result, panicMsg, panicked := call(r.World, w, entry, iv.Call)
	w.Step()
	iv.EndedAt = r.Trace.Since()
	if panicked {
		iv.Ended, iv.Panic = EndPanicked, panicMsg
		r.Trace.Add(w.ID, KindReply, "%s(%s) panics: %s", name, iv.Call.Subject, panicMsg)
		return
	}
	iv.Ended, iv.Result = EndReturned, result
	r.Trace.Add(w.ID, KindReply, "%s(%s) returns %s", name, iv.Call.Subject, result)
}

func call(wd World, w *Worker, entry any, c Call) (result, panicMsg string, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			panicked, panicMsg = true, textclip.Bytes(fmt.Sprint(v), 300, "...")
		}
	}()
	return wd.Invoke(context.Background(), w, entry, c), "", false
}
