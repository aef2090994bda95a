// Command gotests measures the interpreter the grader runs submissions in
// (internal/gointerp, with its rewrites, as the grading child uses it:
// ParseSource, NewInterpreter, Eval) against Go's own test programs: the
// "// run" programs of $(go env GOROOT)/test and its subdirectories, and
// yaegi's own _test programs, that import only the interpreter's allowed
// packages. Each program runs three ways:
//
//   - natively: built by the go tool as Go 1.26 code in a module of its
//     own and run; its output and exit status are the reference;
//   - through our interpreter, in a child process (this binary with
//     -child ours), so a crash or a hang of one program ends only it;
//   - through plain yaegi (interp.New with the whole stdlib table, no
//     rewrites), likewise in a child (-child yaegi).
//
// Output is stdout and stderr together, as Go's test runner compares them
// (yaegi's println writes to stdout, Go's to stderr); when a program exits
// non-zero, only what came before its "panic:" or "fatal error:" line is
// compared, with the exit status. A program the interpreter refuses (the
// rewrites refuse it, or it does not compile) is a refusal; one it accepts
// and runs to a different output or status is a silent divergence, unless
// the grading child would have said it could not run it: stopped at one of
// the child's limits or by a crash, or failed with a panic of the
// interpreter's own, for which the native referee grades the code (see
// tally). A refusal of a program plain yaegi runs right is a false refusal.
//
// With -base BIN, BIN (this command built against another version of
// internal/gointerp, as bench/gotests.sh does for main) runs each program
// through its interpreter too, and the figures are printed side by side.
// Native and plain-yaegi results depend only on the program and the
// toolchain, so they are cached (-cache) across runs.
//
// usage:
//
//	go run ./bench/gotests [-j 2] [-timeout 10s] [-base BIN] [-cache DIR] [-list] [-only REGEXP]
//
// Every run is bounded: -j child processes at once, each killed after
// -timeout.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/faultline-dev/faultline/internal/gointerp"
)

// Exit statuses of a child run (besides the program's own 0 and 2).
const (
	exitRefused = 3   // our interpreter or yaegi refused the program
	exitTimeout = 124 // killed by the parent after its wall-clock limit
	exitCPU     = 125 // killed by the kernel at its CPU-time limit
)

// The grading child's own limits (internal/sandbox's DefaultWallTime and
// DefaultCPUTime; this command may not import the sandbox). A run of our
// interpreter is given these, not -timeout: a program that runs past them
// interpreted is stopped in the product too, and a stopped grade (a Check
// as well as a Grade) is graded by the native referee
// (internal/grading.Service.GradeKit), so it is a limit hit, not a silent
// divergence, only where it would be one for a user.
const (
	productWallTime = 20 * time.Second
	productCPUTime  = 10 // seconds
)

func main() {
	child := flag.String("child", "", "internal: run one program (the argument) through `ours` or `yaegi` and exit")
	jobs := flag.Int("j", 2, "programs run at once (at most 2 on a shared machine)")
	timeout := flag.Duration("timeout", 10*time.Second, "limit for one run of one program")
	base := flag.String("base", "", "a gotests binary built against another internal/gointerp, to compare side by side")
	cache := flag.String("cache", defaultCache(), "directory caching native and plain-yaegi results")
	list := flag.Bool("list", false, "list every program with its results")
	only := flag.String("only", "", "run only programs whose path matches this regexp")
	flag.Parse()
	if *child != "" {
		runChild(*child, flag.Arg(0))
		return
	}
	if *jobs < 1 || *jobs > 2 {
		fatalf("-j must be 1 or 2")
	}
	var onlyRE *regexp.Regexp
	if *only != "" {
		onlyRE = regexp.MustCompile(*only)
	}
	progs, err := collect(onlyRE)
	if err != nil {
		fatalf("%v", err)
	}
	self, err := os.Executable()
	if err != nil {
		fatalf("%v", err)
	}
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		fatalf("%v", err)
	}
	r := &runner{self: self, base: *base, timeout: *timeout, cache: *cache}
	start := time.Now()
	sem := make(chan struct{}, *jobs)
	var wg sync.WaitGroup
	for _, p := range progs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r.run(p)
		}()
	}
	wg.Wait()
	report(progs, *base != "", *list, time.Since(start))
}

func fatalf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "gotests: "+format+"\n", a...)
	os.Exit(1)
}

func defaultCache() string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "faultline-gotests")
}

// program is one test program and its results.
type program struct {
	Path  string // as listed: "go/test/fixedbugs/issue1234.go", "yaegi/_test/foo.go"
	file  string // on disk
	text  string
	Nat   result // native, the reference
	Yaegi result
	Ours  result
	Base  result // -base binary's interpreter
}

// result is one run: the output compared and how the run ended.
type result struct {
	Out     string
	Exit    int
	Refusal string // exitRefused: the first message
	Panic   string // a failed run: its panic or fatal error line
	Skip    string // native only: why the program is not counted
}

var (
	runLine    = regexp.MustCompile(`^// run\s*$`)
	yaegiError = regexp.MustCompile(`(?m)^// Error:`)
)

// collect finds the programs: Go's "// run" tests and yaegi's _test
// programs, package main, importing only allowed packages, in path order.
func collect(only *regexp.Regexp) ([]*program, error) {
	goroot := strings.TrimSpace(goEnv("GOROOT"))
	modcache := strings.TrimSpace(goEnv("GOMODCACHE"))
	allowed := map[string]bool{}
	for _, p := range gointerp.AllowedStdlib {
		allowed[p] = true
	}
	var progs []*program
	add := func(label, file string, goTest bool) error {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		text := string(b)
		if goTest {
			first := ""
			for _, l := range strings.Split(text, "\n") {
				if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "//go:build") || strings.HasPrefix(l, "// +build") {
					continue
				}
				first = l
				break
			}
			if !runLine.MatchString(first) {
				return nil
			}
		} else if yaegiError.MatchString(text) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, text, parser.ImportsOnly|parser.ParseComments)
		if err != nil || f.Name.Name != "main" || !buildsHere(f.Comments, f.Package) {
			return nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !allowed[p] {
				return nil
			}
		}
		if only != nil && !only.MatchString(label) {
			return nil
		}
		progs = append(progs, &program{Path: label, file: file, text: text})
		return nil
	}
	testDir := filepath.Join(goroot, "test")
	err := filepath.WalkDir(testDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// x.dir holds the packages of a multi-file test, not programs.
			if strings.HasSuffix(path, ".dir") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(testDir, path)
		return add("go/test/"+rel, path, true)
	})
	if err != nil {
		return nil, err
	}
	ydir := filepath.Join(modcache, "github.com/traefik/yaegi@v0.16.1/_test")
	files, _ := filepath.Glob(filepath.Join(ydir, "*.go"))
	if len(files) == 0 {
		return nil, fmt.Errorf("no yaegi _test programs in %s (go mod download github.com/traefik/yaegi)", ydir)
	}
	for _, f := range files {
		if err := add("yaegi/_test/"+filepath.Base(f), f, false); err != nil {
			return nil, err
		}
	}
	sort.Slice(progs, func(a, b int) bool { return progs[a].Path < progs[b].Path })
	return progs, nil
}

// buildsHere reports whether the file's build constraint, if any, holds
// on this machine with no tags set.
func buildsHere(comments []*ast.CommentGroup, pkg token.Pos) bool {
	for _, g := range comments {
		if g.Pos() >= pkg {
			break
		}
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			x, err := constraint.Parse(c.Text)
			if err != nil {
				return false
			}
			return x.Eval(func(tag string) bool {
				return tag == runtime.GOOS || tag == runtime.GOARCH || tag == "gc" || tag == "unix" && runtime.GOOS != "windows" ||
					strings.HasPrefix(tag, "go1.")
			})
		}
	}
	return true
}

func goEnv(name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		fatalf("go env %s: %v", name, err)
	}
	return string(out)
}

type runner struct {
	self, base string
	timeout    time.Duration
	cache      string
	mu         sync.Mutex
}

func (r *runner) run(p *program) {
	p.Nat = r.cached(p, "native", func() result { return r.native(p) })
	if p.Nat.Skip != "" {
		return
	}
	p.Yaegi = r.cached(p, "yaegi", func() result { return r.childRun(r.self, "yaegi", p) })
	p.Ours = r.childRun(r.self, "ours", p)
	if r.base != "" {
		p.Base = r.childRun(r.base, "ours", p)
	}
	// A program whose output is not the same from run to run (it prints
	// the time, or addresses) is not counted: a second native run, for
	// the programs an interpreter disagrees with, tells.
	if !agrees(p.Nat, p.Ours) || !agrees(p.Nat, p.Yaegi) || r.base != "" && !agrees(p.Nat, p.Base) {
		again := r.cached(p, "native-again", func() result { return r.native(p) })
		if again.Skip == "" && !agrees(p.Nat, again) {
			p.Nat.Skip = "its output varies from one native run to the next"
		}
	}
}

// cached returns the result of kind for p from the cache, or computes and
// stores it. The key is the program's text, the toolchain and the timeout.
func (r *runner) cached(p *program, kind string, compute func() result) result {
	h := sha256.Sum256([]byte(kind + "\x00" + runtime.Version() + "\x00" + r.timeout.String() + "\x00" + p.text))
	path := filepath.Join(r.cache, kind+"-"+hex.EncodeToString(h[:12])+".json")
	if b, err := os.ReadFile(path); err == nil {
		var res result
		if json.Unmarshal(b, &res) == nil {
			return res
		}
	}
	res := compute()
	if b, err := json.Marshal(res); err == nil {
		_ = os.WriteFile(path, b, 0o644)
	}
	return res
}

// native builds p as a module of its own (Go 1.26 language rules) and runs
// it. A program that does not build here or runs too long is skipped.
func (r *runner) native(p *program) result {
	dir, err := os.MkdirTemp("", "gotests")
	if err != nil {
		fatalf("%v", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module prog\n\ngo 1.26\n"), 0o644); err != nil {
		fatalf("%v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(p.text), 0o644); err != nil {
		fatalf("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", "prog", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return result{Skip: "does not build natively: " + firstLine(string(out))}
	}
	res := r.exec(filepath.Join(dir, "prog"), nil, dir, r.timeout)
	if res.Exit == exitTimeout {
		return result{Skip: "runs longer than the timeout natively"}
	}
	return res
}

// childRun runs p through bin -child mode. Our interpreter runs under the
// grading child's limits (productWallTime, productCPUTime: the child sets
// the CPU one on itself), plain yaegi under -timeout.
func (r *runner) childRun(bin, mode string, p *program) result {
	limit := r.timeout
	if mode == "ours" {
		limit = max(limit, productWallTime)
	}
	return r.exec(bin, []string{"-child", mode, p.file}, filepath.Dir(p.file), limit)
}

// exec runs a command with stdout and stderr together, and the child's
// refusal message on fd 3, killed after limit.
func (r *runner) exec(bin string, args []string, dir string, limit time.Duration) result {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2", "GOTRACEBACK=single")
	pr, pw, err := os.Pipe()
	if err != nil {
		fatalf("%v", err)
	}
	cmd.ExtraFiles = []*os.File{pw}
	cmd.WaitDelay = time.Second
	var msg bytes.Buffer
	done := make(chan struct{})
	go func() { _, _ = msg.ReadFrom(pr); close(done) }()
	err = cmd.Run()
	pw.Close()
	<-done
	pr.Close()
	res := result{}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.Exit = exitTimeout
	case errors.As(err, &ee) && killed(ee):
		res.Exit = exitCPU // nothing else here sends SIGKILL
	case errors.As(err, &ee):
		res.Exit = ee.ExitCode()
	case err != nil:
		fatalf("%s: %v", bin, err)
	}
	if out.Len() > 1<<20 {
		out.Truncate(1 << 20)
	}
	res.Out = out.String()
	if res.Exit == exitRefused {
		res.Refusal = strings.TrimSpace(msg.String())
	}
	if res.Exit != 0 {
		res.Out, res.Panic = beforePanic(res.Out)
	}
	return res
}

// killed reports whether the process was killed by SIGKILL: the kernel's
// answer to a run past its hard CPU-time limit.
func killed(ee *exec.ExitError) bool {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

var panicLine = regexp.MustCompile(`(?m)^(panic: |fatal error: |\[signal )`)

// beforePanic is what a failed run printed before its panic report, and
// the report's first line.
func beforePanic(s string) (string, string) {
	if loc := panicLine.FindStringIndex(s); loc != nil {
		return s[:loc[0]], firstLine(s[loc[0]:])
	}
	return s, ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		s = s[:k]
	}
	return s
}

// runChild runs one program through an interpreter in this process, with
// the program's output on stdout, and exits: 0, 2 for a panic (as a
// native program does), exitRefused with the message on fd 3.
func runChild(mode, file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		fatalf("%v", err)
	}
	refuse := func(msg string) {
		f := os.NewFile(3, "refusal")
		fmt.Fprintln(f, msg)
		os.Exit(exitRefused)
	}
	out := os.Stdout
	switch mode {
	case "ours":
		// The grading child's CPU limit (prlimit --cpu sets both soft and
		// hard; at the hard limit the kernel sends SIGKILL).
		lim := syscall.Rlimit{Cur: productCPUTime, Max: productCPUTime}
		if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &lim); err != nil {
			fatalf("set the CPU limit: %v", err)
		}
		src, diags := gointerp.ParseSource(filepath.Base(file), string(b), nil)
		if diags != nil {
			refuse(diags[0].String())
		}
		i, err := gointerp.NewInterpreter(gointerp.InterpreterOptions{Stdout: out, Stderr: out})
		if err != nil {
			fatalf("%v", err)
		}
		if diags := gointerp.Eval(i, src); diags != nil {
			// Eval reports a panic of the program (main runs inside it)
			// with this prefix; anything else is a compile error or the
			// interpreter's own failure.
			if m, ok := strings.CutPrefix(diags[0].Message, "loading the code panicked in package initialisation: "); ok {
				fmt.Fprintf(out, "panic: %s\n", m)
				os.Exit(2)
			}
			refuse(diags[0].String())
		}
	case "yaegi":
		i := interp.New(interp.Options{Stdout: out, Stderr: out, GoPath: "/nonexistent/gotests-gopath", Args: []string{file}})
		if err := i.Use(stdlib.Symbols); err != nil {
			fatalf("%v", err)
		}
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("interpreter panic: %v", r)
				}
			}()
			_, err = i.Eval(string(b))
			return err
		}()
		if p := (interp.Panic{}); errors.As(err, &p) {
			fmt.Fprintf(out, "panic: %v\n", p.Value)
			os.Exit(2)
		}
		if err != nil {
			refuse(err.Error())
		}
	default:
		fatalf("-child: unknown mode %q", mode)
	}
	os.Exit(0)
}

// agrees reports whether an interpreted run gave the native result.
func agrees(nat, got result) bool {
	return got.Exit == nat.Exit && got.Out == nat.Out
}

// tally is the figures for one interpreter.
//
// A run that differs from the native one is put in one of three lists:
//   - stopped: it ran past the grading child's wall-clock or CPU limit,
//     or died of a fatal error (a stack overflow of deep recursion)
//     where the native run did not. A grading child stopped so gives no
//     verdict, and the native referee grades the code, for a Check as
//     for a Grade (internal/grading.Service.GradeKit);
//   - interpreter failed: it ended in a panic of yaegi's own machinery
//     (gointerp.IsInterpreterPanic), which the grading child reports as
//     the interpreter's failure, not the code's (blameInterpreter in
//     internal/faultsim/interpreted), and the referee grades the code;
//   - silent: anything else, a wrong answer no one is told of.
//
// The first two are what happens to a user whose code the interpreter
// cannot run: they are not silent, but they are not agreement either, so
// both figures are printed: agreement on every accepted program, and on
// the accepted programs the interpreter answered (those not stopped and
// not failed), where the target applies. The lists are the same for
// every column, plain yaegi's included, though plain yaegi has no referee.
type tally struct {
	run, accepted, agree, refused, rawRefused int
	silent, stopped, failed, falseRefusals    []string
}

func count(progs []*program, pick func(*program) result) tally {
	var t tally
	for _, p := range progs {
		if p.Nat.Skip != "" {
			continue
		}
		t.run++
		got := pick(p)
		if got.Exit == exitRefused {
			t.refused++
			if !strings.HasPrefix(got.Refusal, "line ") {
				t.rawRefused++
			}
			if agrees(p.Nat, p.Yaegi) {
				t.falseRefusals = append(t.falseRefusals, p.Path+": "+oneLine(got.Refusal))
			}
			continue
		}
		t.accepted++
		if agrees(p.Nat, got) {
			t.agree++
			continue
		}
		switch {
		case stopped(got):
			t.stopped = append(t.stopped, p.Path+": "+describe(p.Nat, got))
		case got.Exit == 2 && gointerp.IsInterpreterPanic(strings.TrimPrefix(got.Panic, "panic: ")):
			t.failed = append(t.failed, p.Path+": "+describe(p.Nat, got))
		default:
			t.silent = append(t.silent, p.Path+": "+describe(p.Nat, got))
		}
	}
	return t
}

// stopped reports a run stopped at a limit of the grading child's, or
// ended by a fatal error (which ends a grading child as it ends a program).
func stopped(got result) bool {
	return got.Exit == exitTimeout || got.Exit == exitCPU || strings.HasPrefix(got.Panic, "fatal error: ")
}

// describe says how a run differs from the native one.
func describe(nat, got result) string {
	switch {
	case got.Exit == exitTimeout:
		return "timeout"
	case got.Exit == exitCPU:
		return "CPU time limit"
	case got.Exit != nat.Exit && got.Panic != "":
		return fmt.Sprintf("exit %d, native %d: %s; %s", got.Exit, nat.Exit, clip(got.Panic), firstDiff(nat.Out, got.Out))
	case got.Exit != nat.Exit:
		return fmt.Sprintf("exit %d, native %d; %s", got.Exit, nat.Exit, firstDiff(nat.Out, got.Out))
	}
	return firstDiff(nat.Out, got.Out)
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for k := 0; k < len(w) || k < len(g); k++ {
		var wl, gl string
		if k < len(w) {
			wl = w[k]
		}
		if k < len(g) {
			gl = g[k]
		}
		if wl != gl {
			return fmt.Sprintf("line %d: got %q, want %q", k+1, clip(gl), clip(wl))
		}
	}
	return "same output"
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " | ")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

func report(progs []*program, withBase bool, list bool, took time.Duration) {
	skipped := 0
	for _, p := range progs {
		if p.Nat.Skip != "" {
			skipped++
		}
	}
	ours := count(progs, func(p *program) result { return p.Ours })
	yaegi := count(progs, func(p *program) result { return p.Yaegi })
	var base tally
	if withBase {
		base = count(progs, func(p *program) result { return p.Base })
	}
	fmt.Printf("programs found: %d (%d skipped: no native build, too slow or output varying natively); took %s\n", len(progs), skipped, took.Round(time.Second))
	row := func(name string, f func(t tally) string) {
		if withBase {
			fmt.Printf("%-42s %12s %12s %12s\n", name, f(base), f(ours), f(yaegi))
		} else {
			fmt.Printf("%-42s %12s %12s\n", name, f(ours), f(yaegi))
		}
	}
	if withBase {
		fmt.Printf("%-42s %12s %12s %12s\n", "", "base", "this tree", "plain yaegi")
	} else {
		fmt.Printf("%-42s %12s %12s\n", "", "this tree", "plain yaegi")
	}
	row("programs run", func(t tally) string { return strconv.Itoa(t.run) })
	row("agree with native", func(t tally) string { return strconv.Itoa(t.agree) })
	row("accepted", func(t tally) string { return strconv.Itoa(t.accepted) })
	percent := func(a, b int) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
	}
	row("agreement on accepted", func(t tally) string { return percent(t.agree, t.accepted) })
	row("  stopped: limit hit or crash (referee)", func(t tally) string { return strconv.Itoa(len(t.stopped)) })
	row("  interpreter failed, said so (referee)", func(t tally) string { return strconv.Itoa(len(t.failed)) })
	row("answered (accepted, not stopped or failed)", func(t tally) string { return strconv.Itoa(t.accepted - len(t.stopped) - len(t.failed)) })
	row("agreement on answered (target >= 99%)", func(t tally) string {
		return percent(t.agree, t.accepted-len(t.stopped)-len(t.failed))
	})
	row("silent divergences", func(t tally) string { return strconv.Itoa(len(t.silent)) })
	row("refusals", func(t tally) string { return strconv.Itoa(t.refused) })
	row("  of which with no line (raw crash)", func(t tally) string { return strconv.Itoa(t.rawRefused) })
	row("false refusals (plain yaegi runs it right)", func(t tally) string { return strconv.Itoa(len(t.falseRefusals)) })
	fmt.Printf("\nsilent divergences (this tree):\n")
	for _, s := range ours.silent {
		fmt.Printf("  %s\n", s)
	}
	fmt.Printf("\nstopped at a limit or by a crash, graded by the native referee in the product (this tree):\n")
	for _, s := range ours.stopped {
		fmt.Printf("  %s\n", s)
	}
	fmt.Printf("\ninterpreter failed and said so, graded by the native referee in the product (this tree):\n")
	for _, s := range ours.failed {
		fmt.Printf("  %s\n", s)
	}
	fmt.Printf("\nfalse refusals (this tree):\n")
	for _, s := range ours.falseRefusals {
		fmt.Printf("  %s\n", s)
	}
	if list {
		fmt.Printf("\nevery program (native exit, [base,] this tree, plain yaegi):\n")
		for _, p := range progs {
			if p.Nat.Skip != "" {
				fmt.Printf("  %s: skipped: %s\n", p.Path, p.Nat.Skip)
				continue
			}
			b := ""
			if withBase {
				b = ", base " + verdict(p.Nat, p.Base)
			}
			fmt.Printf("  %s: native %d%s, ours %s, yaegi %s\n", p.Path, p.Nat.Exit, b, verdict(p.Nat, p.Ours), verdict(p.Nat, p.Yaegi))
		}
	}
}

func verdict(nat, got result) string {
	switch {
	case got.Exit == exitRefused:
		return "refused (" + oneLine(got.Refusal) + ")"
	case agrees(nat, got):
		return "agrees"
	}
	return "differs (" + describe(nat, got) + ")"
}
