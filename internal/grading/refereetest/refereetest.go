// Package refereetest is for the native referee's tests: a correct file
// that the interpreter cannot run faithfully, made from a problem's
// reference, so that a test can show the referee overruling it.
package refereetest

import (
	"strings"
	"testing"
)

// The reference's backoff is multiplied by copied(), which is 1: copy's
// two arguments are the two results of one call. Go compiles it; the
// interpreter panics on it while loading (index out of range), which is
// its own failure, not the code's. Should the interpreter learn this form,
// the referee tests fail saying the verdict was confirmed: find another
// form among the silent divergences bench/gotests.sh lists.
const (
	at   = "backoff := time.Second"
	with = "backoff := time.Second * time.Duration(copied())"
	tail = `
func pair(a []byte) ([]byte, []byte) { return a, []byte("x") }

// copied is 1: copy takes both results of pair.
func copied() int { return copy(pair(make([]byte, 1))) }
`
)

// Unfaithful is reference made into a file the interpreter cannot run
// faithfully, with the same behaviour natively. The reference must set
// its backoff as "backoff := time.Second" (create-client's does).
func Unfaithful(t testing.TB, reference string) string {
	t.Helper()
	if !strings.Contains(reference, at) {
		t.Fatalf("refereetest: the reference has no %q: update the test", at)
	}
	return strings.Replace(reference, at, with, 1) + tail
}
