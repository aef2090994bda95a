package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestGradePython: `server grade FILE.py` grades Python, the extension
// deciding, through the grading child, with grade's exit codes; where
// Python may not run (no complete confinement and no leave to run without
// it) the file is not graded and the report says why.
func TestGradePython(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	bin := buildServer(t)
	// Without the operator's leave, Python runs only confined: where the
	// kernel gives all of the confinement, it grades; elsewhere not.
	withoutLeave := struct {
		code   int
		stdout string
	}{2, "Python grading is unavailable here: the grading child is not confined"}
	if sandbox.Confinement().Complete() {
		withoutLeave.code, withoutLeave.stdout = 0, "PASS: Every invariant held"
	}
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.py")
	if err := os.WriteFile(broken, []byte("import refundkit\n\nasync def refund_money(request_id):\n    return (\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const (
		reference = "../../content/problems/async-refund/reference/refund.py"
		starter   = "../../content/problems/async-refund/starter/refund.py"
	)
	for _, tt := range []struct {
		name       string
		unconfined bool
		args       []string
		code       int
		stdout     string
	}{
		{"reference passes", true, []string{reference}, 0, "PASS: Every invariant held"},
		{"starter fails", true, []string{starter}, 1, "FAIL:"},
		{"a syntax error names the line", true, []string{broken}, 2, "line 4:12: SyntaxError: '(' was never closed"},
		{"without leave: only confined", false, []string{reference}, withoutLeave.code, withoutLeave.stdout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(bin, append([]string{"grade"}, tt.args...)...)
			cmd.Env = append(os.Environ(), pyenv.UnconfinedEnv+"=")
			if tt.unconfined {
				cmd.Env = append(cmd.Env, pyenv.UnconfinedEnv+"=1")
			}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) {
				t.Errorf("exit %d, want %d; stdout lacks %q?\n%s\nstderr: %s", code, tt.code, tt.stdout, firstLines(stdout.String(), 10), stderr.String())
			}
		})
	}
}

// TestLintGradesThePythonReference: where Python can run, lint grades a
// problem's Python reference against its scenarios too, and a scenario it
// fails is a content error at the scenario's line; where it cannot, lint
// says nothing of it.
func TestLintGradesThePythonReference(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	bin := buildServer(t)
	root := refundContent(t, func(s string) string { return s })
	ref := filepath.Join(root, "problems", "async-refund", "reference", "refund.py")
	src, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	// No claim: two workers may both send.
	broken := strings.Replace(string(src), "    if not await refundkit.claim(request_id, CLAIM_LEASE):", "    if False:", 1)
	if broken == string(src) {
		t.Fatal("the reference no longer claims as this test expects")
	}
	if err := os.WriteFile(ref, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		unconfined string
		fails      bool
	}{{"1", true}, {"", sandbox.Confinement().Complete()}} {
		cmd := exec.Command(bin, "lint", root)
		cmd.Env = append(os.Environ(), pyenv.UnconfinedEnv+"="+tt.unconfined)
		out, err := cmd.CombinedOutput()
		want := `scenario "two-concurrent": the reference refund.py fails it (exclusive-claim)`
		if got := strings.Contains(string(out), want); got != tt.fails || (err != nil) != tt.fails {
			t.Errorf("%s=%q: lint said (%v):\n%s\nwant the line %q: %v", pyenv.UnconfinedEnv, tt.unconfined, err, out, want, tt.fails)
		}
	}
}
