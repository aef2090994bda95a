package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/grading/refereetest"
)

// TestGradeRefereeOverrulesAndLogs: `server grade` with the native
// referee passes a correct file the interpreter cannot run (refereetest's
// form), says the interpreter could
// not run it faithfully, and keeps the disagreement, which `server
// referee-log` lists by its source's hash; the reference is confirmed; and
// with no go tool on PATH the verdict is unconfirmed.
func TestGradeRefereeOverrulesAndLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades natively with the go tool")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	bin := buildServer(t)
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	// The go tool's own build cache holds the standard library already.
	t.Setenv("FAULTLINE_REFEREE_GOCACHE", strings.TrimSpace(string(gocache)))
	const problem = "idempotent-create-client-code"
	reference, err := os.ReadFile("../../content/problems/" + problem + "/reference/client.go")
	if err != nil {
		t.Fatal(err)
	}
	src := refereetest.Unfaithful(t, string(reference))
	dir := t.TempDir()
	file := filepath.Join(dir, "client.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "log.db")
	cache := filepath.Join(dir, "cache")

	// As deployed: a clean environment with only the go tool and the
	// system on PATH, run from outside the source tree, with no module
	// cache, so the build must use what the binary carries.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	deployed := exec.Command(bin, "grade", "-referee", "-referee-cache", cache, "-db", db, "-problem", problem, "-seeds", "2", file)
	deployed.Dir = "/"
	deployed.Env = []string{"PATH=" + filepath.Dir(goTool) + ":/usr/bin:/bin", "HOME=" + t.TempDir(),
		"FAULTLINE_REFEREE_GOCACHE=" + strings.TrimSpace(string(gocache)), "GOMODCACHE=" + t.TempDir(), "GOFLAGS=-mod=mod", "GOPROXY=off"}
	var stdout, stderr strings.Builder
	deployed.Stdout, deployed.Stderr = &stdout, &stderr
	code := 0
	if err := deployed.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		code = exit.ExitCode()
	}
	out, errOut := stdout.String(), stderr.String()
	if code != 0 || !strings.HasPrefix(out, "PASS:") || !strings.Contains(out, "Native referee (overruled)") || !strings.Contains(out, "could not run this code faithfully") {
		t.Fatalf("grade: exit %d, want 0, a pass the referee overruled to\n%s%s", code, firstLines(out, 5), errOut)
	}
	code, out, errOut = runServer(t, bin, "referee-log", "-db", db)
	hash := grading.SourceHash(src)
	if code != 0 || !strings.Contains(out, problem) || !strings.Contains(out, hash[:16]) || !strings.Contains(out, "passed") {
		t.Errorf("referee-log: exit %d, want the disagreement on %s (%s):\n%s%s", code, problem, hash[:16], out, errOut)
	}
	code, out, _ = runServer(t, bin, "referee-log", "-db", db, "-source", "1")
	if code != 0 || out != src {
		t.Errorf("referee-log -source 1: exit %d, printed %d bytes; want the source graded", code, len(out))
	}

	code, out, errOut = runServer(t, bin, "grade", "-referee", "-referee-cache", cache, "-db", db, "-problem", problem, "-seeds", "2",
		"../../content/problems/"+problem+"/reference/client.go")
	if code != 0 || !strings.Contains(out, "Native referee (confirmed)") {
		t.Errorf("grade the reference: exit %d, want a pass, confirmed:\n%s%s", code, firstLines(out, 5), errOut)
	}

	noGo := exec.Command(bin, "grade", "-referee", "-referee-cache", cache, "-problem", problem, "-seeds", "2", file)
	noGo.Env = append(os.Environ(), "PATH="+t.TempDir())
	outB, _ := noGo.Output()
	if !strings.Contains(string(outB), "Native referee (unconfirmed)") || !strings.Contains(string(outB), "no Go toolchain") {
		t.Errorf("grade with no go tool on PATH: want the verdict unconfirmed:\n%s", firstLines(string(outB), 5))
	}
}
