package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGradeCommand runs the real binary, built once here, so grading goes
// through the hidden child mode exactly as in production: the test
// binary itself cannot serve as the child without a TestMain.
func TestGradeCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	bin := filepath.Join(t.TempDir(), "server")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const (
		reference = "../../content/problems/async-refund/reference/refund.go"
		starter   = "../../content/problems/async-refund/starter/refund.go"
		hostile   = "../../internal/sandbox/testdata/hostile/"
	)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring of stdout
		status string // when -json: the report's status
	}{
		{"reference passes", []string{reference}, 0, "PASS: Every invariant held", ""},
		{"reference as JSON", []string{"-json", "-seed", "7", reference}, 0, `"seed": 7`, "pass"},
		{"starter fails", []string{starter}, 1, "FAIL:", ""},
		{"forbidden import is not gradable", []string{"-json", hostile + "import_os.go"}, 2, `import \"os\" is not allowed (line 9)`, "error"},
		{"compile error names the line", []string{hostile + "type_error.go"}, 2, "line 14:21", ""},
		{"a crash in the child is reported", []string{hostile + "panic_in_goroutine.go"}, 2, "panic: refund worker exploded", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, append([]string{"grade"}, tt.args...)...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, firstLines(stdout.String(), 20))
			}
			if tt.status != "" {
				var report struct{ Status string }
				if err := json.Unmarshal(stdout.Bytes(), &report); err != nil || report.Status != tt.status {
					t.Errorf("JSON report status %q (%v), want %q", report.Status, err, tt.status)
				}
			}
		})
	}
}

// TestGradeUsageErrors checks each usage error exits 2 and says what was
// wrong, before any child starts.
func TestGradeUsageErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no file", nil, "want exactly one FILE.go, got 0 arguments"},
		{"two files", []string{"a.go", "b.go"}, "want exactly one FILE.go, got 2 arguments"},
		{"not a Go file", []string{"notes.txt"}, "notes.txt: want a Go source file"},
		{"unknown problem", []string{"-problem", "nope", "a.go"}, `-problem "nope": no grader scenarios for that problem; gradable problems: async-refund`},
		{"bad seed", []string{"-seed", "abc", "a.go"}, `invalid value "abc" for flag -seed`},
		{"unknown flag", []string{"-fast", "a.go"}, "flag provided but not defined: -fast"},
		{"missing file", []string{"/nonexistent/refund.go"}, "cannot read the file: open /nonexistent/refund.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := gradeCommand(context.Background(), tt.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr.String())
			}
		})
	}
}

// TestGradeChildModeIsHidden checks the child mode is not advertised.
func TestGradeChildModeIsHidden(t *testing.T) {
	var out bytes.Buffer
	usage(&out)
	if strings.Contains(out.String(), "__grade") || !strings.Contains(out.String(), "grade ") {
		t.Errorf("usage should list grade and hide the child mode:\n%s", out.String())
	}
}

// TestGradeChildModeNeedsResultPipe checks the child mode refuses to run
// when not started by the grader (no result pipe on fd 3).
func TestGradeChildModeNeedsResultPipe(t *testing.T) {
	var out bytes.Buffer
	if _, err := os.Stat("/proc/self/fd/3"); err == nil {
		t.Skip("fd 3 is open in this test process; cannot check the refusal")
	}
	var stderr bytes.Buffer
	if code := gradeChildCommand(context.Background(), nil, &out, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "started by the grader itself") {
		t.Errorf("child mode without fd 3: exit %d, %q", code, stderr.String())
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
