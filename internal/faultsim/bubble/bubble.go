// Package bubble gives a process that grades (the interpreting grading
// child, the native referee's program) the engine's virtual clock outside
// `go test`. synctest runs a bubble only for a *testing.T, so this is the
// one package of the module's own production code that imports testing
// (a test in cmd/server keeps it so); the engine (internal/faultsim) only
// calls the faultsim.Bubble it is given.
package bubble

import (
	"os"
	"testing"
	"testing/synctest"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

// InProcess calls body with a Bubble outside `go test`. synctest exists only
// inside a test, so this runs one test through testing.Main, which parses
// -test.* flags from os.Args (reset here), prints "PASS" on stdout and
// exits the process when body returns: body writes its output first. Only
// a grading child calls this.
func InProcess(body func(b faultsim.Bubble)) {
	os.Args = os.Args[:1]
	tests := []testing.InternalTest{{Name: "Grade", F: func(t *testing.T) { body(forT(t)) }}}
	testing.Main(func(string, string) (bool, error) { return true, nil }, tests, nil, nil)
}

// Serving calls body like InProcess, for a child that grades one job
// after another: failed reports whether a bubble failed the test (it
// ended with goroutines of the run still blocked), after which the
// process is not clean and body should return.
func Serving(body func(b faultsim.Bubble, failed func() bool)) {
	os.Args = os.Args[:1]
	tests := []testing.InternalTest{{Name: "Grade", F: func(t *testing.T) { body(forT(t), t.Failed) }}}
	testing.Main(func(string, string) (bool, error) { return true, nil }, tests, nil, nil)
}

// forT is a Bubble lent by t.
func forT(t *testing.T) faultsim.Bubble {
	return func(f func()) {
		synctest.Test(t, func(*testing.T) { f() })
	}
}
