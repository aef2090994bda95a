//go:build nointerp

package faultsim

import (
	"errors"
	"io"
)

// ServeChild, in a build without the interpreter (-tags nointerp, the
// native route the benchmarks compile), cannot grade: it says so, and the
// parent reports the child's stderr as a system error.
func ServeChild(io.Reader, io.Writer, []Kit) error {
	return errors.New("faultsim: this binary was built with -tags nointerp, without the interpreter, and cannot grade")
}
