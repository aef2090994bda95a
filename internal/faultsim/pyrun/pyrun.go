// Package pyrun is the Python runtime of the engine: a submission written
// as `async def` against a kit's Python module runs in python3 lane
// processes, forked from a zygote that loaded the code once per grade;
// a lane serves the workers of one run at a time, each as a process of
// its own would be (the module executed afresh, its own seeded random
// source, its own output, its own event loop), and a worker whose process
// dies is dropped there, none of its tasks running again. Every harness
// call the Python code awaits is carried over a socket, as a line (JSON,
// or for the usual shapes a shorter form: wire.go), to the Go engine and answered there by the kit's Go harness, so the
// world, the scheduler, the virtual clock, the crash points, the
// invariants and the report are the engine's own. Python's concurrency
// inside one call (asyncio.gather, create_task, wait_for, sleep) runs on
// an event loop of ours (runtime.py, embedded) whose clock is the
// engine's virtual clock and which hands control back to the engine
// whenever all its tasks wait, so the engine's seeded scheduler orders
// every answer and the same seed gives the same report.
//
// A worker's call that does not wait (a log line) holds its run's
// lane while it passes the engine's gate, so another worker of the run
// cannot take a step of its Python code meanwhile: schedules that differ
// only in where such a line falls are not all explored.
//
// Python grading runs only where the grading child is confined by the
// kernel (see internal/pyenv): a Python submission can import anything of its
// standard library, so no allowlist is a boundary.
package pyrun

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/pyenv"
)

//go:embed runtime.py
var runtimeSource string

// Binding is what a kit gives Python submissions: its module, the entry
// coroutine, and the Go side of each harness call. It lives beside the
// kit, in a package of its own, so that the kit (which the native referee
// builds) does not link this runtime.
type Binding struct {
	// Module is the name the submission imports and Source its Python
	// text. The runtime gives the module three functions before
	// running it: _call(fn, **args), a future of harness call fn's
	// result; _call_now(fn, **args), the result of a call that does not
	// wait; and _call_later(fn, **args), a call that does not wait and
	// whose answer the code does not need (a log line), sent with the
	// worker's next message (an exception it raises is the harness's
	// panic, not the code's). A module function _exception(type,
	// message, fields) makes the exception a raised answer stands for.
	Module string
	Source string
	// Entry is the coroutine function a submission defines, Params how
	// many arguments it takes, Want its signature as the user reads it.
	Entry  string
	Params int
	Want   string
	// Call answers harness call fn, with args as the module sent them (a
	// JSON object), for the worker whose call ctx is: a value to encode
	// as JSON, or the exception to raise. The call "sleep" (args
	// {"seconds": float}) is asyncio.sleep: it waits on the virtual
	// clock (and writes the trace, as the kit's Go sleep does).
	Call func(ctx context.Context, fn string, args json.RawMessage) (any, *Raised)
	// Adapt is the kit's entry value (the type its World invokes) that
	// calls the Python entry through run.
	Adapt func(run Runner) any
}

// Runner calls the Python entry with args, as one worker's process, and
// returns how the call ended. It may never return: a crash or the run's
// end stops the worker's goroutine, and its process with it.
type Runner func(ctx context.Context, args ...any) Result

// Result is how a call of the Python entry ended: the value it returned
// (JSON), or the exception that escaped it.
type Result struct {
	Value  json.RawMessage
	Raised *Raised
}

// Raised is a Python exception, in either direction: one the Go harness
// answers a call with (Type names the module's exception class), or one
// that escaped the submission's call.
type Raised struct {
	Type    string         `json:"type"`
	Message string         `json:"message"`
	Fields  map[string]any `json:"fields,omitempty"`
	// Line is where in the submission it was raised (0: not in it); Bug
	// says it is a programming error (AttributeError, NameError,
	// TypeError, ...), which the engine reports as a panic.
	Line int  `json:"line,omitempty"`
	Bug  bool `json:"bug,omitempty"`
}

// Text is the exception as the report shows it: "KeyError: 'x' (line 9)".
func (r *Raised) Text() string {
	s := r.Type
	if r.Message != "" {
		s += ": " + r.Message
	}
	if r.Line > 0 {
		s += fmt.Sprintf(" (line %d)", r.Line)
	}
	return s
}

// Runtime is faultsim's runtime for Python.
type Runtime struct {
	// Python is the interpreter to run; empty: python3 on PATH.
	Python string
	// Bindings are the kits' Python APIs, by kit name.
	Bindings map[string]Binding
	// OneCPU keeps the whole process, with the grade's Python processes,
	// on one CPU while a grade runs (onecpu_linux.go says why): for a
	// process that is the grade's own, a grading child. A process that
	// runs other work beside (a test binary, the server) leaves it off.
	OneCPU bool
	// CPU is the CPU OneCPU keeps the grade on, as the parent gave it
	// (Job.CPU, through OnCPU); nil: the one the process runs on.
	CPU *int
}

// OnCPU implements faultsim.CPUPlaced: rt, keeping its grade on cpu
// (when OneCPU has it keep the grade on one).
func (rt Runtime) OnCPU(cpu int) faultsim.Runtime {
	rt.CPU = &cpu
	return rt
}

// Lang implements faultsim.Runtime.
func (Runtime) Lang() string { return faultsim.LangPython }

// Check implements faultsim.Runtime: the kit must have a Python API and
// this machine must be able to run Python safely (Available); the code
// is loaded once, in the grade's zygote, and what goes wrong there
// (syntax, an exception at import, no entry coroutine) is diagnostics.
func (rt Runtime) Check(k faultsim.Kit, filename, source string) (faultsim.Program, []gradewire.Diagnostic) {
	b, ok := rt.Bindings[k.Name()]
	if !ok {
		return nil, []gradewire.Diagnostic{{Message: fmt.Sprintf("pyrun: the %s problems cannot be answered in Python yet", k.Name())}}
	}
	python, why := pyenv.Python(rt.Python)
	if why != "" {
		return nil, []gradewire.Diagnostic{{Message: "Python grading is unavailable here: " + why}}
	}
	unpin := func() {}
	if rt.OneCPU {
		unpin = oneCPU(rt.CPU)
	}
	z, diag, err := startZygote(python, initMessage{Module: b.Module, ModuleSource: b.Source, File: filename, Source: source,
		Entry: b.Entry, Params: max(1, b.Params), Want: b.Want})
	if err != nil {
		unpin()
		if _, _, why := pyenv.Launch(); why != "" {
			return nil, []gradewire.Diagnostic{{Message: "Python grading is unavailable here: " + why}}
		}
		return nil, []gradewire.Diagnostic{{Message: "the Python runtime did not start: " + err.Error()}}
	}
	if diag != nil {
		unpin()
		return nil, []gradewire.Diagnostic{*diag}
	}
	return &Program{bind: b, z: z, unpin: unpin, byRun: map[*faultsim.Trace]*runUse{}, byWorker: map[*faultsim.Worker]*runUse{}}, nil
}

// Program is a loaded Python submission: the zygote its lanes are forked
// from, and the lanes. A lane is a process that serves the workers of one
// run at a time, each with the submission's module executed afresh, its
// own random source and its own event loop (runtime.py): forking a
// process per worker cost 49 times a Go grade's CPU time, most of it in
// fork and exit (BenchmarkGradePythonVersusGo).
type Program struct {
	bind  Binding
	z     *zygote
	unpin func() // what Runtime.OneCPU pinned
	once  sync.Once
	mu    sync.Mutex
	// Forks counts the lane processes started, for benchmarks.
	Forks    int
	free     []*lane
	all      []*lane
	byRun    map[*faultsim.Trace]*runUse
	byWorker map[*faultsim.Worker]*runUse
	limit    limitStop
}

// lane is one lane process.
type lane struct {
	conn   *os.File
	r      *bufio.Reader
	pid    int
	broken atomic.Bool
	// wbuf is the message being sent, by the worker whose turn it is.
	wbuf []byte
}

// runUse is one run's hold on a lane: its workers take turns at it
// (turn, a channel of the run's bubble).
type runUse struct {
	lane  *lane
	turn  chan struct{}
	users int
}

// Load implements faultsim.Program: the run's lane (the first of its
// workers to load takes a free one or forks one) serves w's call.
func (p *Program) Load(w *faultsim.Worker, seed int64, out io.Writer) (any, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := p.byRun[w.Trace()]
	if u == nil {
		var l *lane
		if n := len(p.free); n > 0 {
			l, p.free = p.free[n-1], p.free[:n-1]
		} else {
			conn, pid, err := p.z.fork()
			if err != nil {
				return nil, err
			}
			l = &lane{conn: conn, r: bufio.NewReaderSize(conn, 64<<10), pid: pid}
			p.all = append(p.all, l)
			p.Forks++
		}
		u = &runUse{lane: l, turn: make(chan struct{}, 1)}
		p.byRun[w.Trace()] = u
	}
	u.users++
	p.byWorker[w] = u
	return p.bind.Adapt(func(ctx context.Context, args ...any) Result {
		return p.call(ctx, w, u, seed, out, args)
	}), nil
}

// Finished implements the engine's finisher: once every worker of a run
// has finished, its lane forgets them all and serves another run.
func (p *Program) Finished(w *faultsim.Worker, clean bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := p.byWorker[w]
	if u == nil {
		return
	}
	delete(p.byWorker, w)
	u.users--
	if u.users > 0 {
		return
	}
	delete(p.byRun, w.Trace())
	if u.lane.broken.Load() {
		u.lane.kill()
		return
	}
	if _, err := u.lane.conn.Write([]byte("{\"reset\":true}\n")); err != nil {
		u.lane.broken.Store(true)
		u.lane.kill()
		return
	}
	p.free = append(p.free, u.lane)
}

func (l *lane) kill() {
	_ = syscall.Kill(l.pid, syscall.SIGKILL)
	l.conn.Close()
}

// TracksSeeds implements faultsim.SeedsTracked: the worker's process
// tells the engine when it first draws from its seeded random source.
func (*Program) TracksSeeds() {}

// GradeProgram implements faultsim.SelfGrading: the grade, then the
// zygote's end.
func (p *Program) GradeProgram(ctx context.Context, k faultsim.Kit, scenarios []faultsim.Scenario, b faultsim.Bubble, opt faultsim.Options) (*faultsim.Report, error) {
	defer p.Close()
	ctx, opt = p.limit.watch(ctx, opt)
	rep, err := faultsim.Grade(ctx, k, scenarios, p, b, opt)
	if stopped := p.limit.report(k); stopped != nil {
		return stopped, nil
	}
	return rep, err
}

// Close ends the lanes and the zygote, which reaps them.
func (p *Program) Close() {
	p.mu.Lock()
	for _, l := range p.all {
		l.kill()
	}
	p.all, p.free = nil, nil
	p.mu.Unlock()
	p.once.Do(func() {
		p.z.close()
		p.unpin()
	})
}
