package faultsim

import (
	"sync"
	"sync/atomic"
)

// Mutex stands in for sync.Mutex in interpreted code. synctest does not
// count a goroutine waiting on a sync.Mutex as durably blocked, so a lock
// held across a sleep would stop the virtual clock; a goroutine waiting on
// a channel is durably blocked. The zero value is unlocked.
type Mutex struct {
	ch atomic.Pointer[chan struct{}]
}

func (m *Mutex) sem() chan struct{} {
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
func (m *Mutex) Lock() { m.sem() <- struct{}{} }

// TryLock locks m if it is free.
func (m *Mutex) TryLock() bool {
	select {
	case m.sem() <- struct{}{}:
		return true
	default:
		return false
	}
}

// Unlock unlocks m, and panics if it was not locked, as sync.Mutex does.
func (m *Mutex) Unlock() {
	select {
	case <-m.sem():
	default:
		panic("sync: unlock of unlocked mutex")
	}
}

// RWMutex stands in for sync.RWMutex (see Mutex). Readers share the
// writer's lock: the first takes it, the last gives it back.
type RWMutex struct {
	w       Mutex
	count   Mutex
	readers int
}

// Lock locks rw for writing.
func (rw *RWMutex) Lock() { rw.w.Lock() }

// Unlock unlocks rw for writing.
func (rw *RWMutex) Unlock() { rw.w.Unlock() }

// TryLock locks rw for writing if it is free.
func (rw *RWMutex) TryLock() bool { return rw.w.TryLock() }

// RLock locks rw for reading.
func (rw *RWMutex) RLock() {
	rw.count.Lock()
	defer rw.count.Unlock()
	if rw.readers == 0 {
		rw.w.Lock()
	}
	rw.readers++
}

// RUnlock undoes one RLock.
func (rw *RWMutex) RUnlock() {
	rw.count.Lock()
	defer rw.count.Unlock()
	if rw.readers == 0 {
		panic("sync: RUnlock of unlocked RWMutex")
	}
	rw.readers--
	if rw.readers == 0 {
		rw.w.Unlock()
	}
}

// Once stands in for sync.Once, whose slow path waits on a sync.Mutex.
type Once struct {
	m    Mutex
	done atomic.Bool
}

// Do calls f once.
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

// interface checks: the stand-ins keep sync's method sets.
var (
	_ sync.Locker = (*Mutex)(nil)
	_ sync.Locker = (*RWMutex)(nil)
)
