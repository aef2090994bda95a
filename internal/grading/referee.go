package grading

// The native referee. The interpreter that grades submissions (yaegi,
// inside the grading child) can refuse valid Go, crash on it, or run it
// wrongly without a word; a candidate must never be blamed for that. So a
// Grade's verdict is checked: the grading child hands over the
// submission's native copy (interpreted.NativeSource, written before any
// of the submission runs), the referee builds it with the go tool into a
// program beside the grading engine and the kit, which links no
// interpreter (internal/faultsim/native), and runs that program under the
// same sandbox limits with the same job: the same scenarios and seed. If
// the two verdicts differ, the native report is the one shown, and the
// disagreement is logged for us (Service.Disagreements).
//
// The engine's and the kits' sources travel inside the binary
// (faultline.NativeSources, with gopkg.in/yaml.v3 as its module zip) and
// are written once per binary into the cache directory, as a module with
// a vendor directory: the build needs the go tool on PATH and nothing
// else, no module cache and no network (GOFLAGS=-mod=vendor, GOPROXY=off).
// The go tool's build cache lives in the same directory, so after the
// first build only the submission's copies and the link are rebuilt.

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	faultline "github.com/faultline-dev/faultline"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// modulePath is the module the native program is built in: the engine's
// and the kits' internal packages can be imported only from inside it.
const modulePath = "github.com/faultline-dev/faultline"

// DefaultBuildTimeout bounds one native build. A build with a warm cache
// takes well under a second; the first build of a server compiles the
// standard library's packages the engine uses, the engine and the kits
// (about a minute of CPU on two cores, measured by bench/referee.sh).
const DefaultBuildTimeout = 5 * time.Minute

// maxNativeCopies bounds the copies the child may ask for: a busiest run
// of a dozen calls, each restarted once, is far below it.
const maxNativeCopies = 64

// Referee builds and runs submissions natively to check the interpreter's
// verdict. The zero value is not usable: see NewReferee.
type Referee struct {
	// Go is the go tool; empty looks for "go" on PATH at every grade, so
	// a toolchain installed after start-up is found.
	Go string
	// CacheDir holds the module tree the native programs are built in
	// and the go tool's build cache.
	CacheDir string
	// Limits are the native program's sandbox limits: those of the
	// grading child.
	Limits sandbox.Limits
	// NoNamespaces runs the native program without new user and network
	// namespaces (as the grading child's Runner may).
	NoNamespaces bool
	// ConfineVia, when set, confines the native program by the kernel as
	// a grading child is (sandbox.Runner.ConfineVia: the server binary
	// and sandbox.ConfineExecCommand). Unset, it runs under the limits and
	// namespaces alone.
	ConfineVia []string
	// BuildTimeout bounds one build; zero is DefaultBuildTimeout.
	BuildTimeout time.Duration
	// GoCache is the go tool's build cache; empty is CacheDir/gocache.
	// (Tests share the developer's, which already holds the standard
	// library's packages.)
	GoCache string

	gate *refereeGate // admission.go
	mu   sync.Mutex
	tree string
}

// NewReferee is a referee that builds in cacheDir, runs native programs
// under limits, and builds or runs at most concurrent at once (the
// grading places: a build is as heavy as a grade).
func NewReferee(cacheDir string, limits sandbox.Limits, concurrent int) *Referee {
	return &Referee{CacheDir: cacheDir, Limits: limits, gate: newRefereeGate(concurrent)}
}

// DefaultRefereeCacheDir is the referee's cache directory when the server
// is given none: under the user's cache directory.
func DefaultRefereeCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "faultline", "referee")
}

// goTool is the go tool to build with, or an error when there is none.
func (r *Referee) goTool() (string, error) {
	if r.Go != "" {
		if _, err := os.Stat(r.Go); err != nil {
			return "", err
		}
		return r.Go, nil
	}
	return exec.LookPath("go")
}

// Disagreement is a grade whose native verdict differed from the
// interpreter's: what we need to find the interpreter's fault.
type Disagreement struct {
	Problem, Kit string
	// SourceHash is the SHA-256 of the source, in hex.
	SourceHash, Source  string
	Interpreted, Native string
}

// DisagreementLog keeps the referee's disagreements (the store's
// referee log, listed by `server referee-log`).
type DisagreementLog interface {
	LogDisagreement(ctx context.Context, d Disagreement) error
}

// SourceHash is the hex SHA-256 a disagreement names its source by.
func SourceHash(source string) string {
	sum := sha256.Sum256([]byte(source))
	return hex.EncodeToString(sum[:])
}

// Messages the candidate reads in the report.
const (
	msgNoToolchain = "This verdict is unconfirmed: the server has no Go toolchain on its PATH, so the native referee could not check the interpreter's verdict by compiling your code."
	msgOverruled   = "The interpreter that grades code here could not run this code faithfully (it said: %s). The same code compiled natively by the Go toolchain and graded with the same scenarios and seed %s; this report is the native one."
)

// judge checks rep, the interpreter's report of job, natively, and
// returns the report to show with the referee's word in it. low is for the
// check of a grade that hit its CPU or wall-clock limit, or of an address
// whose code ran long lately: it comes after the others' (refereeGate) and
// builds and runs at sandbox.LowNice.
func (s *Service) judge(ctx context.Context, g grade, job gradewire.Job, native *gradewire.NativeProgram, rep *gradewire.Report, low bool) *gradewire.Report {
	r := s.Referee
	verdict := rep.Verdict()
	word := func(outcome, message string) *gradewire.Report {
		rep.Referee = &gradewire.Referee{Outcome: outcome, Interpreted: verdict, Message: message}
		return rep
	}
	goTool, err := r.goTool()
	if err != nil {
		return word(gradewire.RefereeUnconfirmed, msgNoToolchain)
	}
	switch {
	case native == nil:
		return word(gradewire.RefereeUnconfirmed, "This verdict is unconfirmed: the grading child stopped before it handed your code to the native referee.")
	case native.Refused != "" && rep.Status == gradewire.StatusError:
		return word(gradewire.RefereeConfirmed, "The native referee cannot build this code either: "+native.Refused+".")
	case native.Refused != "":
		return word(gradewire.RefereeUnconfirmed, "This verdict is unconfirmed: the native referee cannot build this code: "+native.Refused+".")
	}
	leave, err := r.gate.enter(ctx, low)
	if err != nil {
		return word(gradewire.RefereeUnconfirmed, "This verdict is unconfirmed: the grade was stopped before the native referee ran.")
	}
	defer leave()
	nice := r.Limits.Nice // 0: the children's default
	if low {
		nice = sandbox.LowNice
	}
	t0 := time.Now()
	bin, cleanup, buildOut, err := r.build(ctx, goTool, native, nice)
	defer cleanup()
	buildMS := ms(time.Since(t0))
	var compileErr *compileError
	switch {
	case errors.As(err, &compileErr) && rep.Status == gradewire.StatusError:
		rep = word(gradewire.RefereeConfirmed, "The Go compiler rejects this code too.")
		rep.Referee.Native, rep.Referee.BuildMS = "does not compile", buildMS
		return rep
	case errors.As(err, &compileErr) && compileErr.inSubmission(native) != "":
		// The interpreter ran what the Go compiler refuses (yaegi lets
		// an unused variable or import pass): say so, and take nothing
		// from the candidate.
		rep = word(gradewire.RefereeUnconfirmed, "This verdict is unconfirmed: the Go compiler rejects this code, which the interpreter ran: "+compileErr.inSubmission(native))
		rep.Referee.Native, rep.Referee.BuildMS = "does not compile", buildMS
		return rep
	case err != nil:
		s.log.ErrorContext(ctx, "grading: the native referee could not build a submission", slog.String("kit", g.kit),
			slog.String("source_sha256", SourceHash(g.source)), slog.String("error", err.Error()), slog.String("output", lastLines(buildOut, 20)))
		rep = word(gradewire.RefereeUnconfirmed, "This verdict is unconfirmed: the native referee could not build your code (a fault of the grader, which is logged).")
		rep.Referee.BuildMS = buildMS
		return rep
	}
	t1 := time.Now()
	nrep, err := s.runNative(ctx, g, bin, job, nice)
	runMS := ms(time.Since(t1))
	if err != nil {
		s.log.ErrorContext(ctx, "grading: the native referee's program failed", slog.String("kit", g.kit), slog.String("error", err.Error()))
		rep = word(gradewire.RefereeUnconfirmed, "This verdict is unconfirmed: the native referee's run failed (a fault of the grader, which is logged).")
		rep.Referee.BuildMS, rep.Referee.RunMS = buildMS, runMS
		return rep
	}
	nverdict := nrep.Verdict()
	switch {
	case gradewire.SameVerdict(rep, nrep):
		rep = word(gradewire.RefereeConfirmed, "Confirmed: your code compiled natively by the Go toolchain gets the same verdict.")
	case nrep.Status == gradewire.StatusError || nativeRouteFailed(nrep):
		// The native program could not grade where the interpreter did:
		// never a reason to take a verdict away from the candidate.
		s.log.ErrorContext(ctx, "grading: the native referee could not grade what the interpreter graded", slog.String("kit", g.kit),
			slog.String("source_sha256", SourceHash(g.source)), slog.String("interpreted", verdict), slog.String("native", nverdict))
		rep = word(gradewire.RefereeUnconfirmed, "This verdict is unconfirmed: the native referee could not grade your code (a fault of the grader, which is logged).")
	default:
		nrep.Problem = rep.Problem
		nrep.Referee = &gradewire.Referee{Outcome: gradewire.RefereeOverruled, Interpreted: verdict,
			Message: fmt.Sprintf(msgOverruled, verdict, nverdict)}
		rep = nrep
		if s.Disagreements != nil {
			d := Disagreement{Problem: job.Problem, Kit: job.Kit, SourceHash: SourceHash(job.Source), Source: job.Source, Interpreted: verdict, Native: nverdict}
			if err := s.Disagreements.LogDisagreement(context.WithoutCancel(ctx), d); err != nil {
				s.log.ErrorContext(ctx, "grading: log the referee's disagreement", slog.String("error", err.Error()))
			}
		}
		s.log.InfoContext(ctx, "grading: the native referee overruled the interpreter", slog.String("kit", g.kit),
			slog.String("source_sha256", SourceHash(job.Source)), slog.String("interpreted", verdict), slog.String("native", nverdict))
	}
	rep.Referee.Native, rep.Referee.BuildMS, rep.Referee.RunMS = nverdict, buildMS, runMS
	return rep
}

// nativeRouteFailed reports whether the native report shows the native
// route itself failing (a worker that found no free copy of the code, a
// stand-in that did not bind): the engine's fault, which must never take
// a verdict from a candidate.
// Only a call that did not load says so: the rest of the report (what
// the submission printed, returned or panicked with) is the submission's
// own text, which must not be able to keep the interpreter's verdict.
func nativeRouteFailed(rep *gradewire.Report) bool {
	for _, s := range rep.Scenarios {
		for _, iv := range s.Invocations {
			if iv.Ended == "not-loaded" && nativeRouteRE().MatchString(iv.Error) {
				return true
			}
		}
	}
	return false
}

// nativeRouteRE matches native.NativeCopies's own load errors.
var nativeRouteRE = lazyRegexp(`faultsim: (all \d+ native copies are in use|native copy \d+|shared native copies)`)

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// runNative runs the native program bin on job under the sandbox's
// limits, as a grading child, and reads its report.
func (s *Service) runNative(ctx context.Context, g grade, bin string, job gradewire.Job, nice int) (*gradewire.Report, error) {
	limits := s.Referee.Limits
	limits.Nice = nice
	runner := &sandbox.Runner{Executable: bin, Args: []string{"native-referee"}, Limits: limits,
		NoNamespaces: s.Referee.NoNamespaces, Logger: s.log}
	if len(s.Referee.ConfineVia) > 0 {
		runner.Confine, runner.ConfineVia = &sandbox.ConfinePolicy{}, s.Referee.ConfineVia
	}
	job.Native, job.Lanes = false, 1
	input, err := json.Marshal(job)
	if err != nil {
		return nil, fmt.Errorf("grading: encode the native job: %w", err)
	}
	var stream resultStream
	out, err := runner.Run(ctx, input, stream.receive)
	if err != nil {
		return nil, fmt.Errorf("grading: run the native program: %w", err)
	}
	return s.interpret(ctx, g, out, &stream)
}

// compileError is a build that the go tool refused: the code does not
// compile (or its native copy does not).
type compileError struct{ output string }

func (e *compileError) Error() string { return "the native build failed:\n" + e.output }

// inSubmission is the compiler's first complaint about the submission's
// own file (not the shim beside it), as "file.go:12:3: message", or "".
func (e *compileError) inSubmission(native *gradewire.NativeProgram) string {
	for _, line := range strings.Split(e.output, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "./")
		rest, ok := strings.CutPrefix(line, "c0/")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, ":")
		if _, ok := native.Files[name]; ok && name != nativeShimName {
			return rest
		}
	}
	return ""
}

// nativeShimName is the shim interpreted.NativeSource writes beside the
// submission.
const nativeShimName = "faultline_native.go"

var (
	kitImportRE = lazyRegexp(`^github\.com/faultline-dev/faultline/internal/kits/[a-z0-9/]+$`)
	kitValueRE  = lazyRegexp(`^([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9]*)\{\}$`)
	fileRE      = lazyRegexp(`^[A-Za-z0-9_][A-Za-z0-9_.-]*\.go$`)
)

// lazyRegexp compiles expr on first use: every process of the binary links
// this package, the grading child included, and only a server's referee
// matches these (issue 25: a child does no package-level work it never
// uses).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// nativeImports are the standard packages a native program's package may
// import: the interpreted route's allowlist (gointerp.AllowedStdlib, which
// the parent cannot link; a test in internal/faultsim keeps the two
// equal). The module's own internal packages (the harness, the engine a
// shim names) are allowed besides.
var nativeImports = []string{
	"context", "errors", "fmt", "math/rand", "sort", "strconv", "strings", "sync", "sync/atomic", "time",
}

// NativeImports is nativeImports, for that test.
func NativeImports() []string { return slices.Clone(nativeImports) }

// checkNative refuses a native program that is not what a grading child
// writes: the child runs submitted code, so what it sends is checked
// before it reaches the go tool. No import outside the allowlist means no
// cgo, no unsafe (so no go:linkname), no embed, nothing of os or net.
func checkNative(p *gradewire.NativeProgram) error {
	if !kitImportRE().MatchString(p.KitImport) || !kitValueRE().MatchString(p.KitValue) {
		return fmt.Errorf("grading: the native program names the kit %q, %q", p.KitImport, p.KitValue)
	}
	if p.Copies < 1 || p.Copies > maxNativeCopies {
		return fmt.Errorf("grading: the native program asks for %d copies (at most %d)", p.Copies, maxNativeCopies)
	}
	if len(p.Files) == 0 {
		return errors.New("grading: the native program has no files")
	}
	for name, text := range p.Files {
		if !fileRE().MatchString(name) || strings.HasSuffix(name, "_test.go") {
			return fmt.Errorf("grading: the native program has a file named %q", name)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, text, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			continue // the compiler says what is wrong with it
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !slices.Contains(nativeImports, path) && !nativeInternalRE().MatchString(path) {
				return fmt.Errorf("grading: %s imports %q, which the grader does not allow", name, path)
			}
		}
	}
	return nil
}

// nativeInternalRE matches the module's own packages a native program may
// import: the engine, which the shims bind to, and the kits and their
// harnesses; never the sandbox, the server's packages or anything that
// runs processes.
var nativeInternalRE = lazyRegexp(`^` + regexp.QuoteMeta(modulePath) + `/internal/(faultsim(/native)?|grader/[a-z]+|kits/[a-z]+(/[a-z]+)?)$`)

// build writes native's copies and the driver into a directory of the
// module tree and builds them; cleanup removes that directory.
func (r *Referee) build(ctx context.Context, goTool string, native *gradewire.NativeProgram, nice int) (bin string, cleanup func(), output []byte, err error) {
	cleanup = func() {}
	if err := checkNative(native); err != nil {
		return "", cleanup, nil, err
	}
	tree, err := r.ensureTree()
	if err != nil {
		return "", cleanup, nil, err
	}
	dir, release, err := lockSlot(tree)
	if err != nil {
		return "", cleanup, nil, err
	}
	cleanup = release
	base := modulePath + "/referee/" + filepath.Base(dir)
	m := kitValueRE().FindStringSubmatch(native.KitValue)
	var imports, copies strings.Builder
	for c := range native.Copies {
		pkg := fmt.Sprintf("c%d", c)
		if err := os.Mkdir(filepath.Join(dir, pkg), 0o755); err != nil {
			return "", cleanup, nil, err
		}
		for name, text := range native.Files {
			if err := os.WriteFile(filepath.Join(dir, pkg, name), []byte(text), 0o644); err != nil {
				return "", cleanup, nil, err
			}
		}
		fmt.Fprintf(&imports, "\t%s %q\n", pkg, base+"/"+pkg)
		fmt.Fprintf(&copies, "%s.FaultlineCopy(), ", pkg)
	}
	main := fmt.Sprintf(nativeDriver, m[1], native.KitImport, imports.String(), copies.String(), native.KitValue)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		return "", cleanup, nil, err
	}
	bin = filepath.Join(dir, "native")
	timeout := r.BuildTimeout
	if timeout <= 0 {
		timeout = DefaultBuildTimeout
	}
	bctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := buildCommand(bctx, goTool, "build", "-ldflags=-s -w", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = r.buildEnv(goTool)
	cmd.WaitDelay = 5 * time.Second
	out, err := combinedOutputNiced(cmd, nice)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return bin, cleanup, out, nil
	case bctx.Err() != nil:
		return "", cleanup, out, fmt.Errorf("grading: the native build did not finish in %s: %w", timeout, bctx.Err())
	case errors.As(err, &exit) && bytes.Contains(out, []byte("# "+base+"/c")):
		// The go tool names a copy's package in what it refuses: the
		// code, not the tree, does not compile.
		return "", cleanup, out, &compileError{string(out)}
	}
	return "", cleanup, out, fmt.Errorf("grading: go build: %v", err)
}

// maxSlots bounds the build directories of one tree: builds at once, of
// every server sharing the cache directory.
const maxSlots = 64

// lockSlot takes a build directory of tree that no other build holds (a
// lock on its .lock file, so servers sharing the cache directory take
// different ones) and empties it. The directories keep their names from
// build to build: the go tool builds a main package at a path it has
// built before 0.3 s faster than one at a new path (measured with a warm
// cache: 0.35 s against 1.0 s). release empties the directory, so no
// submission stays on disk, and lets it go.
func lockSlot(tree string) (dir string, release func(), err error) {
	for i := range maxSlots {
		dir := filepath.Join(tree, "referee", fmt.Sprintf("s%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return "", nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			continue
		}
		empty := func() {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != ".lock" {
					os.RemoveAll(filepath.Join(dir, e.Name()))
				}
			}
		}
		empty()
		return dir, func() { empty(); f.Close() }, nil
	}
	return "", nil, fmt.Errorf("grading: all %d build directories of %s are in use", maxSlots, tree)
}

// Limits of a native build. The go tool only compiles the submission
// (the imports it may name leave no way to run code at build time: no
// cgo, no unsafe, no embed), but a file can still ask the compiler for a
// great deal of memory or time; these bound what one build can take from
// the server. The compiler and the linker of a warm build use about
// 300 MiB and a second of CPU.
const (
	buildAddressSpace = 4 << 30
	buildCPUSeconds   = 300
)

// buildCommand runs the go tool with args under prlimit's limits when
// prlimit is there (the sandbox needs it anyway), else as it is.
func buildCommand(ctx context.Context, goTool string, args ...string) *exec.Cmd {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		if _, serr := os.Stat(sandbox.DefaultPrlimitPath); serr != nil {
			return exec.CommandContext(ctx, goTool, args...)
		}
		prlimit = sandbox.DefaultPrlimitPath
	}
	limits := []string{fmt.Sprintf("--as=%d", buildAddressSpace), fmt.Sprintf("--cpu=%d", buildCPUSeconds), "--core=0", "--", goTool}
	return exec.CommandContext(ctx, prlimit, append(limits, args...)...)
}

// Builds take no -trimpath: the standard library's packages then have the
// cache keys of any other build with the same go tool, so a referee given
// the go tool's own cache (GoCache: the tests, a developer's server) finds
// them compiled already.

// buildEnv is the go tool's whole environment: nothing of the server's
// but where the tool is, no network, no module download, no toolchain
// switch, no cgo, and the build cache in the referee's cache directory.
func (r *Referee) buildEnv(goTool string) []string {
	cache := r.GoCache
	if cache == "" {
		cache = filepath.Join(r.CacheDir, "gocache")
	}
	return []string{
		"PATH=" + filepath.Dir(goTool) + string(os.PathListSeparator) + "/usr/bin:/bin",
		"HOME=" + r.CacheDir,
		"GOCACHE=" + cache,
		"GOPATH=" + filepath.Join(r.CacheDir, "gopath"),
		"GOMODCACHE=" + filepath.Join(r.CacheDir, "gopath", "mod"),
		"GOFLAGS=-mod=vendor",
		"GOPROXY=off",
		"GONOSUMDB=*",
		"GOTOOLCHAIN=local",
		"GOWORK=off",
		"GOTELEMETRY=off",
		"GOENV=off",
		"CGO_ENABLED=0",
		"TMPDIR=" + filepath.Join(r.CacheDir, "tmp"),
	}
}

// nativeDriver is the native program's main: it grades the job on stdin
// through the copies and writes the result lines on fd 3, as a grading
// child does (native.ServeNative).
const nativeDriver = `// Code generated by the native referee. DO NOT EDIT.

package main

import (
	"fmt"
	"os"

	"github.com/faultline-dev/faultline/internal/faultsim/native"
	%s %q
%s)

func main() {
	results := os.NewFile(3, "results")
	copies := func() []native.NativeCopy { return []native.NativeCopy{%s} }
	if err := native.ServeNative(os.Stdin, results, %s, copies); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}
`

// ensureTree writes the module tree the native programs are built in,
// once per binary (its directory is named by a hash of what it holds, so
// a new binary gets a new tree and keeps the build cache), and returns
// its directory.
func (r *Referee) ensureTree() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tree != "" {
		return r.tree, nil
	}
	files, err := treeFiles()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(files[name]))
		h.Write(files[name])
	}
	dir := filepath.Join(r.CacheDir, "tree-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		r.tree = dir
		return dir, nil
	}
	for _, d := range []string{r.CacheDir, filepath.Join(r.CacheDir, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", fmt.Errorf("grading: the referee's cache directory: %w", err)
		}
	}
	tmp, err := os.MkdirTemp(r.CacheDir, "tree-new")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	for _, name := range names {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return "", err
		}
	}
	for _, d := range []string{"referee"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o755); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, ".complete")); serr != nil {
			return "", fmt.Errorf("grading: write the referee's module tree: %w", err)
		}
		// Another server sharing the cache wrote it first.
	}
	r.tree = dir
	return dir, nil
}

// treeFiles are the module tree's files by slash path: the module's own
// sources (faultline.NativeSources), a go.mod that requires only
// gopkg.in/yaml.v3, and that module in vendor/.
func treeFiles() (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(faultline.NativeSources, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "go.mod" || name == faultline.NativeYAMLZip {
			return err
		}
		files[name], err = faultline.NativeSources.ReadFile(name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("grading: read the embedded sources: %w", err)
	}
	gomod, err := faultline.NativeSources.ReadFile("go.mod")
	if err != nil {
		return nil, err
	}
	goLine, yamlVersion := "", ""
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "go":
			goLine = f[1]
		case len(f) >= 2 && f[0] == "gopkg.in/yaml.v3":
			yamlVersion = f[1]
		case len(f) >= 3 && f[0] == "require" && f[1] == "gopkg.in/yaml.v3":
			yamlVersion = f[2]
		}
	}
	if goLine == "" || yamlVersion == "" || !strings.Contains(faultline.NativeYAMLZip, "-"+yamlVersion+".zip") {
		return nil, fmt.Errorf("grading: go.mod (go %q, gopkg.in/yaml.v3 %q) does not match the embedded %s", goLine, yamlVersion, faultline.NativeYAMLZip)
	}
	files["go.mod"] = fmt.Appendf(nil, "module %s\n\ngo %s\n\nrequire gopkg.in/yaml.v3 %s\n", modulePath, goLine, yamlVersion)
	files["vendor/modules.txt"] = fmt.Appendf(nil, "# gopkg.in/yaml.v3 %s\n## explicit\ngopkg.in/yaml.v3\n", yamlVersion)
	data, err := faultline.NativeSources.ReadFile(faultline.NativeYAMLZip)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("grading: %s: %w", faultline.NativeYAMLZip, err)
	}
	prefix := "gopkg.in/yaml.v3@" + yamlVersion + "/"
	for _, f := range zr.File {
		rest, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || strings.Contains(rest, "/") || (!strings.HasSuffix(rest, ".go") && rest != "LICENSE" && rest != "NOTICE") || strings.HasSuffix(rest, "_test.go") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		files[path.Join("vendor/gopkg.in/yaml.v3", rest)] = b
	}
	return files, nil
}

// Warm writes the module tree and compiles what every native program
// links (the standard packages, the engine, the kits) into the build
// cache, so that the first Grade's build is as fast as any later one.
// The server calls it at start-up; the Docker image's build runs it.
func (r *Referee) Warm(ctx context.Context) error {
	goTool, err := r.goTool()
	if err != nil {
		return fmt.Errorf("grading: warm the native referee: no go tool: %w", err)
	}
	tree, err := r.ensureTree()
	if err != nil {
		return err
	}
	timeout := r.BuildTimeout
	if timeout <= 0 {
		timeout = DefaultBuildTimeout
	}
	bctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The driver's own imports (os, fmt) come with the engine's.
	cmd := buildCommand(bctx, goTool, "build", "./internal/faultsim", "./internal/faultsim/native", "./internal/kits/...")
	cmd.Dir = tree
	cmd.Env = r.buildEnv(goTool)
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("grading: warm the native referee: go build: %v\n%s", err, lastLines(out, 20))
	}
	return nil
}

// combinedOutputNiced is cmd.CombinedOutput with cmd started at nice (0:
// the grading children's default, sandbox.DefaultNice): the build is as
// heavy as a grade and yields to the server as the children do.
func combinedOutputNiced(cmd *exec.Cmd, nice int) ([]byte, error) {
	if nice <= 0 {
		nice = sandbox.DefaultNice
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := sandbox.StartNiced(cmd, nice); err != nil {
		return out.Bytes(), err
	}
	err := cmd.Wait()
	return out.Bytes(), err
}
