package web

import (
	"os/exec"
	"strings"
	"testing"
)

// TestParentSideLinksNoInterpreter: the server's parent side (the web
// layer and what it grades through) must not link the interpreter that
// runs submissions, the engine that drives it, or the testing package
// (testing/synctest is the engine's clock): submitted code never runs in
// the server, and a dependency of the web layer would put the means to
// run it there.
func TestParentSideLinksNoInterpreter(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to list the dependencies")
	}
	forbidden := []struct{ prefix, why string }{
		{"github.com/traefik/yaegi", "the interpreter"},
		{"testing", "the testing package (synctest is the grading engine's clock)"},
		{"github.com/faultline-dev/faultline/internal/faultsim", "the grading engine (child side)"},
		{"github.com/faultline-dev/faultline/internal/gointerp", "the interpreter's sandboxing"},
		{"github.com/faultline-dev/faultline/internal/grader", "the refund grader (child side)"},
		{"github.com/faultline-dev/faultline/internal/kits", "a kit (child side)"},
	}
	for _, pkg := range []string{".", "../grading", "../gradewire", "../rooms"} {
		t.Run(pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", pkg, err)
			}
			deps := strings.Fields(string(out))
			if len(deps) < 10 {
				t.Fatalf("go list -deps %s listed %d packages: %q", pkg, len(deps), out)
			}
			for _, dep := range deps {
				for _, f := range forbidden {
					if dep == f.prefix || strings.HasPrefix(dep, f.prefix+"/") {
						t.Errorf("%s depends on %s, %s", pkg, dep, f.why)
					}
				}
			}
		})
	}
}
