// Package interpreted is the interpreted route of a grade, the one the
// grading child takes: a submission checked and evaluated in yaegi
// interpreters (internal/gointerp), one per lane or per worker, bound to
// the engine's workers through their slots; the grading child's whole
// life (ServeChild); and the native copy of a submission that the
// referee builds (NativeSource), written from the same tables of
// stand-ins.
package interpreted

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// Interpreted is submitted source, checked once and evaluated in yaegi
// interpreters through internal/gointerp's allowlist: the kit's harness,
// the allowed standard packages, and stand-ins that keep the virtual clock
// honest (sync's locks) and runs reproducible (math/rand seeded per
// worker, see faultsim.Slot).
type Interpreted struct {
	src *gointerp.Source
	kit faultsim.Kit
	// reusable: the source keeps no package state a run could change, so
	// one interpreter can serve every worker of a run, and a later run,
	// exactly as new ones would. Otherwise each worker (a process) has an
	// interpreter of its own, whose package state the worker's load resets
	// (gointerp.ParseResettable) inside the run, as a new process would
	// initialise it.
	reusable bool
	mu       sync.Mutex
	free     []*compiled                     // reusable interpreters no run holds
	own      []*compiled                     // resettable interpreters no worker holds
	byRun    map[*faultsim.Trace]*runShare   // the interpreter each running run shares
	byWorker map[*faultsim.Worker]*workerUse // what each loaded worker holds
	sources  faultsim.Sources
	// Compiled counts interpreters built, for benchmarks.
	Compiled int
}

// compiled is an interpreter with the submission evaluated in it. One of
// a worker's own has an owner, the slot of the worker holding it, and the
// reset of its package state.
type compiled struct {
	entry any
	owner *atomic.Pointer[faultsim.Slot]
	reset func()
}

// runShare is one run's hold on a reusable interpreter: its workers load
// it once between them, and it goes back to the pool when the last one
// finished, if every one unwound cleanly.
type runShare struct {
	ready chan struct{} // closed once c or err is set; made in the run's bubble
	c     *compiled
	err   error
	users int
	clean bool
}

type workerUse struct {
	slot  *faultsim.Slot
	share *runShare // nil for an interpreter of the worker's own
	own   *compiled
}

// Interpret checks source for kit k: it parses, imports only what it may
// and declares the kit's entry point with its signature. What is wrong is
// diagnostics for the user.
func Interpret(k faultsim.Kit, filename, source string) (*Interpreted, []gradewire.Diagnostic) {
	if !testing.Testing() && !inChild.Load() {
		// Interpreted code can end its process: never in the server's.
		return nil, []gradewire.Diagnostic{{Message: "faultsim: submissions are interpreted only in the grading child"}}
	}
	h := k.Harness()
	gointerp.RegisterHostSymbols(h.Symbols) // for the rewrites that need types
	src, diags := gointerp.ParseResettable(filename, source, []string{h.Path})
	if diags != nil {
		return nil, diags
	}
	e := k.Entry()
	if d := src.CheckFunc(e.Name, e.Params, e.Results, e.Want); d != nil {
		return nil, []gradewire.Diagnostic{*d}
	}
	return &Interpreted{src: src, kit: k, reusable: !src.Resettable || src.FixedState,
		byRun: map[*faultsim.Trace]*runShare{}, byWorker: map[*faultsim.Worker]*workerUse{}}, nil
}

// TracksSeeds implements faultsim.SeedsTracked: a worker's draws go
// through the engine's stand-ins.
func (*Interpreted) TracksSeeds() {}

// inChild is set by MarkGradingChild.
var inChild atomic.Bool

// MarkGradingChild tells the package it runs in the grading child, the
// one process where submitted code may be interpreted.
func MarkGradingChild() { inChild.Store(true) }

// Load implements faultsim.Program. A reusable submission's workers of
// one run share an interpreter, the first of them to load taking one from
// the pool or compiling it, so a grade compiles about one per lane rather
// than one per worker and lane; their random sources and output stay
// their own (see faultsim.Slot).
func (p *Interpreted) Load(w *faultsim.Worker, seed int64, out io.Writer) (any, error) {
	growStack()
	s := faultsim.NewSlot(w, seed, out, &p.sources)
	s.Enter()
	if !p.reusable {
		c, err := p.loadOwn(w, s)
		if err != nil {
			s.Release()
			return nil, err
		}
		p.mu.Lock()
		p.byWorker[w] = &workerUse{slot: s, own: c}
		p.mu.Unlock()
		return c.entry, nil
	}
	p.mu.Lock()
	sh := p.byRun[w.Trace()]
	if sh == nil {
		sh = &runShare{ready: make(chan struct{}), clean: true}
		p.byRun[w.Trace()] = sh
		if n := len(p.free); n > 0 {
			sh.c = p.free[n-1]
			p.free = p.free[:n-1]
			close(sh.ready)
		} else {
			p.mu.Unlock()
			c, err := p.compile(nil)
			p.mu.Lock()
			sh.c, sh.err = c, err
			close(sh.ready)
		}
	}
	sh.users++
	p.byWorker[w] = &workerUse{slot: s, share: sh}
	p.mu.Unlock()
	<-sh.ready
	if sh.err != nil {
		p.Finished(w, false)
		return nil, sh.err
	}
	return sh.c.entry, nil
}

// loadOwn gives worker w, whose slot s labels the calling goroutine, an
// interpreter of its own: one a finished worker left, or a new one, with
// the package's state initialised afresh for w inside w's run.
func (p *Interpreted) loadOwn(w *faultsim.Worker, s *faultsim.Slot) (*compiled, error) {
	p.mu.Lock()
	var c *compiled
	if n := len(p.own); n > 0 {
		c = p.own[n-1]
		p.own = p.own[:n-1]
	}
	p.mu.Unlock()
	if c == nil {
		var err error
		if c, err = p.compileOwn(w.ID); err != nil {
			return nil, err
		}
	}
	c.owner.Store(s)
	s.Enter()
	if err := faultsim.ResetState(c.reset); err != nil {
		return nil, err
	}
	return c, nil
}

// compileOwn compiles an interpreter for one worker's own use. Compiling
// initialises the package once more than a process would; what that does
// (draw random numbers, print, reach the calling worker) must not reach
// the worker that will hold it, whose initialisation is the reset on its
// load: it happens as a scratch worker's, named id.
func (p *Interpreted) compileOwn(id string) (*compiled, error) {
	scratch := faultsim.NewSlot(faultsim.NewWorker(id, faultsim.OpenGate{}, faultsim.NewTrace(time.Now()), faultsim.CrashPoint{}), 0, nil, &p.sources)
	owner := &atomic.Pointer[faultsim.Slot]{}
	owner.Store(scratch)
	scratch.Enter()
	defer scratch.Release()
	return p.compile(owner)
}

// compileSpare compiles one more interpreter into the pool, in a bubble of
// its own as a load in a run would, for a lane that has none yet. What
// goes wrong in it goes wrong in the trial load too, which reports it.
// Call pool with its result once the trial load is over: put in the pool
// earlier, the trial would take it when the spare is done first (the
// trial's goroutine slow to start), and compile none of its own.
func (p *Interpreted) compileSpare(b faultsim.Bubble) (c *compiled) {
	defer func() { _ = recover() }() // a package initialisation that blocks: the trial's diagnostic
	b(func() {
		var err error
		if p.reusable {
			s := faultsim.NewSlot(faultsim.NewWorker("load", faultsim.OpenGate{}, faultsim.NewTrace(time.Now()), faultsim.CrashPoint{}), 0, nil, &p.sources)
			s.Enter()
			c, err = p.compile(nil)
			s.Release()
		} else {
			c, err = p.compileOwn("load")
		}
		if err != nil {
			c = nil
		}
	})
	return c
}

// pool adds a compiled interpreter (none if nil) to those the runs take.
func (p *Interpreted) pool(c *compiled) {
	if c == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reusable {
		p.free = append(p.free, c)
	} else {
		p.own = append(p.own, c)
	}
}

// compile builds an interpreter and evaluates the submission in it, on
// the calling goroutine. An interpreter with an owner serves that slot's
// worker alone, and gets the reset of its package state.
func (p *Interpreted) compile(owner *atomic.Pointer[faultsim.Slot]) (*compiled, error) {
	r := faultsim.Resolver{Owner: owner}
	i, err := gointerp.NewInterpreter(gointerp.InterpreterOptions{Stdout: r, Stderr: r, Packages: p.packages(r)})
	if err != nil {
		return nil, err
	}
	if diags := gointerp.Eval(i, p.src); diags != nil {
		return nil, &faultsim.LoadError{Diagnostics: diags}
	}
	name := p.kit.Entry().Name
	v, err := i.Eval(p.src.Package + "." + name)
	if err != nil {
		return nil, &faultsim.LoadError{Diagnostics: gointerp.ErrorDiagnostics(err)}
	}
	if v.Kind() != reflect.Func {
		return nil, &faultsim.LoadError{Diagnostics: []gradewire.Diagnostic{{Message: fmt.Sprintf("%s is not a function: want %s", name, p.kit.Entry().Want)}}}
	}
	c := &compiled{entry: v.Interface(), owner: owner}
	if owner != nil {
		rv, err := i.Eval(p.src.Package + "." + gointerp.ResetFunc)
		if err != nil {
			return nil, &faultsim.LoadError{Diagnostics: gointerp.ErrorDiagnostics(err)}
		}
		var ok bool
		if c.reset, ok = rv.Interface().(func()); !ok {
			return nil, fmt.Errorf("faultsim: %s has type %s", gointerp.ResetFunc, rv.Type())
		}
	}
	p.mu.Lock()
	p.Compiled++
	p.mu.Unlock()
	return c, nil
}

// CallEnded is how the engine says a worker's call is over: the
// interpreter of a worker's own goes back to the pool at once, for a
// later worker of the same run to reset and load, where the source starts no goroutine of its
// own (gointerp.Source.StartsGoroutines): then nothing of the call runs
// on once it has returned, panicked or died, and a worker that starts
// later in the run (a redelivery, a restart) needs no interpreter more.
// Otherwise, and for a shared interpreter, the run's end returns it
// (Finished).
func (p *Interpreted) CallEnded(w *faultsim.Worker) {
	if p.reusable || p.src.StartsGoroutines {
		return
	}
	p.Finished(w, true)
}

// Finished is how the engine says a worker's run is over: a shared
// interpreter goes back to the pool once every worker of its run has
// finished, if each one's call unwound normally; otherwise it is dropped.
func (p *Interpreted) Finished(w *faultsim.Worker, clean bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := p.byWorker[w]
	if u == nil {
		return
	}
	delete(p.byWorker, w)
	u.slot.Release()
	if u.own != nil {
		if clean {
			p.own = append(p.own, u.own)
		}
		return
	}
	sh := u.share
	sh.users--
	sh.clean = sh.clean && clean
	if sh.users > 0 {
		return
	}
	delete(p.byRun, w.Trace())
	if sh.clean && sh.err == nil {
		p.free = append(p.free, sh.c)
	}
}

func (p *Interpreted) packages(res faultsim.Resolver) interp.Exports {
	h := p.kit.Harness()
	out := interp.Exports{}
	for k, v := range h.Symbols {
		out[k] = v
	}
	// A kit may replace standard symbols too (a time.Sleep that writes
	// the trace, reading CallingWorker); the engine's stand-ins go on top.
	std := func(path string) map[string]reflect.Value {
		syms := gointerp.StdlibSymbols(path)
		for k, v := range h.Symbols[gointerp.SymbolKey(path)] {
			syms[k] = v
		}
		return syms
	}
	for path, syms := range faultsim.StandIns(res) {
		all := std(path)
		for name, v := range syms {
			all[name] = v
		}
		out[gointerp.SymbolKey(path)] = all
	}
	return out
}

// Runtime is Go interpreted by yaegi, the engine's default runtime: the
// route every grade took before there were others.
type Runtime struct{}

// Lang implements faultsim.Runtime.
func (Runtime) Lang() string { return faultsim.LangGo }

// Check implements faultsim.Runtime: Interpret.
func (Runtime) Check(k faultsim.Kit, filename, source string) (faultsim.Program, []gradewire.Diagnostic) {
	prog, diags := Interpret(k, filename, source)
	if diags != nil {
		return nil, diags
	}
	return prog, nil
}

// GradeProgram implements faultsim.SelfGrading: GradeInterpreted.
func (p *Interpreted) GradeProgram(ctx context.Context, k faultsim.Kit, scenarios []faultsim.Scenario, b faultsim.Bubble, opt faultsim.Options) (*faultsim.Report, error) {
	return GradeInterpreted(ctx, k, scenarios, p, b, opt)
}

// GradeSource interprets source and grades it: a submission that does
// not load is a report with status error and its diagnostics.
func GradeSource(ctx context.Context, k faultsim.Kit, scenarios []faultsim.Scenario, filename, source string, b faultsim.Bubble, opt faultsim.Options) (*faultsim.Report, error) {
	prog, diags := Interpret(k, filename, source)
	if diags != nil {
		return notLoaded(k, diags), nil
	}
	return GradeInterpreted(ctx, k, scenarios, prog, b, opt)
}

// GradeInterpreted grades a checked submission as GradeSource does, which
// is what a benchmark that counts prog's interpreters calls.
func GradeInterpreted(ctx context.Context, k faultsim.Kit, scenarios []faultsim.Scenario, prog *Interpreted, b faultsim.Bubble, opt faultsim.Options) (*faultsim.Report, error) {
	// Compiling and running interpreted code allocates heavily and
	// briefly: collecting less often saves a good part of a grade's CPU
	// time (see gradeGCPercent). The grade runs alone in its process (the
	// grading child), so the setting is ours, and GOMEMLIMIT still bounds
	// the heap.
	defer debug.SetGCPercent(debug.SetGCPercent(gradeGCPercent))
	cpu0 := faultsim.ProcessCPU()
	// While the trial load compiles the first interpreter, which it
	// leaves in the pool, another core compiles the second lane's:
	// otherwise that lane waits for the trial and then compiles in its
	// first run.
	limit, spare := laneCompileLimit, opt.WithDefaults().Lanes > 1 && strings.Count(prog.src.Text, "\n") < spareCompileLines
	var wg sync.WaitGroup
	var spareC *compiled
	if spare {
		limit *= 2 // the CPU time below is of both compiles
		wg.Go(func() { spareC = prog.compileSpare(b) })
	}
	diags := trialLoad(b, prog)
	wg.Wait()
	prog.pool(spareC)
	if diags != nil {
		return notLoaded(k, diags), nil
	}
	if faultsim.ProcessCPU()-cpu0 > limit {
		opt.Lanes = 1
	}
	rep, err := faultsim.Grade(ctx, k, scenarios, prog, b, opt)
	if err == nil {
		blameInterpreter(rep) // interp_failure.go
	}
	return rep, err
}

// spareCompileLines bounds the submissions whose second lane's interpreter
// is compiled beside the trial load. The reference padded to 5,000 lines
// compiles in 75 to 100 ms, so 1,000 lines take some 20 ms, half of
// laneCompileLimit: a submission that will keep to one lane, and so
// needs one interpreter, rarely pays for a second.
const spareCompileLines = 1000

// laneCompileLimit is the CPU time of the trial load's one compile past
// which a grade keeps to one lane: each lane compiles an interpreter of
// its own, and for a large submission that costs about what the lane
// saves. internal/grader's engine measured the rule with an interpreter
// per worker and lane: a reference compiled in 6 to 11 ms, the reference
// padded to 5,000 lines with a table in 75 to 100 ms, for which two lanes
// took its grade from 2.2x to 5.3x the reference's CPU time. The limit
// sits between; with one interpreter per lane the second lane costs less
// than it did, so this errs towards one lane.
const laneCompileLimit = 40 * time.Millisecond

func notLoaded(k faultsim.Kit, diags []gradewire.Diagnostic) *faultsim.Report {
	return faultsim.NotLoaded(k, diags)
}

// trialLoad evaluates the submission once, in a bubble, so that compile
// errors and panics of its initialisation are diagnostics before any
// scenario runs.
func trialLoad(b faultsim.Bubble, prog *Interpreted) (diags []gradewire.Diagnostic) {
	defer func() {
		if v := recover(); v != nil {
			diags = []gradewire.Diagnostic{{Message: "loading the code never finished: its package initialisation blocked forever"}}
		}
	}()
	b(func() {
		w := faultsim.NewWorker("load", faultsim.OpenGate{}, faultsim.NewTrace(time.Now()), faultsim.CrashPoint{})
		_, err := prog.Load(w, 0, nil)
		var le *faultsim.LoadError
		switch {
		case errors.As(err, &le):
			diags = le.Diagnostics
		case err != nil:
			diags = []gradewire.Diagnostic{{Message: err.Error()}}
		default:
			prog.Finished(w, true)
		}
	})
	return diags
}

// gradeGCPercent is GOGC during a grade. The create-client reference's
// grade (20 seeds), medians of 8 to 10 runs side by side on a loaded
// machine: 100 (Go's default) 286 ms of CPU, 400 201 ms (and 158 against
// 148 at 1600 in a later pair). A grade's live heap is 1 to 4 MB, so
// 1600 lets the heap reach some 70 MB before a collection; a submission
// that holds far more meets GOMEMLIMIT, which collects regardless.
const gradeGCPercent = 1600

// growStack grows the calling goroutine's stack, while it is still shallow,
// to what interpreted code ends up using. yaegi runs each interpreted call
// through several Go frames, so a call's goroutine otherwise doubles its
// stack five or six times from the runtime's 2 KiB, each time copying and
// adjusting every frame already on it: in a CPU profile of the
// create-client reference's grade, growing stacks took 9.7% of the time
// without this and 2.2% with it, and this frame 2%.
//
// The frame is never written: the function's prologue asks for its whole
// size, which grows the stack, but Go zeroes a variable where it is
// declared, here in a branch never taken (the 64 KiB cleared on every
// load were 2.1% of the CPU time of a grade of a kit's reference).
//
//go:noinline
func growStack() {
	if stackNeverUsed.Load() {
		var frame [64 << 10]byte
		keep(frame[:])
	}
}

// stackNeverUsed is never set: a condition the compiler cannot fold.
var stackNeverUsed atomic.Bool

//go:noinline
func keep(b []byte) { b[0] = 1 }
