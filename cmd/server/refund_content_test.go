package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// refundProblem is the shipped refund problem; the tests copy it into a
// content folder of their own to change its scenarios file.
const refundProblem = "../../content/problems/async-refund"

// refundContent builds a content folder holding the refund problem with
// edit applied to its scenarios file, and returns the folder.
func refundContent(t *testing.T, edit func(scenarios string) string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "problems", "async-refund")
	for _, f := range []string{"problem.md", "scenarios.yaml", "starter/refund.go", "reference/refund.go", "starter/refund.py", "reference/refund.py"} {
		data, err := os.ReadFile(filepath.Join(refundProblem, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "scenarios.yaml" {
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

// lineOf is the line of the first line of s holding sub, so a test's
// expected position follows the file as it is.
func lineOf(t *testing.T, s, sub string) string {
	t.Helper()
	for i, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			return strconv.Itoa(i + 1)
		}
	}
	t.Fatalf("no line holds %q", sub)
	return ""
}

// addedRefundScenario is a scenario the binary was not built with.
const addedRefundScenario = `
  - name: added-by-the-test
    title: A scenario the binary was not built with
    description: A lost reply, then success.
    records:
      - {request_id: r1, charge_id: ch_1, amount: 2500, currency: usd, status: pending}
    charges:
      - {id: ch_1, amount: 10000}
    faults:
      - {request: 1, kind: lost-reply}
    phases:
      - name: run
        invocations:
          - {worker: worker-1, request_id: r1}
    expect: {status: [done], refunds: 1}
`

// TestRefundScenariosAreContent: the refund problem's scenarios file is
// read at run time by grade -content (a scenario added to it is graded,
// with no rebuild) and checked by lint at its file and line, a scenario
// the reference fails included.
func TestRefundScenariosAreContent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	bin := buildServer(t)
	const file = "problems/async-refund/scenarios.yaml"
	t.Run("grade sees an added scenario", func(t *testing.T) {
		t.Parallel()
		dir := refundContent(t, func(s string) string { return s + addedRefundScenario })
		src := filepath.Join(dir, "problems", "async-refund", "reference", "refund.go")
		code, stdout, stderr := runServer(t, bin, "grade", "-content", dir, "-problem", "async-refund", src)
		if code != 0 {
			t.Errorf("exit %d, want 0; stderr: %s", code, stderr)
		}
		if !strings.Contains(stdout, "added-by-the-test") {
			t.Errorf("the report does not have the added scenario:\n%s", firstLines(stdout, 60))
		}
	})
	var brokenLine, impossibleLine string
	tests := []struct {
		name    string
		edit    func(s string) string
		wantOut func() string
	}{
		{
			name: "unknown fault kind",
			edit: func(s string) string {
				s = strings.Replace(s, "{request: 1, kind: lost-reply}", "{request: 1, kind: meteor}", 1)
				brokenLine = lineOf(t, s, "kind: meteor")
				return s
			},
			wantOut: func() string {
				return file + ":" + brokenLine + `: scenario "lost-reply": unknown fault kind "meteor"`
			},
		},
		{
			name: "an end no correct solution reaches",
			edit: func(s string) string {
				// Every attempt fails: no refund can be made.
				s = strings.Replace(s, "expect: {status: [failed, needs_check], refunds: 0}", "expect: {status: [done], refunds: 1}", 1)
				impossibleLine = lineOf(t, s, "- name: all-attempts-fail")
				return s
			},
			wantOut: func() string {
				return file + ":" + impossibleLine + `: scenario "all-attempts-fail": the reference refund.go fails it (expected-end-state)`
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := refundContent(t, tt.edit)
			code, stdout, stderr := runServer(t, bin, "lint", dir)
			if code != 1 {
				t.Errorf("exit %d, want 1; stderr: %s", code, stderr)
			}
			if want := filepath.Join(dir, tt.wantOut()); !strings.Contains(stdout, want) {
				t.Errorf("stdout:\n%s\nwant a line with:\n%s", stdout, want)
			}
		})
	}
}
