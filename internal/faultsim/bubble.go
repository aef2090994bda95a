package faultsim

// Bubble runs f on a virtual clock: inside a testing/synctest bubble, time
// stands still while any goroutine of the bubble can run and jumps to the
// next timer once all are durably blocked. A submission's minutes of
// backoff take microseconds, and every total is exact. Each call is a new
// bubble whose clock starts at 2000-01-01 UTC.
//
// When goroutines of the bubble stay blocked after f returns, the call
// panics with synctest's "deadlock" message; the engine recovers it.
//
// The engine only calls a Bubble: internal/faultsim/bubble makes one for
// the grading child, and internal/faultsim/faultsimtest one for a test.
type Bubble func(f func())
