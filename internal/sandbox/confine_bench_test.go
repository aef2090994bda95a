package sandbox

import (
	"context"
	"os"
	"testing"
)

// BenchmarkConfinedChildStart measures what confinement adds to a child's
// start, side by side with the same child unconfined (prlimit, new user
// and network namespaces, as BenchmarkChildStart's last case): confined
// by itself (ConfineSelf, as the grading child is), and through the
// ConfineExecCommand program (as the native referee's program is, an
// exec more). The child reads its input, writes two result lines and
// exits.
func BenchmarkConfinedChildStart(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	if have := Confinement(); !have.Seccomp && have.LandlockABI == 0 {
		b.Skipf("nothing to confine with here: %v", have.Missing())
	}
	for _, tt := range []struct {
		name    string
		confine bool
		via     bool
	}{
		{"unconfined", false, false},
		{"confined-self", true, false},
		{"confined-via-exec", true, true},
	} {
		b.Run(tt.name, func(b *testing.B) {
			r := testRunner("echo", Limits{})
			if tt.confine {
				r.Confine = &ConfinePolicy{}
			}
			if tt.via {
				r.ConfineVia = []string{self, ConfineExecCommand}
			}
			for b.Loop() {
				out, err := r.Run(context.Background(), []byte("x"), nil)
				if err != nil || !out.OK() {
					b.Fatalf("%v %+v", err, out)
				}
			}
		})
	}
}
