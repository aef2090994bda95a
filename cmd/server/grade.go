package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/storage"
)

// gradeExitNotGraded is `server grade`'s exit status when the file could
// not be graded (compile error, forbidden import, a limit) or on bad
// usage; otherwise the report's own ExitCode decides (0 held, 1 violated).
const gradeExitNotGraded = 2

const gradeUsage = `usage: server grade [-content DIR] [-problem SLUG] [-seed N] [-seeds N] [-json] [-referee=false] [-db DB] FILE.go|FILE.py

Grades FILE.go against the problem's fault scenarios in a sandboxed child
process and prints the report. A problem is graded against its scenarios file
(refund's package refund with RefundMoney, createclient's) as it is now in the
content folder (-content DIR, or the content built into the server), with no
rebuild.

FILE.py is graded as Python (the extension decides): refund's
async def refund_money(request_id) against its refundkit module, under the
same scenarios, by python3 (3.11 or later), in processes the kernel confines
(no socket, no process past its own, nothing written, nothing read outside the
Python installation). Where the kernel lacks part of that confinement, Python
grading runs only with FAULTLINE_PYTHON_UNCONFINED=1; stderr says which.

The verdict of a Go file is checked by the native referee: the file is built
natively with the go tool on PATH and graded with the same scenarios and seed;
where the two verdicts differ, the native report is printed (and kept in -db
when given).

Exit status: 0 every invariant held, 1 some were violated, 2 the file could not
be graded (compile error, forbidden import, a resource limit) or bad usage.

Flags:
`

// gradeCommand is `server grade`. It never interprets the file itself: the
// grading runs in a child process under the sandbox's limits.
func gradeCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	problem := fs.String("problem", defaultGradeProblem, "the problem whose scenarios grade the file")
	seed := fs.Int64("seed", 1, "seed of the schedules and jitter; the same seed reproduces a run exactly")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of text")
	contentDir := fs.String("content", "", "content folder to read the problem from (default: the content built into the server)")
	seeds := fs.Int("seeds", grading.DefaultSeeds, "schedules explored per scenario (not refund's, which say how many)")
	var ref refereeFlags
	ref.define(fs, envOr)
	db := fs.String("db", "", "keep a disagreement of the native referee in this database (SQLite file or postgres:// URL), for server referee-log")
	fs.Usage = func() {
		fmt.Fprint(stderr, gradeUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return gradeExitNotGraded // the flag package has said what was wrong
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "grade: want exactly one FILE.go or FILE.py, got %d arguments\n", fs.NArg())
		fs.Usage()
		return gradeExitNotGraded
	}
	collectOnlyNearLimit()
	// The child starts while the content is read: its start-up (exec,
	// limits, the binary's package init) overlaps the reading.
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	newPool := grading.NewPool
	if faultsim.LangOf(fs.Arg(0)) == faultsim.LangPython {
		newPool = grading.NewPythonPool // the spare is the Python job's child
	}
	pool := newPool(sandbox.DefaultLimits(), log, 1, 0)
	pool.Prestart()
	defer pool.Close()
	code, exit := kitProblem(*contentDir, *problem, stderr)
	if exit != 0 {
		return exit
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "seeds" && scenariosSetTheirSeeds(code) {
			fmt.Fprintf(stderr, "grade: note: -seeds has no effect on %s: each of its scenarios says how many schedules it explores\n", *problem)
		}
	})
	return gradeWithKit(ctx, pool, log, *problem, code, fs.Arg(0), *seed, *seeds, *asJSON, gradeReferee{ref, *db}, stdout, stderr)
}

// gradeMemoryLimit is the heap `server grade` lets grow before it
// collects (see collectOnlyNearLimit): far more than it holds, a job and
// its report, and less than a small machine has to spare.
const gradeMemoryLimit = 256 << 20

// collectOnlyNearLimit turns off collections proportional to the heap in
// this short-lived process and sets a memory limit instead, unless GOGC
// or GOMEMLIMIT says otherwise: `server grade` allocates a few MB (a job
// and a report, encoded and decoded), for which Go's default ran a
// collection or two. Measured interleaved, 30 runs each, with the child:
// CPU median 96 ms at GOGC=100, 94 at 400, 91 with none, page faults 4.9k
// to 4.5k. A report as large as the child may send (DefaultResultBytes)
// still fits well under the limit, past which the collector works as
// usual.
func collectOnlyNearLimit() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(gradeMemoryLimit)
}

// scenariosSetTheirSeeds reports whether every scenario of code's kit says
// how many schedules it explores (faultsim.Plan.Schedules), so that a
// job's Seeds changes nothing.
func scenariosSetTheirSeeds(code *problems.Code) bool {
	i := slices.IndexFunc(gradingKits(), func(k faultsim.Kit) bool { return k.Name() == code.Kit })
	if i < 0 {
		return false
	}
	scenarios, err := gradingKits()[i].ParseScenarios(code.ScenariosPath, []byte(code.Scenarios))
	if err != nil || len(scenarios) == 0 {
		return false // the grade says what is wrong with the file
	}
	for _, sc := range scenarios {
		if sc.Plan().Schedules == 0 {
			return false
		}
	}
	return true
}

// defaultGradeProblem is the problem `server grade` grades against unless
// told otherwise.
const defaultGradeProblem = "async-refund"

// kitProblem finds problem in the content (dir, or the built-in content
// when dir is empty) whose kit grades against a scenarios file. exit is
// non-zero when grading cannot start: the content is invalid, or has no
// such problem.
func kitProblem(dir, slug string, stderr io.Writer) (code *problems.Code, exit int) {
	if dir == "" {
		// The built-in content is checked whole before it ships (and by
		// every serve): reading the one problem's code is enough, and
		// skips parsing, rendering and checking the rest of it, and the
		// problem's own Markdown, Go and scenario list, most of what this
		// process did besides waiting for its child (the child checks the
		// scenarios file as it reads it). Anything else, even a folder of good
		// content, is checked whole first, as is the built-in content
		// when the problem is not found or not gradable: that is what
		// names the problems there are.
		code, found, err := problems.LoadCode(content.FS, contentOptions(), slug)
		if found && err == nil && code != nil && code.ScenariosPath != "" {
			return code, 0
		}
	}
	cat, root, err := loadContent(dir, content.FS)
	if diags, isContent := contentDiagnostics(err); isContent {
		printDiagnostics(stderr, root, diags)
		fmt.Fprintf(stderr, "grade: the content in %s has %d error%s: fix them first (server lint %s)\n", root, len(diags), pluralS(len(diags)), root)
		return nil, gradeExitNotGraded
	}
	if err != nil {
		fmt.Fprintf(stderr, "grade: load content: %v\n", err)
		return nil, gradeExitNotGraded
	}
	var gradable []string
	for _, p := range cat.Problems {
		if p.Code == nil || p.Code.ScenariosPath == "" {
			continue
		}
		if p.Slug == slug {
			return p.Code, 0
		}
		gradable = append(gradable, p.Slug)
	}
	slices.Sort(gradable)
	fmt.Fprintf(stderr, "grade: -problem %q: %s has no code problem by that slug whose kit reads a scenarios file; gradable problems: %s\n",
		slug, root, strings.Join(gradable, ", "))
	return nil, gradeExitNotGraded
}

// gradeWithKit grades the file at path against code's scenarios with its
// kit, in a sandboxed child of pool.
func gradeWithKit(ctx context.Context, pool *sandbox.Pool, log *slog.Logger, slug string, code *problems.Code, path string, seed int64, seeds int, asJSON bool, ref gradeReferee, stdout, stderr io.Writer) int {
	src, ok := readSubmission(path, stderr)
	if !ok {
		return gradeExitNotGraded
	}
	svc := grading.New(pool, log)
	if faultsim.LangOf(path) == faultsim.LangGo {
		// The referee builds Go natively: it has nothing to say of Python.
		svc.Referee = ref.newReferee(sandbox.DefaultLimits(), 1)
	} else if python, why := pyenv.Available(); why == "" && !pyenv.Confined() {
		fmt.Fprintf(stderr, "grade: UNCONFINED: %s runs in Python without all of the kernel's confinement (%s=1; missing: %s)\n",
			path, pyenv.UnconfinedEnv, strings.Join(sandbox.Confinement().Missing(), "; "))
	} else if why == "" {
		fmt.Fprintf(stderr, "grade: %s runs in %s, confined by the kernel\n", path, python)
	}
	if ref.db != "" && svc.Referee != nil {
		store, err := storage.Open(ctx, ref.db)
		if err != nil {
			fmt.Fprintf(stderr, "grade: -db: %v\n", err)
			return gradeExitNotGraded
		}
		defer store.Close()
		svc.Disagreements = refereeStoreLog{store}
	}
	job := grading.KitJob(code, string(src), seed, nil)
	job.File, job.Seeds, job.Problem = filepath.Base(path), seeds, slug
	// The scenarios' names are read from the file only when a report must
	// name one the child did not finish: the built-in content's code comes
	// without them (problems.LoadCode), as a grade rarely needs them.
	names := code.ScenarioNames
	report, err := svc.GradeKitNaming(ctx, nil, job, func() []string {
		if names == nil {
			names = problems.ScenarioNames(code.Scenarios)
		}
		return names
	}, nil)
	if err != nil {
		fmt.Fprintf(stderr, "grade: %v\n", err)
		return gradeExitNotGraded
	}
	report.Problem = slug
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			fmt.Fprintf(stderr, "grade: write the report: %v\n", err)
			return gradeExitNotGraded
		}
	} else {
		report.WriteText(stdout)
	}
	return report.ExitCode()
}

// gradeReferee is grade's native referee and where it keeps what it
// overrules (db; empty keeps nothing).
type gradeReferee struct {
	refereeFlags
	db string
}

// readSubmission reads the Go or Python file to grade, or says on stderr
// why it cannot.
func readSubmission(path string, stderr io.Writer) ([]byte, bool) {
	if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".py") {
		fmt.Fprintf(stderr, "grade: %s: want a Go or Python source file (FILE.go or FILE.py)\n", path)
		return nil, false
	}
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "grade: cannot read the file: %v\n", err)
		return nil, false
	}
	return src, true
}
