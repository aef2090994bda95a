package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintRefusesScriptsTheRulesExclude: `server lint` refuses a
// create-client scenario whose script needs an answer the page's vendor
// rules exclude, naming the file, the line and the rule.
func TestLintRefusesScriptsTheRulesExclude(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades references in child processes")
	}
	src := filepath.Join("..", "..", "content", "problems", "idempotent-create-client-code")
	dir := t.TempDir()
	dst := filepath.Join(dir, "problems", "idempotent-create-client-code")
	for _, f := range []string{"problem.md", "scenarios.yaml", "starter/client.go", "reference/client.go"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "scenarios.yaml" {
			// The 422 answers request 2, a resend of request 1 under its
			// key after request 1 landed: rule V5 answers it with the
			// payment.
			old := "      - {request: 1, kind: timeout, lands: true, lands_after: 25s}\n      - {request: 2, kind: status, status: 422}"
			if !strings.Contains(string(b), old) {
				t.Fatal("scenarios.yaml changed: update the test's edit")
			}
			b = []byte(strings.Replace(string(b), old, "      - {request: 1, kind: timeout, lands: true}\n      - {request: 2, kind: status, status: 422}", 1))
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runServer(t, buildServer(t), "lint", dir)
	if code != 1 {
		t.Fatalf("lint exit %d, want 1:\n%s%s", code, stdout, stderr)
	}
	want := "problems/idempotent-create-client-code/scenarios.yaml:"
	rule := `request 2 resends request 1 under its key, so the vendor answers it by rule V5, not with a scripted 422`
	if !strings.Contains(stdout, want) || !strings.Contains(stdout, rule) {
		t.Errorf("stdout = %q; want a line at %s... saying %q", stdout, want, rule)
	}
}
