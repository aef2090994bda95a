package grader

import (
	"os"
	"testing"
	"testing/synctest"
)

// Bubble runs f inside a testing/synctest bubble: a virtual clock that
// starts at 2000-01-01 UTC and advances only when every goroutine of the
// bubble is durably blocked, so minutes of backoff take microseconds and
// totals are exact. In tests, get one from BubbleFromT; the grading child
// gets one from RunInBubbleProcess.
//
// A bubble whose goroutines stay blocked forever (a deadlocked submission)
// makes the call panic with synctest's "deadlock" error once f returns;
// Grade recovers that and reports it.
type Bubble func(f func())

// BubbleFromT returns a Bubble for a test. Each call starts a new bubble
// (with the clock back at 2000-01-01).
func BubbleFromT(t *testing.T) Bubble {
	return func(f func()) {
		synctest.Test(t, func(*testing.T) { f() })
	}
}

// RunInBubbleProcess calls body with a Bubble outside `go test`. synctest
// only exists inside a test, so this runs one test with testing.Main: it
// resets os.Args (testing.Main parses -test.* flags from it) and exits the
// process with code 0 when body returns, so body must write its output
// before returning. testing.Main prints "PASS" on stdout. Only the grading
// child calls this.
func RunInBubbleProcess(body func(b Bubble)) {
	os.Args = os.Args[:1]
	tests := []testing.InternalTest{{
		Name: "Grade",
		F:    func(t *testing.T) { body(BubbleFromT(t)) },
	}}
	matchAll := func(pat, str string) (bool, error) { return true, nil }
	testing.Main(matchAll, tests, nil, nil)
}
