package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// lintFixture is a content folder under testdata/lint.
func lintFixture(name string) string { return filepath.Join("testdata", "lint", name) }

func TestLintCommand(t *testing.T) {
	tests := []struct {
		fixture  string
		wantCode int
		wantOut  []string // exact stdout lines, with the folder prefix
	}{
		{"good", 0, []string{"ok: 1 problem, 1 set, 1 screen"}},
		{"broken-front-matter", 1, []string{
			"problems/demo/problem.md:6: front matter: did not find expected ',' or ']'"}},
		{"missing-title", 1, []string{
			"sets/quick.md:1: missing title: add title: to the front matter"}},
		{"missing-slug", 1, []string{
			"screens/demo-screen.md:1: missing slug: add slug: demo-screen to the front matter"}},
		{"duplicate-slug", 1, []string{
			`sets/demo.md:2: duplicate slug "demo": problems/demo/problem.md:2 already uses it`}},
		{"rubric-outside-part", 1, []string{
			"problems/demo/problem.md:14: ### What this part should cover outside a part (in the prompt): a rubric belongs under a ## Part N: Title heading"}},
		{"unknown-problem-in-screen", 1, []string{
			`screens/demo-screen.md:5: screen item 1 names unknown problem "no-such-problem"`}},
		{"missing-starter", 1, []string{
			"problems/demo/problem.md:9: code.starter: file starter/demo.go not found (looked for problems/demo/starter/demo.go)"}},
		{"missing-reference", 1, []string{
			"problems/demo/problem.md:10: code.reference: file reference/demo.go not found (looked for problems/demo/reference/demo.go)"}},
		{"several-errors", 1, []string{
			"problems/demo/problem.md:9: code.starter: file starter/demo.go not found (looked for problems/demo/starter/demo.go)",
			`screens/demo-screen.md:5: screen item 1 names unknown problem "no-such-problem"`,
			"sets/quick.md:1: missing title: add title: to the front matter"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			dir := lintFixture(tt.fixture)
			var stdout, stderr bytes.Buffer
			code := dispatch(context.Background(), []string{"lint", dir}, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code %d; want %d (stderr: %s)", code, tt.wantCode, stderr.String())
			}
			want := make([]string, len(tt.wantOut))
			for i, line := range tt.wantOut {
				if tt.wantCode != 0 {
					line = filepath.Join(dir, line) // diagnostics name the file under the folder given
				}
				want[i] = line
			}
			got := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("stdout:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if tt.wantCode == 1 && !strings.Contains(stderr.String(), "error") {
				t.Errorf("stderr %q does not summarise the errors", stderr.String())
			}
		})
	}
}

// TestLintShippedContent lints content/ with the real binary: lint grades
// each kit problem's reference in the grading child, which the test binary
// cannot be.
func TestLintShippedContent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades references in child processes")
	}
	code, stdout, stderr := runServer(t, buildServer(t), "lint", filepath.Join("..", "..", "content"))
	if code != 0 {
		t.Fatalf("lint content/ exit %d:\n%s%s", code, stdout, stderr)
	}
	// Warnings (a scripted fault that never fires against the reference,
	// say) may come before the summary; errors would have failed above.
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "ok: ") {
		t.Errorf("stdout = %q; want an ok summary last", stdout)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.Contains(l, ": warning: ") {
			t.Errorf("a line before the summary that is no warning: %q", l)
		} else {
			t.Log(l)
		}
	}
}

func TestLintUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing folder", []string{"lint", "testdata/no-such-folder"}, "not a readable folder"},
		{"a file, not a folder", []string{"lint", "lint.go"}, "not a readable folder"},
		{"two folders", []string{"lint", "a", "b"}, "usage: server lint"},
		{"unknown flag", []string{"lint", "-x"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := dispatch(context.Background(), tt.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit code %d; want 2", code)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.want)
			}
		})
	}
}

func TestDispatch(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{[]string{"help"}, 0, "lint", ""},
		{[]string{"frobnicate"}, 2, "", `unknown subcommand "frobnicate"`},
		{[]string{"serve", "extra"}, 2, "", `unexpected argument "extra"`},
		{[]string{"-no-such-flag"}, 2, "", "flag provided but not defined"}, // a leading flag means serve
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch(context.Background(), tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code %d; want %d", code, tt.wantCode)
			}
			if !strings.Contains(stdout.String(), tt.wantOut) || !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stdout %q, stderr %q; want %q and %q", stdout.String(), stderr.String(), tt.wantOut, tt.wantErr)
			}
		})
	}
}
