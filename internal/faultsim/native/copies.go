// Package native is the native route of a grade: natively compiled copies
// of a submission (NativeCopies), which the native referee's program and
// the kits' differential tests grade through, and that program's whole
// life (ServeNative). The referee's program links it, so it links no
// interpreter; the copies' sources are written by the interpreting child
// (internal/faultsim/interpreted's NativeSource), from the interpreter's
// own tables of stand-ins.
package native

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/faultline-dev/faultline/internal/faultsim"
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
	Kit    faultsim.Kit
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
	owners  []*atomic.Pointer[faultsim.Slot]
	held    []bool
	inUse   map[*faultsim.Worker]int
	slots   map[*faultsim.Worker]*faultsim.Slot
	sources faultsim.Sources
}

// TracksSeeds implements faultsim.SeedsTracked: a copy's draws go through
// the engine's stand-ins.
func (*NativeCopies) TracksSeeds() {}

// Load implements faultsim.Program.
func (p *NativeCopies) Load(w *faultsim.Worker, seed int64, out io.Writer) (any, error) {
	p.once.Do(func() { p.bound = p.bind() })
	if p.bound != nil {
		return nil, p.bound
	}
	if p.Shared {
		s := faultsim.NewSlot(w, seed, out, &p.sources)
		p.mu.Lock()
		p.slots[w] = s
		p.mu.Unlock()
		s.Enter()
		return p.Copies[0].Entry, nil
	}
	p.mu.Lock()
	pick := slices.Index(p.held, false)
	if pick < 0 {
		p.mu.Unlock()
		return nil, fmt.Errorf("faultsim: all %d native copies are in use: build more", len(p.Copies))
	}
	p.held[pick] = true
	s := faultsim.NewSlot(w, seed, out, &p.sources)
	p.inUse[w], p.slots[w] = pick, s
	p.mu.Unlock()
	p.owners[pick].Store(s)
	s.Enter()
	if c := p.Copies[pick]; c.Reset != nil {
		if err := faultsim.ResetState(c.Reset); err != nil {
			p.Finished(w, false)
			return nil, err
		}
	}
	return p.Copies[pick].Entry, nil
}

// Finished is how the engine says a worker's run is over: its copy is
// free for another. A copy is reused even when its call did not unwind (the interpreted
// route drops such an interpreter): it cannot be rebuilt, and the next
// load's reset gives it fresh package state all the same.
func (p *NativeCopies) Finished(w *faultsim.Worker, clean bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.slots[w]; ok && p.Shared {
		s.Release()
		delete(p.slots, w)
		return
	}
	i, ok := p.inUse[w]
	if !ok {
		return
	}
	p.slots[w].Release()
	delete(p.inUse, w)
	delete(p.slots, w)
	p.held[i] = false
}

// bind points every copy's stand-in variables at replacements that serve
// the copy's current worker.
func (p *NativeCopies) bind() error {
	p.owners = make([]*atomic.Pointer[faultsim.Slot], len(p.Copies))
	p.held = make([]bool, len(p.Copies))
	p.inUse, p.slots = map[*faultsim.Worker]int{}, map[*faultsim.Worker]*faultsim.Slot{}
	if p.Shared && (len(p.Copies) != 1 || p.Copies[0].Reset != nil) {
		return fmt.Errorf("faultsim: shared native copies need exactly one copy without package state (have %d)", len(p.Copies))
	}
	for i, c := range p.Copies {
		p.owners[i] = &atomic.Pointer[faultsim.Slot]{}
		res := faultsim.Resolver{Owner: p.owners[i]}
		if p.Shared {
			res = faultsim.Resolver{} // the calling goroutine's label finds its worker
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

// nativeTable is every symbol a native copy's stand-in may name, by
// import path: the kit's harness symbols (its own replacements of standard
// functions among them), the engine's stand-ins over those, and fmt's
// Print functions writing to r's worker. It is a superset of what
// NativeSource rewrites (replacements, which needs the interpreter's
// standard tables to leave out what equals the standard symbol), with the
// same values, so a copy binds the very functions the interpreter calls.
func nativeTable(k faultsim.Kit, r faultsim.Resolver) map[string]map[string]reflect.Value {
	out := map[string]map[string]reflect.Value{}
	for key, syms := range k.Harness().Symbols {
		path, _, _ := cutLast(key, "/")
		m := map[string]reflect.Value{}
		for name, v := range syms {
			m[name] = v
		}
		out[path] = m
	}
	for path, syms := range faultsim.StandIns(r) {
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

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
