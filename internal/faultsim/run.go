package faultsim

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

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
	// Deadlock is synctest's message when calls stayed blocked forever;
	// Leftover is its message when every call had ended and goroutines
	// stayed blocked all the same (a dead process's, or ones a call left
	// behind), which is no call that never ends, or when goroutines were
	// left blocked by a stop that Stopped names.
	Stopped  string
	Deadlock string
	Leftover string
	EndedAt  time.Duration
	// Entry is the entry point's name as the submission's language spells
	// it (EntryName): the trace and the kit's words name the call by it.
	Entry string
	// Twin is the run this one repeats, nil if it was made: its seed's
	// schedule came out the same, pick for pick, so it was not made again
	// (see twins).
	Twin *Run
	// Vary, when set, is the Variation this run is made under (Varied).
	Vary     *Variation
	fired    []Firing
	internal error
	sched    *Scheduler
	mu       sync.Mutex // Calls, which a triggered call joins from another actor's step
}

// Leaked says the run ended with goroutines of the submission blocked for
// ever although no limit stopped it and every call had returned: goroutines
// a live process leaks. Go cannot free them, nor what they hold, until the
// grading child exits, so each such run adds to the child's memory for the
// rest of the grade. A run that repeats a twin's leaked as its twin did.
func (r *Run) Leaked() bool {
	if r.Leftover == "" || r.Stopped != StopNone {
		return false
	}
	for _, iv := range r.Calls {
		if iv.Ended != EndReturned {
			return false
		}
	}
	return true
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
	// EndedAt is when the call ended (returned, panicked, its process
	// died, or the run stopped it); EndSeq is where in the trace (its
	// length then), which orders ends that share a virtual instant.
	EndedAt time.Duration
	EndSeq  int
	// ContextEndsAt is when the call's context ends (since the run
	// started) and ContextEnds how (ContextCancelled, ContextDeadline);
	// "" when it never does.
	ContextEndsAt time.Duration
	ContextEnds   string
	output        *OutputBuffer
	entry         any
	index         int // in Run.Calls, from 1: seeds the worker's random source
}

// Output is what the call printed.
func (iv *Invocation) Output() *OutputBuffer { return iv.output }

// execute runs one scenario once, in a new bubble.
func execute(b Bubble, k Kit, prog Program, r *Run) {
	defer func() {
		v := recover()
		for _, iv := range r.Calls {
			if iv.Worker != nil && iv.Worker.Died != "" && (iv.Ended == EndDidNotReturn || iv.Ended == "" || iv.Ended == EndCrashed) {
				iv.Ended, iv.EndedAt, iv.EndSeq = EndCrashed, iv.Worker.DiedAt, iv.Worker.DiedSeq
			}
		}
		if r.Stopped != StopNone {
			// What a call did after the stop, it did not do in the run.
			for _, iv := range r.Calls {
				if iv.Ended == EndDidNotReturn && iv.EndedAt > r.EndedAt {
					iv.EndedAt = r.EndedAt
				}
			}
		}
		if v != nil {
			if msg := fmt.Sprint(v); strings.Contains(msg, "deadlock") {
				// A goroutine left blocked by a stop (one waiting on an
				// actor the stop refused) is the stop's doing, which
				// Stopped says; a stop that no actor came back to means
				// they were all blocked where no time reaches.
				// A run cut short on purpose (StopCut) leaves its actors
				// where they stood, which is no fault of theirs.
				if allEnded(r) || r.Stopped == StopCut || (r.Stopped != StopNone && r.sched != nil && r.sched.Refused() > 0) {
					r.Leftover = msg
				} else {
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
					// A run cut short (StopCut) refuses every step after
					// the cut: its calls unwind at the gate (Goexit), as
					// a crashed worker's do.
					cut := r.Stopped == StopCut
					ended := iv.Ended == EndReturned || iv.Ended == EndPanicked || iv.Ended == EndCrashed || cut && iv.Ended == EndDidNotReturn
					f.Finished(iv.Worker, ended && (r.Stopped == StopNone || cut) && v == nil)
				}
			}
		}
	}()
	b(func() {
		r.sched = NewScheduler(r.Seed)
		r.Trace = NewTrace(time.Now())
		r.sched.trace = r.Trace
		if r.Vary != nil {
			r.sched.vary = newSchedVariation(r, r.Vary)
		}
		r.Entry = EntryName(k, prog)
		w, err := k.NewWorld(r.Scenario, r)
		if err != nil {
			r.internal = err
			return
		}
		r.World = w
		if len(r.Plan.Phases) > 0 {
			r.sched.Start(func() { r.coordinate(k, prog) })
		} else {
			for _, c := range r.Plan.Calls {
				iv := r.newInvocation(c, false)
				r.sched.Start(func() { r.supervise(k, prog, iv) })
			}
		}
		r.Stopped = r.sched.Run(r.Plan.Budget)
		r.EndedAt = r.Trace.Since()
		if r.Stopped != StopNone {
			r.sched.Drain()
		}
	})
}

func (r *Run) newInvocation(c Call, restarted bool) *Invocation {
	r.mu.Lock()
	defer r.mu.Unlock()
	iv := &Invocation{Call: c, Restarted: restarted, index: len(r.Calls) + 1}
	r.Calls = append(r.Calls, iv)
	return iv
}

// coordinate is the clock of a plan with phases: it begins each phase,
// starts its calls (a triggered one when its event happens) and waits for
// every call that started to end before the next phase.
func (r *Run) coordinate(k Kit, prog Program) {
	hook, _ := r.World.(PhaseHook)
	trig, _ := r.World.(Triggers)
	for pi, ph := range r.Plan.Phases {
		if ph.After > 0 && !r.sched.Sleep(ph.After) {
			return
		}
		if !r.sched.Pass("clock") {
			return
		}
		if hook != nil {
			hook.PhaseStarts(pi, ph)
		}
		// A triggered call starts inside another actor's step; mu orders
		// its start with the reading of ends below.
		var mu sync.Mutex
		var ends []chan struct{}
		over := false
		start := func(c Call) {
			iv := r.newInvocation(c, false)
			end := make(chan struct{})
			ends = append(ends, end)
			r.sched.Start(func() {
				defer close(end)
				r.supervise(k, prog, iv)
			})
		}
		for _, c := range r.Plan.Calls {
			if c.Phase != pi {
				continue
			}
			if c.When == "" {
				mu.Lock()
				start(c)
				mu.Unlock()
				continue
			}
			if trig == nil {
				r.internal = fmt.Errorf("faultsim: scenario %s: %s's call waits for %q, and the world has no events", r.Plan.Name, c.Worker, c.When)
				return
			}
			trig.When(c, func() bool {
				mu.Lock()
				defer mu.Unlock()
				if over {
					return false
				}
				start(c)
				return true
			})
		}
		// Every call that has started keeps the phase open; one that
		// starts meanwhile joins the list, so the loop waits for it too.
		for i := 0; ; i++ {
			mu.Lock()
			if i == len(ends) {
				over = true
				mu.Unlock()
				break
			}
			end := ends[i]
			mu.Unlock()
			<-end
		}
	}
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
	r.Trace.AddStep("", "engine", KindState, Step{Outcome: OutcomePhase}, "%s restarts and calls %s(%s) again", c.Worker, r.Entry, c.Subject)
	r.start(k, prog, r.newInvocation(c, true), CrashPoint{})
}

// start runs iv on a new worker and waits until the call ends or the
// worker's process dies.
func (r *Run) start(k Kit, prog Program, iv *Invocation, crash CrashPoint) *Worker {
	w := newWorker(iv.Call.Worker, r.sched, r.Trace, crash)
	seed := r.Seed*1000 + int64(iv.index)
	w.seed, w.world = seed, r.World
	iv.Worker, iv.Ended = w, EndDidNotReturn
	iv.output = &OutputBuffer{Limit: OutputLimit / 4}
	done := make(chan struct{})
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
	defer func() {
		// A Goexit (the run is over, or the process died, which execute
		// records) runs this with nothing to recover.
		if iv.Ended == EndDidNotReturn && w.Died == "" {
			iv.EndedAt = r.Trace.Since()
		}
		if e, ok := prog.(callEnder); ok && (iv.Ended == EndReturned || iv.Ended == EndPanicked || w.Died != "") {
			e.CallEnded(w)
		}
	}()
	w.Step()
	iv.StartedAt = r.Trace.Since()
	name := r.Entry
	ctx, stop := r.callerContext(name, iv)
	defer stop()
	result, panicMsg, panicked := call(ctx, r.World, w, entry, iv.Call)
	stop()
	iv.EndedAt, iv.EndSeq = r.Trace.Since(), r.Trace.Len()
	w.Step()
	if panicked {
		iv.Ended, iv.Panic = EndPanicked, panicMsg
		r.Trace.AddStep("", w.ID, KindReply, Step{Outcome: OutcomePanic}, "%s(%s) panics: %s", name, iv.Call.Subject, panicMsg)
		return
	}
	iv.Ended, iv.Result = EndReturned, result
	r.Trace.AddStep("", w.ID, KindReply, Step{Outcome: OutcomeReturned}, "%s(%s) returns %s", name, iv.Call.Subject, result)
}

// callerContext is the context the call's caller passes: one that ends
// when the plan says the caller stops waiting (a cancel or a deadline),
// marked in the trace. It writes the call's first trace line, so call it
// holding the gate. stop says the call is over: a cancel due later is not
// made.
func (r *Run) callerContext(name string, iv *Invocation) (context.Context, func()) {
	w, c := iv.Worker, iv.Call
	ctx := context.Background()
	ends, how := c.contextEnds()
	if ends <= 0 {
		r.Trace.Add(w.ID, KindCall, "%s(%s) starts", name, c.Subject)
		return ctx, func() {}
	}
	iv.ContextEndsAt, iv.ContextEnds = iv.StartedAt+ends, how
	var cancel context.CancelFunc
	if how == ContextCancelled {
		ctx, cancel = context.WithCancel(ctx)
		r.Trace.Add(w.ID, KindCall, "%s(%s) starts; its caller will stop waiting and cancel the context at %s", name, c.Subject, formatOffset(iv.ContextEndsAt))
	} else {
		ctx, cancel = context.WithTimeout(ctx, ends)
		r.Trace.Add(w.ID, KindCall, "%s(%s) starts, with a context deadline at %s", name, c.Subject, formatOffset(iv.ContextEndsAt))
	}
	done := make(chan struct{})
	var once sync.Once
	actor := "caller/" + w.ID
	r.sched.Go(actor, func() {
		t := time.NewTimer(ends)
		select {
		case <-done:
			t.Stop()
			return
		case <-t.C:
		}
		if !r.sched.Pass(actor) {
			return
		}
		select {
		case <-done:
			return // the call returned at this very instant
		default:
		}
		if how != ContextCancelled {
			// The context ends by itself; cancelling it here could beat
			// its own timer and end it as cancelled instead.
			if !w.Dead() {
				r.Trace.Add(actor, KindState, "the context of %s's call passes its deadline", w.ID)
			}
			return
		}
		if !w.Dead() {
			r.Trace.Add(actor, KindState, "the caller of %s stops waiting: it cancels the context", w.ID)
		}
		cancel()
	})
	// Once the call is over its caller cancels the context, as a caller's
	// deferred cancel does.
	return ctx, func() {
		once.Do(func() {
			close(done)
			cancel()
		})
	}
}

// formatOffset prints a time since the run started as reports do:
// "+1.5s", to the millisecond.
func formatOffset(d time.Duration) string { return "+" + d.Round(time.Millisecond).String() }

func call(ctx context.Context, wd World, w *Worker, entry any, c Call) (result, panicMsg string, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			panicked, panicMsg = true, panicWords(v)
		}
	}()
	return wd.Invoke(ctx, w, entry, c), "", false
}

// panicWords is a panic's value as the report says it: a nil pointer as
// the compiled program's runtime says it, whether yaegi met it (using a
// nil pointer to a host type, "on zero Value") or Go did.
func panicWords(v any) string {
	msg := fmt.Sprint(v)
	if strings.Contains(msg, "on zero Value") {
		msg = "runtime error: invalid memory address or nil pointer dereference"
	}
	if strings.Contains(msg, "nil pointer") {
		msg = "nil pointer dereference (" + msg + ")"
	}
	return textclip.Bytes(msg, 300, "...")
}
