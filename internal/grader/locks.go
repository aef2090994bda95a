package grader

import "github.com/faultline-dev/faultline/internal/faultsim"

// The sync stand-ins interpreted code gets (see faultsim's locks.go: a
// goroutine waiting on a real sync.Mutex is not durably blocked for
// synctest, so a lock held across a sleep would stop the virtual clock).
// The refund grader uses faultsim's until it moves onto faultsim whole.
type (
	Mutex   = faultsim.Mutex
	RWMutex = faultsim.RWMutex
	Once    = faultsim.Once
)

// OnceFunc stands in for sync.OnceFunc (see faultsim.OnceFunc).
var OnceFunc = faultsim.OnceFunc
