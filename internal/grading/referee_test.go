package grading

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading/refereetest"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// refereeProblem is the shipped create-client problem: the referee's
// tests grade its reference and files made from it.
const refereeProblem = "idempotent-create-client-code"

// refereeFixture is a server binary to serve as the grading child, the
// shipped problem, and a referee whose build cache is the go tool's own
// (which holds the standard library's packages already).
type refereeFixture struct {
	bin     string
	code    *problems.Code
	cache   string
	gocache string
}

// refereeDir is the fixture's folder, removed by TestMain once made.
var refereeDir string

// TestMain removes the referee fixture's binary and cache.
func TestMain(m *testing.M) {
	code := m.Run()
	if refereeDir != "" {
		os.RemoveAll(refereeDir)
	}
	os.Exit(code)
}

var refereeSetup = sync.OnceValues(func() (*refereeFixture, error) {
	dir, err := os.MkdirTemp("", "faultline-referee-test")
	if err != nil {
		return nil, err
	}
	refereeDir = dir
	f := &refereeFixture{bin: filepath.Join(dir, "server"), cache: filepath.Join(dir, "cache")}
	if out, err := exec.Command("go", "build", "-o", f.bin, "../../cmd/server").CombinedOutput(); err != nil {
		return nil, &buildError{string(out)}
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return nil, err
	}
	f.gocache = strings.TrimSpace(string(out))
	cat, err := problems.Load(content.FS)
	if err != nil {
		return nil, err
	}
	p, ok := cat.Problem(refereeProblem)
	if !ok || p.Code == nil {
		return nil, &buildError{"no problem " + refereeProblem}
	}
	f.code = p.Code
	return f, nil
})

type buildError struct{ out string }

func (e *buildError) Error() string { return e.out }

// fakeLog keeps disagreements in memory.
type fakeLog struct {
	mu   sync.Mutex
	seen []Disagreement
}

func (l *fakeLog) LogDisagreement(_ context.Context, d Disagreement) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, d)
	return nil
}

func (l *fakeLog) all() []Disagreement {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

func refereeService(t testing.TB) (*Service, *refereeFixture, *fakeLog) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the server binary and grades natively with the go tool")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	f, err := refereeSetup()
	if err != nil {
		t.Fatal(err)
	}
	limits := sandbox.Limits{WallTime: 60 * time.Second}
	runner := NewChildRunner(limits, nil)
	runner.Executable = f.bin
	pool := sandbox.NewPool(runner, 1, 4)
	t.Cleanup(func() { pool.Close() })
	svc := New(pool, nil)
	svc.Referee = NewReferee(f.cache, limits, 1)
	svc.Referee.GoCache = f.gocache
	// As the server does: the native program is confined by the kernel.
	svc.Referee.ConfineVia = []string{f.bin, sandbox.ConfineExecCommand}
	log := &fakeLog{}
	svc.Disagreements = log
	return svc, f, log
}

func refereeJob(f *refereeFixture, source string, only []string) gradewire.Job {
	job := KitJob(f.code, source, 1, only)
	job.Seeds, job.Problem = 2, refereeProblem
	return job
}

// TestRefereeOverrulesTheInterpreter: a correct file the interpreter
// cannot run is graded natively and passes; the report says the
// interpreter could not run it faithfully, and the disagreement is
// logged with the source's hash and both verdicts. A Check of it, which
// the interpreter cannot grade either, is refereed too.
func TestRefereeOverrulesTheInterpreter(t *testing.T) {
	svc, f, log := refereeService(t)
	src := refereetest.Unfaithful(t, f.code.Reference)
	rep, err := svc.GradeKit(context.Background(), nil, refereeJob(f, src, nil), f.code.ScenarioNames, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := rep.Referee
	if ref == nil || ref.Outcome != gradewire.RefereeOverruled {
		t.Fatalf("referee %+v, report %s: %s; want overruled (did the interpreter learn refereetest's form? find another it cannot run)", ref, rep.Status, rep.Message)
	}
	if rep.Status != gradewire.StatusPass || ref.Native != "passed" || !strings.HasPrefix(ref.Interpreted, "not graded") ||
		!strings.Contains(ref.Message, "could not run this code faithfully") || rep.Summary.ScenariosPassed != len(f.code.ScenarioNames) {
		t.Errorf("status %s, %d scenarios passed, referee %+v", rep.Status, rep.Summary.ScenariosPassed, ref)
	}
	got := log.all()
	if len(got) != 1 || got[0].SourceHash != SourceHash(src) || got[0].Problem != refereeProblem || got[0].Kit != f.code.Kit ||
		got[0].Native != "passed" || got[0].Interpreted != ref.Interpreted || got[0].Source != src {
		t.Errorf("logged %+v", got)
	}
	t.Logf("referee: build %.0f ms, run %.0f ms", ref.BuildMS, ref.RunMS)

	check, err := svc.GradeKit(context.Background(), nil, refereeJob(f, src, f.code.CheckScenarios), f.code.ScenarioNames, nil)
	if err != nil {
		t.Fatal(err)
	}
	if check.Referee == nil || check.Referee.Outcome != gradewire.RefereeOverruled || check.Status != gradewire.StatusPass {
		t.Errorf("Check: status %s, referee %+v; want a native pass", check.Status, check.Referee)
	}
}

// TestRefereeConfirms: where the native verdict is the interpreter's, the
// interpreter's report stands, marked confirmed, whether it passed or
// failed; nothing is logged. A Check the interpreter graded is not
// refereed.
func TestRefereeConfirms(t *testing.T) {
	svc, f, log := refereeService(t)
	for _, tt := range []struct {
		name, source, status string
	}{
		{"reference", f.code.Reference, gradewire.StatusPass},
		{"starter", f.code.Starter, gradewire.StatusFail},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := svc.GradeKit(context.Background(), nil, refereeJob(f, tt.source, nil), f.code.ScenarioNames, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != tt.status || rep.Referee == nil || rep.Referee.Outcome != gradewire.RefereeConfirmed || rep.Referee.Native != rep.Verdict() {
				t.Fatalf("status %s (%s), referee %+v; want %s, confirmed", rep.Status, rep.Message, rep.Referee, tt.status)
			}
			t.Logf("referee: build %.0f ms, run %.0f ms", rep.Referee.BuildMS, rep.Referee.RunMS)
		})
	}
	if got := log.all(); len(got) != 0 {
		t.Errorf("agreements were logged as disagreements: %+v", got)
	}
	check, err := svc.GradeKit(context.Background(), nil, refereeJob(f, f.code.Reference, f.code.CheckScenarios), f.code.ScenarioNames, nil)
	if err != nil {
		t.Fatal(err)
	}
	if check.Status != gradewire.StatusPass || check.Referee != nil {
		t.Errorf("Check of the reference: status %s, referee %+v; want a pass the referee was not asked about", check.Status, check.Referee)
	}
	// A what-if names one scenario as a Check does, but its verdicts are
	// read against the Grade's refereed ones: it is refereed too.
	name := f.code.ScenarioNames[0]
	whatIf := refereeJob(f, f.code.Starter, []string{name})
	whatIf.Variation = &gradewire.Variation{Scenario: name, Run: gradewire.RunRef{Seed: 1}, NoCrash: true}
	rep, err := svc.GradeKit(context.Background(), nil, whatIf, f.code.ScenarioNames, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Referee == nil || rep.Referee.Outcome != gradewire.RefereeConfirmed {
		t.Errorf("what-if of the starter: status %s (%s), referee %+v; want it refereed and confirmed", rep.Status, rep.Message, rep.Referee)
	}
}

// TestRefereeWithoutToolchain: with no go tool on PATH the verdict is
// the interpreter's, and the report says it is unconfirmed.
func TestRefereeWithoutToolchain(t *testing.T) {
	svc, f, log := refereeService(t)
	t.Setenv("PATH", t.TempDir())
	for _, src := range []string{f.code.Reference, refereetest.Unfaithful(t, f.code.Reference)} {
		rep, err := svc.GradeKit(context.Background(), nil, refereeJob(f, src, nil), f.code.ScenarioNames, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Referee == nil || rep.Referee.Outcome != gradewire.RefereeUnconfirmed || !strings.Contains(rep.Referee.Message, "unconfirmed") ||
			!strings.Contains(rep.Referee.Message, "no Go toolchain") {
			t.Errorf("referee %+v; want unconfirmed, saying there is no Go toolchain", rep.Referee)
		}
	}
	if got := log.all(); len(got) != 0 {
		t.Errorf("logged %+v", got)
	}
}

// TestCheckNative: what a grading child sends is checked before the go
// tool sees it: imports outside the allowlist (cgo, unsafe, os), a kit
// that is not one, a file name that is not a plain Go file, copies out of
// bounds.
func TestCheckNative(t *testing.T) {
	ok := func() *gradewire.NativeProgram {
		return &gradewire.NativeProgram{KitImport: "github.com/faultline-dev/faultline/internal/kits/refund", KitValue: "refund.Kit{}", Copies: 2,
			Files: map[string]string{"refund.go": "package refund\n\nimport (\n\t\"fmt\"\n\t\"github.com/faultline-dev/faultline/internal/grader/refundkit\"\n)\n"}}
	}
	if err := checkNative(ok()); err != nil {
		t.Fatalf("a plain program refused: %v", err)
	}
	for _, tt := range []struct {
		name   string
		change func(p *gradewire.NativeProgram)
		want   string
	}{
		{"cgo", func(p *gradewire.NativeProgram) { p.Files["refund.go"] = "package refund\n\nimport \"C\"\n" }, `imports "C"`},
		{"unsafe", func(p *gradewire.NativeProgram) { p.Files["x.go"] = "package refund\n\nimport _ \"unsafe\"\n" }, `imports "unsafe"`},
		{"os", func(p *gradewire.NativeProgram) { p.Files["refund.go"] = "package refund\n\nimport \"os\"\n" }, `imports "os"`},
		{"another module", func(p *gradewire.NativeProgram) {
			p.Files["refund.go"] = "package refund\n\nimport \"example.com/x\"\n"
		}, `imports "example.com/x"`},
		{"the sandbox", func(p *gradewire.NativeProgram) {
			p.Files["x.go"] = "package refund\n\nimport \"github.com/faultline-dev/faultline/internal/sandbox\"\n"
		}, `imports "github.com/faultline-dev/faultline/internal/sandbox"`},
		{"the server's storage", func(p *gradewire.NativeProgram) {
			p.Files["x.go"] = "package refund\n\nimport \"github.com/faultline-dev/faultline/internal/storage\"\n"
		}, `imports "github.com/faultline-dev/faultline/internal/storage"`},
		{"kit outside the kits", func(p *gradewire.NativeProgram) { p.KitImport = "os/exec" }, "names the kit"},
		{"kit value with code", func(p *gradewire.NativeProgram) { p.KitValue = "refund.Kit{}; os.Exit(1)" }, "names the kit"},
		{"file in a folder", func(p *gradewire.NativeProgram) { p.Files["../x.go"] = "package refund\n" }, `file named "../x.go"`},
		{"test file", func(p *gradewire.NativeProgram) { p.Files["x_test.go"] = "package refund\n" }, `file named "x_test.go"`},
		{"no copies", func(p *gradewire.NativeProgram) { p.Copies = 0 }, "0 copies"},
		{"too many copies", func(p *gradewire.NativeProgram) { p.Copies = 1000 }, "1000 copies"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := ok()
			tt.change(p)
			if err := checkNative(p); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestNativeSourcesHoldTheNativeProgramsPackages: every package of the
// module a native program links (the engine and every kit, built as the
// referee builds them) is in faultline.NativeSources, with every file the
// go tool compiles; gopkg.in/yaml.v3 is the one module from outside.
func TestNativeSourcesHoldTheNativeProgramsPackages(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	files, err := treeFiles()
	if err != nil {
		t.Fatal(err)
	}
	// The kits: the packages right under internal/kits (their solutions
	// and helpers below are not linked).
	out, err := exec.Command("go", "list", "../kits/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	roots := []string{"../faultsim", "../faultsim/native"}
	for _, pkg := range strings.Fields(string(out)) {
		if rest, ok := strings.CutPrefix(pkg, modulePath+"/internal/kits/"); ok && !strings.Contains(rest, "/") {
			roots = append(roots, pkg)
		}
	}
	if len(roots) < 4 {
		t.Fatalf("found the kits %q", roots[2:])
	}
	out, err = exec.Command("go", append([]string{"list", "-deps", "-f",
		"{{if not .Standard}}{{.ImportPath}}\t{{join .GoFiles \" \"}}\t{{join .EmbedFiles \" \"}}{{end}}"}, roots...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var external []string
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue
		}
		parts := append(strings.Split(line, "\t"), "", "")
		pkg := parts[0]
		rel, ok := strings.CutPrefix(pkg, modulePath+"/")
		if !ok {
			external = append(external, pkg)
			continue
		}
		for _, name := range append(strings.Fields(parts[1]), strings.Fields(parts[2])...) {
			if _, ok := files[rel+"/"+name]; !ok {
				t.Errorf("%s/%s is not in faultline.NativeSources: add %s to the go:embed lines of sources.go", rel, name, rel)
			}
		}
	}
	if !slices.Equal(external, []string{"gopkg.in/yaml.v3"}) {
		t.Errorf("the native program links modules from outside %q; only gopkg.in/yaml.v3 is vendored (sources.go, third_party/)", external)
	}
	if _, ok := files["vendor/gopkg.in/yaml.v3/yaml.go"]; !ok {
		t.Error("the tree has no vendor/gopkg.in/yaml.v3/yaml.go")
	}
}

// TestNativeRouteFailed: a native report whose workers found no free copy
// of the code, or whose stand-ins did not bind, is the native route's
// failure, never a verdict on the code.
func TestNativeRouteFailed(t *testing.T) {
	withError := func(msg string) *gradewire.Report {
		return &gradewire.Report{Status: gradewire.StatusFail, Scenarios: []gradewire.ScenarioReport{{Name: "a", Status: gradewire.StatusFail,
			Invocations: []gradewire.InvocationResult{{Worker: "worker-2", Ended: "not-loaded", Error: msg}}}}}
	}
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		{"faultsim: all 6 native copies are in use: build more", true},
		{"faultsim: native copy 2 stands in for strings.ToUpper, which the interpreted route does not replace", true},
		{"faultsim: shared native copies need exactly one copy without package state (have 2)", true},
		{"loading the code panicked in package initialisation: boom", false},
	} {
		if got := nativeRouteFailed(withError(tt.msg)); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.msg, got, tt.want)
		}
	}
	// What the submission wrote itself, even in the same words, is no
	// failure of the route: it must not keep the interpreter's verdict.
	own := withError("faultsim: native copy 1 is mine")
	own.Scenarios[0].Invocations[0].Ended = "returned"
	own.Scenarios[0].Output = "faultsim: all 6 native copies are in use"
	if nativeRouteFailed(own) {
		t.Error("the submission's own output and returned error were taken for the native route's failure")
	}
}

// TestRefereeAndTheCompiler: code the Go compiler refuses is confirmed
// where the interpreter refused it too: a type error, and an unused
// variable, which the interpreter refuses at its line as the compiler
// does (it let it pass until 6 December, and the verdict was left
// unconfirmed).
func TestRefereeAndTheCompiler(t *testing.T) {
	svc, f, log := refereeService(t)
	const at = "backoff := time.Second"
	for _, tt := range []struct {
		name, with, outcome, message string
	}{
		{"type error", "backoff := time.Second + \"s\"", gradewire.RefereeConfirmed, "The Go compiler rejects this code too"},
		{"unused variable", "unused := 1\n\tbackoff := time.Second", gradewire.RefereeConfirmed, "The Go compiler rejects this code too"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(f.code.Reference, at, tt.with, 1)
			rep, err := svc.GradeKit(context.Background(), nil, refereeJob(f, src, nil), f.code.ScenarioNames, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Referee == nil || rep.Referee.Outcome != tt.outcome || !strings.Contains(rep.Referee.Message, tt.message) || rep.Referee.Native != "does not compile" {
				t.Errorf("status %s, referee %+v; want %s, saying %q", rep.Status, rep.Referee, tt.outcome, tt.message)
			}
		})
	}
	if got := log.all(); len(got) != 0 {
		t.Errorf("logged %+v", got)
	}
}
