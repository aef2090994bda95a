//go:build nointerp && !referee

package faultsim

// CallingWorker is nil without the interpreter: only interpreted code's
// goroutines carry a worker's slot (see slots.go), and natively compiled
// code reaches its worker through what it is passed.
func CallingWorker() *Worker { return nil }
