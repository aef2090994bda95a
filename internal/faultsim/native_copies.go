//go:build !nointerp || referee

package faultsim

// The natively compiled copies of a submission (NativeCopies), which the
// differential tests and the native referee grade through: this file
// builds with the interpreter and without it (-tags nointerp,referee, the
// referee's native program, which links no interpreter).

import (
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// NativeCopy is one natively compiled copy of a submission, as the shim
// NativeSource writes returns it.
type NativeCopy struct {
	// Entry is the copy's entry function, of the kit's entry type.
	Entry any
	// Reset re-runs the copy's package initialisation (gointerp's
	// ResetFunc); nil when the file has no package state.
	Reset func()
	// StandIns points at the copy's variables standing for the standard
	// functions the interpreted route replaces, by "import/path.Name":
	// NativeCopies sets each to the replacement, bound to the copy.
	StandIns map[string]any
}

// NativeCopies is a Program of natively compiled copies of one submission:
// each worker that loads holds a copy no other loaded worker holds, whose
// package state the load resets inside the worker's run, as the
// interpreted route resets a worker's own interpreter. Build as many
// copies as a grade has workers loaded at once (lanes times the calls of
// the busiest run, restarts included); a load finding none free fails.
type NativeCopies struct {
	Kit    Kit
	Copies []NativeCopy
	// Shared serves every worker from the one copy of a file without
	// package state (Copies holds one, with no Reset): each worker's
	// stand-ins find it by its goroutine's label, as the workers sharing
	// one interpreter do. The go tool then builds one copy, not one per
	// worker loaded at once.
	Shared bool

	mu      sync.Mutex
	bound   error // set once the stand-ins are bound
	once    sync.Once
	owners  []*atomic.Pointer[slot]
	held    []bool
	inUse   map[*Worker]int
	slots   map[*Worker]*slot
	sources sources
}

// tracksSeeds implements seedsTracked: a copy's draws go through the
// interpreted route's stand-ins.
func (*NativeCopies) tracksSeeds() {}

// Load implements Program.
func (p *NativeCopies) Load(w *Worker, seed int64, out io.Writer) (any, error) {
	p.once.Do(func() { p.bound = p.bind() })
	if p.bound != nil {
		return nil, p.bound
	}
	if p.Shared {
		s := newSlot(w, seed, out, &p.sources)
		p.mu.Lock()
		p.slots[w] = s
		p.mu.Unlock()
		s.enter()
		return p.Copies[0].Entry, nil
	}
	p.mu.Lock()
	pick := slices.Index(p.held, false)
	if pick < 0 {
		p.mu.Unlock()
		return nil, fmt.Errorf("faultsim: all %d native copies are in use: build more", len(p.Copies))
	}
	p.held[pick] = true
	s := newSlot(w, seed, out, &p.sources)
	p.inUse[w], p.slots[w] = pick, s
	p.mu.Unlock()
	p.owners[pick].Store(s)
	s.enter()
	if c := p.Copies[pick]; c.Reset != nil {
		if err := resetState(c.Reset); err != nil {
			p.Finished(w, false)
			return nil, err
		}
	}
	return p.Copies[pick].Entry, nil
}

// Finished implements finisher: the worker's copy is free for another.
// A copy is reused even when its call did not unwind (the interpreted
// route drops such an interpreter): it cannot be rebuilt, and the next
// load's reset gives it fresh package state all the same.
func (p *NativeCopies) Finished(w *Worker, clean bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.slots[w]; ok && p.Shared {
		s.release()
		delete(p.slots, w)
		return
	}
	i, ok := p.inUse[w]
	if !ok {
		return
	}
	p.slots[w].release()
	delete(p.inUse, w)
	delete(p.slots, w)
	p.held[i] = false
}

// bind points every copy's stand-in variables at replacements that serve
// the copy's current worker.
func (p *NativeCopies) bind() error {
	p.owners = make([]*atomic.Pointer[slot], len(p.Copies))
	p.held = make([]bool, len(p.Copies))
	p.inUse, p.slots = map[*Worker]int{}, map[*Worker]*slot{}
	if p.Shared && (len(p.Copies) != 1 || p.Copies[0].Reset != nil) {
		return fmt.Errorf("faultsim: shared native copies need exactly one copy without package state (have %d)", len(p.Copies))
	}
	for i, c := range p.Copies {
		p.owners[i] = &atomic.Pointer[slot]{}
		res := resolver{p.owners[i]}
		if p.Shared {
			res = resolver{} // the calling goroutine's label finds its worker
		}
		table := nativeTable(p.Kit, res)
		for name, ptr := range c.StandIns {
			path, fn, _ := cutLast(name, ".")
			v, ok := table[path][fn]
			if !ok {
				return fmt.Errorf("faultsim: native copy %d stands in for %s, which the interpreted route does not replace", i, name)
			}
			dst := reflect.ValueOf(ptr)
			if dst.Kind() != reflect.Pointer || dst.Elem().Type() != v.Type() {
				return fmt.Errorf("faultsim: native copy %d: the stand-in for %s is %T, want *%s", i, name, ptr, v.Type())
			}
			dst.Elem().Set(v)
		}
	}
	return nil
}

// engineStandIns are the standard symbols the engine replaces for
// submitted code, by import path: locks the scheduler sees, math/rand
// drawn from the calling worker's seeded source, and the functions that
// start goroutines of their own carrying the caller's worker across. The
// interpreted route lays them over the standard symbols
// (Interpreted.packages); a native copy calls them through its stand-ins.
func engineStandIns(res resolver) map[string]map[string]reflect.Value {
	syncSyms := map[string]reflect.Value{
		"Mutex":    reflect.ValueOf((*Mutex)(nil)),
		"RWMutex":  reflect.ValueOf((*RWMutex)(nil)),
		"Once":     reflect.ValueOf((*Once)(nil)),
		"OnceFunc": reflect.ValueOf(OnceFunc),
	}
	r := map[string]reflect.Value{}
	r["NewSource"] = reflect.ValueOf(newSource)
	r["Int"] = reflect.ValueOf(func() int { return draw(res, (*rand.Rand).Int) })
	r["Intn"] = reflect.ValueOf(func(n int) int { return draw(res, func(r *rand.Rand) int { return r.Intn(n) }) })
	r["Int31"] = reflect.ValueOf(func() int32 { return draw(res, (*rand.Rand).Int31) })
	r["Int31n"] = reflect.ValueOf(func(n int32) int32 { return draw(res, func(r *rand.Rand) int32 { return r.Int31n(n) }) })
	r["Int63"] = reflect.ValueOf(func() int64 { return draw(res, (*rand.Rand).Int63) })
	r["Int63n"] = reflect.ValueOf(func(n int64) int64 { return draw(res, func(r *rand.Rand) int64 { return r.Int63n(n) }) })
	r["Uint32"] = reflect.ValueOf(func() uint32 { return draw(res, (*rand.Rand).Uint32) })
	r["Uint64"] = reflect.ValueOf(func() uint64 { return draw(res, (*rand.Rand).Uint64) })
	r["Float64"] = reflect.ValueOf(func() float64 { return draw(res, (*rand.Rand).Float64) })
	r["Float32"] = reflect.ValueOf(func() float32 { return draw(res, (*rand.Rand).Float32) })
	r["ExpFloat64"] = reflect.ValueOf(func() float64 { return draw(res, (*rand.Rand).ExpFloat64) })
	r["NormFloat64"] = reflect.ValueOf(func() float64 { return draw(res, (*rand.Rand).NormFloat64) })
	r["Perm"] = reflect.ValueOf(func(n int) []int { return draw(res, func(r *rand.Rand) []int { return r.Perm(n) }) })
	r["Read"] = reflect.ValueOf(func(b []byte) (int, error) {
		return draw(res, func(r *rand.Rand) int { n, _ := r.Read(b); return n }), nil
	})
	r["Seed"] = reflect.ValueOf(func(seed int64) {
		s := res.must()
		draw(res, func(r *rand.Rand) int { r.Seed(seed ^ s.seed); return 0 })
	})
	// Shuffle's swap is interpreted code, which may draw numbers itself:
	// it runs outside the slot's lock.
	r["Shuffle"] = reflect.ValueOf(func(n int, swap func(i, j int)) {
		if n < 0 {
			panic("invalid argument to Shuffle")
		}
		for i := n - 1; i > 0; i-- {
			swap(i, draw(res, func(r *rand.Rand) int { return r.Intn(i + 1) }))
		}
	})
	return map[string]map[string]reflect.Value{
		"sync":      syncSyms,
		"math/rand": r,
		"time":      {"AfterFunc": reflect.ValueOf(res.afterFunc)},
		"context":   {"AfterFunc": reflect.ValueOf(res.contextAfterFunc)},
	}
}

// nativeTable is every symbol a native copy's stand-in may name, by
// import path: the kit's harness symbols (its own replacements of standard
// functions among them), the engine's stand-ins over those, and fmt's
// Print functions writing to r's worker. It is a superset of what
// NativeSource rewrites (replacements, which needs the interpreter's
// standard tables to leave out what equals the standard symbol), with the
// same values, so a copy binds the very functions the interpreter calls.
func nativeTable(k Kit, r resolver) map[string]map[string]reflect.Value {
	out := map[string]map[string]reflect.Value{}
	for key, syms := range k.Harness().Symbols {
		path, _, _ := cutLast(key, "/")
		m := map[string]reflect.Value{}
		for name, v := range syms {
			m[name] = v
		}
		out[path] = m
	}
	for path, syms := range engineStandIns(r) {
		if out[path] == nil {
			out[path] = map[string]reflect.Value{}
		}
		for name, v := range syms {
			out[path][name] = v
		}
	}
	if out["fmt"] == nil {
		out["fmt"] = map[string]reflect.Value{}
	}
	out["fmt"]["Print"] = reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprint(r, a...) })
	out["fmt"]["Printf"] = reflect.ValueOf(func(format string, a ...any) (int, error) { return fmt.Fprintf(r, format, a...) })
	out["fmt"]["Println"] = reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprintln(r, a...) })
	return out
}

// resetState runs the package's initialisation for the worker whose load
// called it. A panic in it is the submission's, a load failure, as a panic
// of a package initialiser is on a fresh load.
func resetState(reset func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &LoadError{[]sandbox.Diagnostic{{Message: "loading the code panicked in package initialisation: " + fmt.Sprint(v)}}}
		}
	}()
	reset()
	return nil
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
