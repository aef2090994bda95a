package faultsim

import (
	"context"
	"io"
	"math/rand"
	"reflect"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// One interpreter serves every worker of a run (see Interpreted.Load), yet
// each worker is a process of its own: its own random source, its own
// output. What interpreted code calls (math/rand, fmt.Print) therefore
// asks which worker's goroutine is calling. Go has no goroutine-local
// storage, but it has one thing every goroutine inherits from the one that
// starts it: its profiler labels. A worker's call labels its goroutine on
// load, so the goroutines the submission starts carry the label too, and
// the label's identity (the runtime's pointer to the label set) finds the
// worker's slot.

// profLabel returns the calling goroutine's label set as the runtime holds
// it: the pointer pprof.SetGoroutineLabels stored, nil if none. The
// runtime keeps this entry point for packages outside the standard
// library (go.dev/issue/67401); it reads one field of the goroutine.
//
//go:linkname profLabel runtime/pprof.runtime_getProfLabel
func profLabel() unsafe.Pointer

// slots maps a label set's pointer to the slot of the worker whose
// goroutines carry it.
var slots sync.Map

// Slot is one worker's share of what runs its code (an interpreter, a
// native copy): its random source, seeded per worker, and its output.
type Slot struct {
	labels  context.Context
	key     unsafe.Pointer
	worker  *Worker
	sources *Sources
	mu      sync.Mutex
	seed    int64
	r       *rand.Rand
	out     io.Writer
}

// NewSlot is worker w's slot: its draws are seeded with seed (from src's
// sources) and what it prints goes to out.
func NewSlot(w *Worker, seed int64, out io.Writer, src *Sources) *Slot {
	return &Slot{labels: pprof.WithLabels(context.Background(), pprof.Labels("faultsim-worker", w.ID)), worker: w, seed: seed, out: out, sources: src}
}

// Enter labels the calling goroutine, and every goroutine it starts from
// now on, as the slot's worker's.
func (s *Slot) Enter() {
	pprof.SetGoroutineLabels(s.labels)
	if s.key == nil {
		s.key = profLabel()
		slots.Store(s.key, s)
	}
}

// Release forgets the slot once its worker's run is over: no goroutine
// carrying its label runs again.
func (s *Slot) Release() {
	if s.key != nil {
		slots.Delete(s.key)
	}
}

// currentSlot is the slot of the worker whose goroutine calls, nil on a
// goroutine no worker started.
func currentSlot() *Slot {
	if v, ok := slots.Load(profLabel()); ok {
		return v.(*Slot)
	}
	return nil
}

// CallingWorker is the worker whose goroutine calls it, nil on a goroutine
// no worker started: for a kit's stand-ins of standard functions that
// interpreted code calls without a context (a time.Sleep that writes the
// trace), which one interpreter serves for every worker of a run.
func CallingWorker() *Worker {
	if s := currentSlot(); s != nil {
		return s.worker
	}
	return nil
}

// Resolver finds the calling worker's slot for one interpreter or native
// copy: Owner's, for one that serves one worker at a time (a submission
// with package state), else the slot the calling goroutine's label names.
type Resolver struct{ Owner *atomic.Pointer[Slot] }

func (r Resolver) current() *Slot {
	if r.Owner != nil {
		if s := r.Owner.Load(); s != nil {
			return s
		}
	}
	return currentSlot()
}

// must is current for what a worker must own (its random numbers):
// interpreted code running where no worker started it is the engine's
// fault, never to be answered from another worker's source.
func (r Resolver) must() *Slot {
	s := r.current()
	if s == nil {
		panic("faultsim: interpreted code ran on a goroutine no worker started")
	}
	return s
}

func (s *Slot) Write(p []byte) (int, error) {
	s.mu.Lock()
	w := s.out
	s.mu.Unlock()
	if w == nil {
		return len(p), nil
	}
	return w.Write(p)
}

// Write is an interpreter's stdout and stderr: each write goes to the
// calling worker's output; a write from no worker's goroutine is lost.
func (r Resolver) Write(p []byte) (int, error) {
	if s := r.current(); s != nil {
		return s.Write(p)
	}
	return len(p), nil
}

func draw[T any](r Resolver, f func(r *rand.Rand) T) T {
	s := r.must()
	s.worker.seedRead.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r == nil {
		s.r = rand.New(s.sources.seeded(s.seed))
	}
	return f(s.r)
}

// Sources holds a freshly seeded source for each seed a grade has drawn
// from so far. Seeding math/rand's source takes microseconds even as
// newSource does it, and a grade seeds the same few dozen seeds again and
// again: every crash run of a scenario repeats its first run's seed. A
// copy of the seeded state is the same source, for a copy of 5 KB. (For
// the sources a submission seeds itself, rand.NewSource, a copy saved
// nothing: in a grade of a kit's reference with a clock-seeded package
// source, 1.009 times the CPU time of seeding each afresh.)
type Sources struct{ m sync.Map } // int64 -> rand.Source, never drawn from

func (c *Sources) seeded(seed int64) rand.Source {
	v, ok := c.m.Load(seed)
	if !ok {
		v, _ = c.m.LoadOrStore(seed, newSource(seed))
	}
	// The source is a pointer to an unexported struct: copying what it
	// points to copies the whole generator state.
	orig := reflect.ValueOf(v).Elem()
	cp := reflect.New(orig.Type())
	cp.Elem().Set(orig)
	return cp.Interface().(rand.Source)
}

// The standard library starts two kinds of goroutine that run a caller's
// function without inheriting the caller's labels (a timer's, and a
// context canceller's, which may be a timer's): these stand-ins carry the
// caller's worker across.

func (r Resolver) afterFunc(d time.Duration, f func()) *time.Timer {
	s := r.current()
	return time.AfterFunc(d, func() { s.enterFor(f) })
}

func (r Resolver) contextAfterFunc(ctx context.Context, f func()) (stop func() bool) {
	s := r.current()
	return context.AfterFunc(ctx, func() { s.enterFor(f) })
}

func (s *Slot) enterFor(f func()) {
	if s != nil {
		pprof.SetGoroutineLabels(s.labels)
	}
	f()
}
