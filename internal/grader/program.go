//go:build !nointerp

package grader

//go:generate go run github.com/traefik/yaegi/cmd/yaegi@v0.16.1 extract -name grader github.com/faultline-dev/faultline/internal/grader/refundkit

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/traefik/yaegi/interp"

	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// interpretedProgram is submitted source, checked once, evaluated in an
// interpreter of its own for every worker of a run.
type interpretedProgram struct {
	src       *gointerp.Source
	stateless bool
	// resettable: src declares gointerp.ResetFunc, and each load (fresh or
	// reused) calls it inside the run, so the package's variables start
	// from their initial values in every run, as in a new process.
	resettable bool
	mu         sync.Mutex
	// idle are interpreters free for any worker of any lane: with nothing
	// to remember (stateless) or their state reset on every load, which
	// worker used one last changes nothing, so lanes share them and a
	// grade compiles only as many as run at once.
	idle []*loaded
	// inUse are the interpreters of running workers, by lane and worker
	// id. A worker id that loads again while its first load is running
	// (twice in one run) gets an interpreter of its own, never pooled:
	// Finished cannot tell which of the two ended cleanly.
	inUse    map[string]*loaded
	compiled int
	// lanes, above zero, is the most lanes the grade may use: one when
	// compiling is dear enough that a lane's own interpreters cost more
	// than the lane saves, or the job's Lanes (see Grade).
	lanes int
}

// packagesFor builds a worker's packages: refundkit bound to the slot's
// worker, sync with channel-based locks, math/rand on the slot's seeded
// source, and time.Sleep with a line in the trace.
func packagesFor(s *workerSlot) interp.Exports {
	key := gointerp.SymbolKey(RefundkitPath)
	kit := make(map[string]reflect.Value, len(Symbols[key]))
	for k, v := range Symbols[key] {
		kit[k] = v
	}
	kit["GetRecord"] = reflect.ValueOf(func(ctx context.Context, id string) (*refundkit.Record, error) { return s.w.GetRecord(ctx, id) })
	kit["Claim"] = reflect.ValueOf(func(ctx context.Context, id string, lease time.Duration) (bool, error) {
		return s.w.Claim(ctx, id, lease)
	})
	kit["MarkProcessing"] = reflect.ValueOf(func(ctx context.Context, id string) error { return s.w.MarkProcessing(ctx, id) })
	kit["MarkDone"] = reflect.ValueOf(func(ctx context.Context, id string) error { return s.w.MarkDone(ctx, id) })
	kit["MarkFailed"] = reflect.ValueOf(func(ctx context.Context, id, reason string) error { return s.w.MarkFailed(ctx, id, reason) })
	kit["MarkNeedsCheck"] = reflect.ValueOf(func(ctx context.Context, id, reason string) error { return s.w.MarkNeedsCheck(ctx, id, reason) })
	kit["CreateRefund"] = reflect.ValueOf(func(ctx context.Context, p refundkit.RefundParams) (*refundkit.ProviderRefund, error) {
		return s.w.CreateRefund(ctx, p)
	})
	kit["ListRefunds"] = reflect.ValueOf(func(ctx context.Context, charge string) ([]refundkit.ProviderRefund, error) {
		return s.w.ListRefunds(ctx, charge)
	})
	kit["Logf"] = reflect.ValueOf(func(ctx context.Context, format string, args ...any) { s.w.Logf(ctx, format, args...) })

	syncSyms := gointerp.StdlibSymbols("sync")
	syncSyms["Mutex"] = reflect.ValueOf((*Mutex)(nil))
	syncSyms["RWMutex"] = reflect.ValueOf((*RWMutex)(nil))
	syncSyms["Once"] = reflect.ValueOf((*Once)(nil))
	syncSyms["OnceFunc"] = reflect.ValueOf(OnceFunc)

	timeSyms := gointerp.StdlibSymbols("time")
	timeSyms["Sleep"] = reflect.ValueOf(func(d time.Duration) { s.w.Sleep(d) })
	timeSyms["After"] = reflect.ValueOf(func(d time.Duration) <-chan time.Time { return s.w.After(d) })
	// Every run's bubble clock starts at the same instant, and the workers
	// of a run start together, so time.Now would read the same nanosecond
	// in every process: a random source seeded from it (the common
	// rand.NewSource(time.Now().UnixNano())) would then draw the same
	// numbers in every worker, which separate processes never do. Each
	// worker's clock reads up to a microsecond late, by an amount that
	// comes from its seed; Since and Until read the same clock, so
	// durations measured by the submission stay exact.
	timeSyms["Now"] = reflect.ValueOf(s.now)
	timeSyms["Since"] = reflect.ValueOf(func(t time.Time) time.Duration { return s.now().Sub(t) })
	timeSyms["Until"] = reflect.ValueOf(func(t time.Time) time.Duration { return t.Sub(s.now()) })

	randSyms := gointerp.StdlibSymbols("math/rand")
	randSyms["Int"] = reflect.ValueOf(func() int { return random(s, (*rand.Rand).Int) })
	randSyms["Intn"] = reflect.ValueOf(func(n int) int { return random(s, func(r *rand.Rand) int { return r.Intn(n) }) })
	randSyms["Int31"] = reflect.ValueOf(func() int32 { return random(s, (*rand.Rand).Int31) })
	randSyms["Int31n"] = reflect.ValueOf(func(n int32) int32 { return random(s, func(r *rand.Rand) int32 { return r.Int31n(n) }) })
	randSyms["Int63"] = reflect.ValueOf(func() int64 { return random(s, (*rand.Rand).Int63) })
	randSyms["Int63n"] = reflect.ValueOf(func(n int64) int64 { return random(s, func(r *rand.Rand) int64 { return r.Int63n(n) }) })
	randSyms["Uint32"] = reflect.ValueOf(func() uint32 { return random(s, (*rand.Rand).Uint32) })
	randSyms["Uint64"] = reflect.ValueOf(func() uint64 { return random(s, (*rand.Rand).Uint64) })
	randSyms["Float32"] = reflect.ValueOf(func() float32 { return random(s, (*rand.Rand).Float32) })
	randSyms["Float64"] = reflect.ValueOf(func() float64 { return random(s, (*rand.Rand).Float64) })
	randSyms["ExpFloat64"] = reflect.ValueOf(func() float64 { return random(s, (*rand.Rand).ExpFloat64) })
	randSyms["NormFloat64"] = reflect.ValueOf(func() float64 { return random(s, (*rand.Rand).NormFloat64) })
	randSyms["Perm"] = reflect.ValueOf(func(n int) []int { return random(s, func(r *rand.Rand) []int { return r.Perm(n) }) })
	// The swaps run outside the lock: swap is interpreted code, which may
	// itself ask for random numbers.
	randSyms["Shuffle"] = reflect.ValueOf(func(n int, swap func(i, j int)) {
		if n < 0 {
			panic("invalid argument to Shuffle")
		}
		for i := n - 1; i > 0; i-- {
			swap(i, random(s, func(r *rand.Rand) int { return r.Intn(i + 1) }))
		}
	})
	randSyms["Read"] = reflect.ValueOf(func(p []byte) (int, error) {
		return random(s, func(r *rand.Rand) int { n, _ := r.Read(p); return n }), nil
	})
	randSyms["Seed"] = reflect.ValueOf(func(seed int64) {
		random(s, func(r *rand.Rand) int { r.Seed(seed ^ s.seed); return 0 })
	})
	return interp.Exports{
		key:                             kit,
		gointerp.SymbolKey("sync"):      syncSyms,
		gointerp.SymbolKey("time"):      timeSyms,
		gointerp.SymbolKey("math/rand"): randSyms,
	}
}

// loaded is an interpreter with the submission evaluated in it.
type loaded struct {
	slot  *workerSlot
	entry Entry
	reset func() // nil unless the program is resettable
}

// resetState runs the package's initialisation for the run that just bound
// the slot. A panic in it is the submission's, reported as a load failure,
// as a panic of a package initialiser is on a fresh load.
func resetState(reset func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &loadError{[]sandbox.Diagnostic{{Message: "loading the code panicked in package initialisation: " + fmt.Sprint(v)}}}
		}
	}()
	reset()
	return nil
}

// Load implements Program: the submission evaluated in an interpreter of
// the worker's own, and its RefundMoney.
//
// Compiling the submission costs more than most runs, so an interpreter
// is reused, by any worker of a later run (on any lane):
// when the source has no package-level state (no package var, no init),
// with nothing to remember it behaves exactly as a fresh one would; when
// it has some, the package's initialisation runs again at the start of
// every run (see gointerp.ParseResettable), inside the run's bubble, so a
// mutex, a channel or a random source belongs to the run that uses it.
// Within a run every worker still has its own interpreter.
func (p *interpretedProgram) Load(w *world.Worker, seed int64, out io.Writer) (Entry, error) {
	return p.load(0, w, seed, out)
}

func (p *interpretedProgram) load(lane int, w *world.Worker, seed int64, out io.Writer) (Entry, error) {
	key := cacheKey(lane, w.ID)
	p.mu.Lock()
	_, busy := p.inUse[key]
	if n := len(p.idle); n > 0 && !busy {
		l := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.inUse[key] = l
		p.mu.Unlock()
		l.slot.bind(w, seed, out)
		if l.reset != nil {
			if err := resetState(l.reset); err != nil {
				p.mu.Lock()
				delete(p.inUse, key)
				p.mu.Unlock()
				return nil, err
			}
		}
		return l.entry, nil
	}
	p.mu.Unlock()

	slot := &workerSlot{out: &swappableWriter{}}
	if p.resettable {
		// Loading initialises the package once more than a process would;
		// what those initialisers do (draw random numbers, log, call the
		// harness) must not reach this run, which gets its own
		// initialisation from the reset below.
		scratch := world.NewEnv(openGate{}, world.DefaultNetwork)
		slot.bind(scratch.NewWorker(w.ID, world.CrashPoint{}), seed, nil)
	} else {
		slot.bind(w, seed, out)
	}
	i, err := gointerp.NewInterpreter(gointerp.InterpreterOptions{Stdout: slot.out, Stderr: slot.out, Packages: packagesFor(slot)})
	if err != nil {
		return nil, err
	}
	if diags := gointerp.Eval(i, p.src); diags != nil {
		return nil, &loadError{diags}
	}
	v, err := i.Eval(p.src.Package + "." + EntryName)
	if err != nil {
		return nil, &loadError{gointerp.ErrorDiagnostics(err)}
	}
	f, ok := v.Interface().(func(context.Context, string) (refundkit.Outcome, error))
	if !ok {
		return nil, &loadError{[]sandbox.Diagnostic{{Message: fmt.Sprintf("%s has type %s: want %s", EntryName, v.Type(), entryWant)}}}
	}
	var reset func()
	if p.resettable {
		rv, err := i.Eval(p.src.Package + "." + gointerp.ResetFunc)
		if err != nil {
			return nil, &loadError{gointerp.ErrorDiagnostics(err)}
		}
		if reset, ok = rv.Interface().(func()); !ok {
			return nil, fmt.Errorf("grader: %s has type %s", gointerp.ResetFunc, rv.Type())
		}
		slot.bind(w, seed, out)
		if err := resetState(reset); err != nil {
			return nil, err
		}
	}
	p.mu.Lock()
	p.compiled++
	if _, busy := p.inUse[key]; (p.stateless || p.resettable) && !busy {
		p.inUse[key] = &loaded{slot: slot, entry: f, reset: reset}
	}
	p.mu.Unlock()
	return Entry(f), nil
}

// Finished implements runObserver: an interpreter whose worker did not
// return normally (a crash mid-call, a panic, the end of the run) is
// dropped rather than trusted again.
func (p *interpretedProgram) Finished(workerID string, clean bool) {
	p.finished(0, workerID, clean)
}

func (p *interpretedProgram) finished(lane int, workerID string, clean bool) {
	key := cacheKey(lane, workerID)
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.inUse[key]
	if l == nil {
		return
	}
	delete(p.inUse, key)
	if clean {
		l.slot.out.set(nil)
		p.idle = append(p.idle, l)
	}
}

func cacheKey(lane int, workerID string) string { return strconv.Itoa(lane) + "/" + workerID }

// lane returns a view of p for runs on one lane (see runLanes): each lane
// keeps its own interpreters, so runs on different lanes never share one.
func (p *interpretedProgram) lane(i int) Program { return laneProgram{p, i} }

func (p *interpretedProgram) laneLimit() int { return p.lanes }

type laneProgram struct {
	p    *interpretedProgram
	lane int
}

func (l laneProgram) Load(w *world.Worker, seed int64, out io.Writer) (Entry, error) {
	return l.p.load(l.lane, w, seed, out)
}

func (l laneProgram) Finished(workerID string, clean bool) { l.p.finished(l.lane, workerID, clean) }

// hasPackageState reports whether a file declares package-level variables
// or init functions: state an interpreter would carry from run to run. The
// one kind of variable let through is the sentinel error: initialised with
// errors.New or fmt.Errorf of literals and never assigned or addressed.
func hasPackageState(f *ast.File) bool {
	sentinels := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, spec := range d.Specs {
				vs := spec.(*ast.ValueSpec)
				if len(vs.Values) != len(vs.Names) {
					return true
				}
				for k, name := range vs.Names {
					if !isSentinelError(vs.Values[k]) {
						return true
					}
					sentinels[name.Name] = true
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				return true
			}
		}
	}
	if len(sentinels) == 0 {
		return false
	}
	written := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && sentinels[id.Name] {
					written = true
				}
			}
		case *ast.UnaryExpr:
			if id, ok := n.X.(*ast.Ident); ok && n.Op == token.AND && sentinels[id.Name] {
				written = true
			}
		}
		return !written
	})
	return written
}

// isSentinelError reports whether e is errors.New or fmt.Errorf of literals.
func isSentinelError(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || !(pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf") {
		return false
	}
	for _, a := range call.Args {
		if _, ok := a.(*ast.BasicLit); !ok {
			return false
		}
	}
	return true
}

func newInterpretedProgram(src *gointerp.Source) *interpretedProgram {
	// A resettable source has its init functions renamed, so its own
	// declarations no longer tell whether it has state: the flag does.
	return &interpretedProgram{src: src, stateless: !src.Resettable && !hasPackageState(src.File), resettable: src.Resettable, inUse: map[string]*loaded{}}
}

// loadError is a submission that does not load: diagnostics for the user.
type loadError struct{ diags []sandbox.Diagnostic }

func (e *loadError) Error() string {
	var parts []string
	for _, d := range e.diags {
		parts = append(parts, d.String())
	}
	return "grader: the submission does not load: " + strings.Join(parts, "; ")
}
