package faultsimtest

import (
	"io"
	"testing"
	"testing/synctest"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

// Bubble returns a Bubble for a test.
func Bubble(t *testing.T) faultsim.Bubble {
	return func(f func()) {
		synctest.Test(t, func(*testing.T) { f() })
	}
}

// Native is a natively compiled entry function, shared by every worker:
// for differential tests against the interpreter, and for kits' own tests.
// It gives workers no package state of their own, so use it only for code
// that has none.
type Native struct{ Entry any }

// Load implements faultsim.Program.
func (n Native) Load(*faultsim.Worker, int64, io.Writer) (any, error) { return n.Entry, nil }
