package faultsim

import (
	"sync"
	"sync/atomic"
)

// Mutex replaces sync.Mutex for interpreted code. A goroutine waiting on a
// real sync.Mutex is not durably blocked for synctest, so the virtual clock
// would stop while a lock is held across a sleep; waiting on a channel is
// durably blocking. The zero value is unlocked, like sync.Mutex.
type Mutex struct {
	ch atomic.Pointer[chan struct{}]
}

func (m *Mutex) channel() chan struct{} {
	if c := m.ch.Load(); c != nil {
		return *c
	}
	c := make(chan struct{}, 1)
	if m.ch.CompareAndSwap(nil, &c) {
		return c
	}
	return *m.ch.Load()
}

// Lock locks m.
func (m *Mutex) Lock() { m.channel() <- struct{}{} }

// TryLock tries to lock m and reports whether it succeeded.
func (m *Mutex) TryLock() bool {
	select {
	case m.channel() <- struct{}{}:
		return true
	default:
		return false
	}
}

// Unlock unlocks m; unlocking an unlocked Mutex panics, as with sync.Mutex.
func (m *Mutex) Unlock() {
	select {
	case <-m.channel():
	default:
		panic("sync: unlock of unlocked mutex")
	}
}

// RWMutex replaces sync.RWMutex for interpreted code (see Mutex). Readers
// share the write lock: the first reader takes it, the last one releases it.
type RWMutex struct {
	w       Mutex
	r       Mutex
	readers int
}

// Lock locks rw for writing.
func (rw *RWMutex) Lock() { rw.w.Lock() }

// TryLock tries to lock rw for writing.
func (rw *RWMutex) TryLock() bool { return rw.w.TryLock() }

// Unlock unlocks rw for writing.
func (rw *RWMutex) Unlock() { rw.w.Unlock() }

// RLock locks rw for reading.
func (rw *RWMutex) RLock() {
	rw.r.Lock()
	rw.readers++
	if rw.readers == 1 {
		rw.w.Lock()
	}
	rw.r.Unlock()
}

// TryRLock tries to lock rw for reading.
func (rw *RWMutex) TryRLock() bool {
	rw.r.Lock()
	defer rw.r.Unlock()
	if rw.readers == 0 && !rw.w.TryLock() {
		return false
	}
	rw.readers++
	return true
}

// RUnlock undoes one RLock.
func (rw *RWMutex) RUnlock() {
	rw.r.Lock()
	rw.readers--
	if rw.readers < 0 {
		rw.r.Unlock()
		panic("sync: RUnlock of unlocked RWMutex")
	}
	if rw.readers == 0 {
		rw.w.Unlock()
	}
	rw.r.Unlock()
}

// RLocker returns a Locker that read-locks rw.
func (rw *RWMutex) RLocker() sync.Locker { return readLocker{rw} }

type readLocker struct{ rw *RWMutex }

func (l readLocker) Lock()   { l.rw.RLock() }
func (l readLocker) Unlock() { l.rw.RUnlock() }

// Once replaces sync.Once for interpreted code: sync.Once makes a second
// caller wait on a real mutex while the first runs f, and if f sleeps the
// virtual clock stops for good (the waiter is not durably blocked). This
// one waits on a Mutex (a channel). As with sync.Once, f counts as done
// once it returns or panics.
type Once struct {
	m    Mutex
	done atomic.Bool
}

// Do calls f if and only if Do has not been called before for o.
func (o *Once) Do(f func()) {
	if o.done.Load() {
		return
	}
	o.m.Lock()
	defer o.m.Unlock()
	if !o.done.Load() {
		defer o.done.Store(true)
		f()
	}
}

// OnceFunc replaces sync.OnceFunc (see Once): a function that calls f
// once; if f panicked, every call panics with the same value.
func OnceFunc(f func()) func() {
	var once Once
	var p any
	panicked := true
	g := func() {
		defer func() {
			if panicked {
				p = recover()
			}
		}()
		f()
		panicked = false
	}
	return func() {
		once.Do(g)
		if panicked {
			panic(p)
		}
	}
}
