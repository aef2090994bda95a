package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/problems"
)

// TestGradeCommand runs the real binary, built once here, so grading goes
// through the hidden child mode exactly as in production: the test
// binary itself cannot serve as the child without a TestMain.
func TestGradeCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	bin := buildServer(t)
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
		stderr string // substring of stderr
	}{
		{"reference passes", []string{reference}, 0, "PASS: Every invariant held", "", ""},
		{"reference as JSON", []string{"-json", "-seed", "7", reference}, 0, `"seed": 7`, "pass", ""},
		{"JSON names the problem", []string{"-json", reference}, 0, `"problem": "async-refund"`, "pass", ""},
		{"seeds ignored says so", []string{"-seeds", "5", reference}, 0, "PASS", "", "-seeds has no effect on async-refund"},
		{"starter fails", []string{starter}, 1, "FAIL:", "", ""},
		{"forbidden import is not gradable", []string{"-json", hostile + "import_os.go"}, 2, `import \"os\" is not allowed (line 9)`, "error", ""},
		{"compile error names the line", []string{hostile + "type_error.go"}, 2, "line 14:21", "", ""},
		{"a crash in the child is reported", []string{hostile + "panic_in_goroutine.go"}, 2, "panic: refund worker exploded", "", ""},
		// The scenarios' names are read only for such a report (GradeKitNaming).
		{"a crash names the scenario running", []string{hostile + "panic_in_goroutine.go"}, 2, `running the first scenario, "all-attempts-fail"`, "", ""},
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
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr.String())
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

// TestMain removes the server binary the tests built.
func TestMain(m *testing.M) {
	// The binaries the tests run grade without the native referee unless
	// a test asks for it (referee_test.go): each referee build costs a
	// second, and the first one of a cache a minute.
	os.Setenv("FAULTLINE_REFEREE", "false")
	code := m.Run()
	if !builtServer.Load() {
		os.Exit(code)
	}
	if bin, err := serverBinary(); err == nil {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

// builtServer is set once a test has built the binary, so TestMain only
// cleans up what was made.
var builtServer atomic.Bool

// serverBinary is the server built once for the tests that run it.
var serverBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "faultline-server-test")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

func buildServer(t *testing.T) string {
	t.Helper()
	builtServer.Store(true)
	bin, err := serverBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// runServer runs the built server with args and returns its exit code and
// output.
func runServer(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// TestGradeWithContent grades the create-client problem from a content
// folder written here, through the real binary and its grading child: a
// scenario added to the folder is graded with no rebuild, and a broken
// scenarios file is refused with its file and line.
func TestGradeWithContent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	bin := buildServer(t)
	const slug = "idempotent-create-client-code"
	added := func(t *testing.T, s string) string {
		return s + `
  - name: added-by-the-test
    title: A scenario the binary was not built with
    vendor: {name: plain}
    operations:
      - {id: op-9, amount: 100, currency: EUR, payee: zed, memo: added}
    faults:
      - {request: 1, kind: timeout, lands: true}
    calls:
      - {worker: worker-1, op: op-9}
    expect: {op-9: [unknown]}
`
	}
	shipped, err := os.ReadFile(filepath.Join(createClientProblem, "scenarios.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The shipped scenarios and the one the test adds.
	n := strings.Count(string(shipped), "\n  - name: ") + 1
	tests := []struct {
		name      string
		edit      func(t *testing.T, s string) string
		file      string // under the problem folder
		code      int
		stdout    []string // lines of stdout, each a substring
		stderrHas string
	}{
		{name: "the reference passes the added scenario", edit: added, file: "reference/client.go", code: 0,
			stdout: []string{fmt.Sprintf("PASS: Every invariant held in all %d scenarios.", n), fmt.Sprintf("Scenarios (%d of %d passed, seed 1)", n, n), "ok   added-by-the-test "}},
		{name: "the starter fails it", edit: added, file: "starter/client.go", code: 1,
			stdout: []string{fmt.Sprintf("FAIL: %d of %d scenarios failed", n, n), fmt.Sprintf("Scenarios (0 of %d passed, seed 1)", n), "FAIL added-by-the-test "}},
		{name: "a broken scenario is named at its line", file: "reference/client.go", code: 2,
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "{request: 1, kind: connect}", "{request: 1, kind: meteor}")
			},
			stderrHas: "problems/" + slug + `/scenarios.yaml:15: scenario "connect-errors": unknown fault kind "meteor"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := kitContent(t, func(s string) string { return tt.edit(t, s) })
			file := filepath.Join(dir, "problems", slug, filepath.FromSlash(tt.file))
			code, stdout, stderr := runServer(t, bin, "grade", "-content", dir, "-problem", slug, "-seeds", "2", file)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, firstLines(stdout, 40))
				}
			}
			if !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderrHas, stderr)
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
		{"no file", nil, "want exactly one FILE.go or FILE.py, got 0 arguments"},
		{"two files", []string{"a.go", "b.go"}, "want exactly one FILE.go or FILE.py, got 2 arguments"},
		{"not a Go file", []string{"notes.txt"}, "notes.txt: want a Go or Python source file"},
		{"unknown problem", []string{"-problem", "nope", "a.go"}, `-problem "nope": content has no code problem by that slug whose kit reads a scenarios file; gradable problems: async-refund, idempotent-create-client-code`},
		{"problem not in the folder", []string{"-content", "testdata/lint/good", "-problem", "nope", "a.go"},
			`-problem "nope": testdata/lint/good has no code problem by that slug whose kit reads a scenarios file`},
		{"invalid folder", []string{"-content", "testdata/lint/missing-title", "-problem", "demo", "a.go"},
			"sets/quick.md:1: missing title"},
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

// TestContentGuideExampleGrades takes the complete example of
// content/README.md's scenarios section, as an author would copy it, and
// checks that it lints clean, that the shipped reference passes it and the
// starter does not: the guide cannot drift from what the kit accepts.
func TestContentGuideExampleGrades(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	guide, err := os.ReadFile("../../content/README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(guide)
	start, end := strings.Index(text, "## Scenarios for a kit"), strings.Index(text, "## What a new kit takes")
	if start < 0 || end < start {
		t.Fatal("content/README.md has no scenarios section followed by the new-kit one")
	}
	var blocks []string
	for _, part := range strings.Split(text[start:end], "```yaml\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		blocks = append(blocks, block)
	}
	if len(blocks) != 2 || !strings.HasPrefix(blocks[0], "# problem.md") || !strings.HasPrefix(blocks[1], "# scenarios.yaml") {
		t.Fatalf("want the example's problem.md front matter then its scenarios.yaml, got %d yaml blocks", len(blocks))
	}
	root := t.TempDir()
	dir := filepath.Join(root, "problems", "create-once")
	// The first line of each block is a comment naming the file.
	_, front, _ := strings.Cut(blocks[0], "\n")
	files := map[string]string{"problem.md": front + "\nWrite the client.\n", "scenarios.yaml": blocks[1]}
	for _, f := range []string{"starter/client.go", "reference/client.go"} {
		data, err := os.ReadFile(filepath.Join(createClientProblem, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(data)
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := buildServer(t)
	if code, out, errOut := runServer(t, bin, "lint", root); code != 0 {
		t.Fatalf("lint exit %d:\n%s%s", code, out, errOut)
	}
	for file, want := range map[string]int{"reference/client.go": 0, "starter/client.go": 1} {
		code, out, errOut := runServer(t, bin, "grade", "-content", root, "-problem", "create-once", "-seeds", "2", filepath.Join(dir, file))
		if code != want {
			t.Errorf("grade %s: exit %d, want %d\n%s%s", file, code, want, firstLines(out, 20), errOut)
		}
	}
}

// TestGradeReadsAShippedProblemAsTheCatalogHasIt checks that the one
// problem `server grade` reads from the built-in content is the problem
// the whole catalog has, for every gradable problem.
func TestGradeReadsAShippedProblemAsTheCatalogHasIt(t *testing.T) {
	cat, _, err := loadContent("", content.FS)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range cat.Problems {
		if p.Code == nil || p.Code.ScenariosPath == "" {
			continue
		}
		n++
		var stderr bytes.Buffer
		code, exit := kitProblem("", p.Slug, &stderr)
		if exit != 0 {
			t.Errorf("%s: exit %d (%s)", p.Slug, exit, stderr.String())
			continue
		}
		// The scenario lists are read when needed (problems.LoadCode).
		if names := problems.ScenarioNames(code.Scenarios); !reflect.DeepEqual(names, p.Code.ScenarioNames) {
			t.Errorf("%s: its scenarios' names %q differ from the catalog's %q", p.Slug, names, p.Code.ScenarioNames)
		}
		lists := *p.Code
		lists.ScenarioNames, lists.CheckScenarios = nil, nil
		if !reflect.DeepEqual(code, &lists) {
			t.Errorf("%s: its code differs from the catalog's", p.Slug)
		}
	}
	if n < 2 {
		t.Errorf("%d gradable problems shipped, want both kits'", n)
	}
}

// TestGradeCollectsOnlyNearItsLimit checks `server grade` turns off
// proportional collection for itself with a memory limit instead, and
// leaves both alone when GOGC or GOMEMLIMIT is set.
func TestGradeCollectsOnlyNearItsLimit(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })
	for _, tc := range []struct {
		env         map[string]string
		wantPercent int
		wantLimit   int64
	}{
		{map[string]string{"GOGC": "", "GOMEMLIMIT": ""}, -1, gradeMemoryLimit},
		{map[string]string{"GOGC": "50", "GOMEMLIMIT": ""}, 100, math.MaxInt64},
		{map[string]string{"GOGC": "", "GOMEMLIMIT": "1GiB"}, 100, math.MaxInt64},
	} {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		collectOnlyNearLimit()
		if got, lim := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); got != tc.wantPercent || lim != tc.wantLimit {
			t.Errorf("env %v: GOGC %d, memory limit %d; want %d, %d", tc.env, got, lim, tc.wantPercent, tc.wantLimit)
		}
	}
}
