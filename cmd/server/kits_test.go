package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/problems"
)

// createClientProblem is the shipped create-client problem; the tests copy
// it into a content folder of their own to change it.
const createClientProblem = "../../content/problems/idempotent-create-client-code"

// kitContent builds a content folder holding the create-client problem
// as problems/<slug>/, with edit applied to its scenarios file, and
// returns the folder.
func kitContent(t *testing.T, edit func(scenarios string) string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "problems", "idempotent-create-client-code")
	for _, f := range []string{"problem.md", "scenarios.yaml", "starter/client.go", "reference/client.go"} {
		data, err := os.ReadFile(filepath.Join(createClientProblem, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "scenarios.yaml" && edit != nil {
			data = []byte(edit(string(data)))
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// replaceOnce replaces old in s, failing when it is absent, so a change
// to the problem's file cannot leave a test testing nothing.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("scenarios file has no %q", old)
	}
	return strings.Replace(s, old, new, 1)
}

func TestContentKitsAreTheDefaultOnes(t *testing.T) {
	names := func(ks []problems.Kit) []string {
		var out []string
		for _, k := range ks {
			out = append(out, k.Name+map[bool]string{true: "+scenarios"}[k.Scenarios])
		}
		slices.Sort(out)
		return out
	}
	if got, want := names(contentKits()), names(problems.DefaultKits()); !slices.Equal(got, want) {
		t.Errorf("the server's kits %v, the loader's default %v: keep them the same", got, want)
	}
}

func TestLintNamesTheScenarioLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades references in child processes")
	}
	bin := buildServer(t)
	tests := []struct {
		name     string
		edit     func(t *testing.T, s string) string
		wantCode int
		wantOut  string // a line of stdout, after the folder
	}{
		{name: "clean", edit: func(t *testing.T, s string) string { return s }, wantCode: 0, wantOut: "ok: 1 problem, 0 sets, 0 screens"},
		{
			name: "unknown field",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "  - name: connect-errors\n", "  - name: connect-errors\n    colour: blue\n")
			},
			wantCode: 1,
			wantOut:  `problems/idempotent-create-client-code/scenarios.yaml:10: field colour not found in type createclient.Scenario`,
		},
		{
			name: "unknown fault kind",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "{request: 1, kind: connect}", "{request: 1, kind: meteor}")
			},
			wantCode: 1,
			wantOut:  `problems/idempotent-create-client-code/scenarios.yaml:15: scenario "connect-errors": unknown fault kind "meteor" (want one of connect, timeout, slow, status)`,
		},
		{
			name: "an end no correct client reaches",
			edit: func(t *testing.T, s string) string {
				// Without keys or references a lost answer must stay unknown.
				return replaceOnce(t, s, "      - {request: 1, kind: timeout, lands: true}\n    calls:\n      - {worker: worker-1, op: op-1}\n    expect: {op-1: [unknown]}",
					"      - {request: 1, kind: timeout, lands: true}\n    calls:\n      - {worker: worker-1, op: op-1}\n    expect: {op-1: [created]}")
			},
			wantCode: 1,
			wantOut:  `problems/idempotent-create-client-code/scenarios.yaml:44: scenario "timeout-no-key": the reference client.go fails it (settles): no correct solution could pass it as written`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := kitContent(t, func(s string) string { return tt.edit(t, s) })
			// The real binary: clean content has its reference graded in
			// the grading child, which the test binary cannot be.
			code, stdout, stderr := runServer(t, bin, "lint", dir)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stdout %s, stderr %s)", code, tt.wantCode, stdout, stderr)
			}
			want := tt.wantOut
			if tt.wantCode != 0 {
				want = filepath.Join(dir, want)
			}
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout:\n%s\nwant a line with:\n%s", stdout, want)
			}
		})
	}
}
