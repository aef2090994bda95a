package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestBinaryLinksNoTestHelpers: the server binary links none of the
// module's test helpers, and the testing package only where the grading
// child needs it.
//
// testing itself stays in the binary: the grading child is this binary,
// its virtual clock is a testing/synctest bubble, and synctest runs one
// only for a *testing.T (the runtime's entry points, internal/synctest's,
// are closed to linkname outside the standard library). So the test pins
// who imports testing: the clock's host (internal/faultsim/bubble), the
// interpreted route (testing.Testing: code is interpreted only in the
// child or a test), and from outside synctest. (gointerp takes its
// allowlist's symbol tables from internal/gointerp/allowedstd, not from
// yaegi's stdlib, which wraps testing among every other package.)
// Anything else that imports it is test code leaking in.
func TestBinaryLinksNoTestHelpers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to list the dependencies")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Name}}\t{{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/faultline-dev/faultline/"
	importsTesting := map[string]string{
		"testing/synctest":                       "the grading engine's virtual clock",
		module + "internal/faultsim/bubble":      "the host of synctest's bubbles in the grading child",
		module + "internal/faultsim/interpreted": "testing.Testing: it interprets only in the grading child or a test",
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 50 {
		t.Fatalf("go list -deps listed %d packages: %q", len(lines), out)
	}
	var seen []string
	for _, line := range lines {
		fields := strings.SplitN(line, "\t", 3)
		if len(fields) < 3 {
			t.Fatalf("go list: %q", line)
		}
		pkg, name, imports := fields[0], fields[1], strings.Fields(fields[2])
		if rel, ok := strings.CutPrefix(pkg, module); ok {
			if strings.HasSuffix(name, "test") || name == "nativebuild" || strings.HasPrefix(rel, "internal/e2e") {
				t.Errorf("the binary links %s, a test helper", pkg)
			}
		}
		if slices.Contains(imports, "testing") {
			if _, ok := importsTesting[pkg]; !ok {
				t.Errorf("%s imports testing: only test code should", pkg)
			}
			seen = append(seen, pkg)
		}
	}
	// The list above is what the binary needs, no more: an entry that no
	// longer imports testing comes out of it.
	for pkg, why := range importsTesting {
		if !slices.Contains(seen, pkg) {
			t.Errorf("%s (%s) no longer imports testing: take it off the list", pkg, why)
		}
	}
}
