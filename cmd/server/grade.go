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
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/internal/grader"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// gradeExitNotGraded is `server grade`'s exit status when the file could
// not be graded (compile error, forbidden import, a limit) or on bad
// usage; otherwise the report's own ExitCode decides (0 held, 1 violated).
const gradeExitNotGraded = 2

const gradeUsage = `usage: server grade [-problem SLUG] [-seed N] [-json] FILE.go

Grades FILE.go (package refund, with RefundMoney) against the problem's fault
scenarios in a sandboxed child process and prints the report.

Exit status: 0 every invariant held, 1 some were violated, 2 the file could not
be graded (compile error, forbidden import, a resource limit) or bad usage.

Flags:
`

// gradeCommand is `server grade`. It never interprets the file itself: the
// grading runs in a child process under the sandbox's limits.
func gradeCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	problem := fs.String("problem", grader.DefaultProblem, "the problem whose scenarios grade the file")
	seed := fs.Int64("seed", 1, "seed of the schedules and jitter; the same seed reproduces a run exactly")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of text")
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
		fmt.Fprintf(stderr, "grade: want exactly one FILE.go, got %d arguments\n", fs.NArg())
		fs.Usage()
		return gradeExitNotGraded
	}
	if _, ok := grader.Suites[*problem]; !ok {
		fmt.Fprintf(stderr, "grade: -problem %q: no grader scenarios for that problem; gradable problems: %s\n",
			*problem, strings.Join(gradableProblems(), ", "))
		return gradeExitNotGraded
	}
	path := fs.Arg(0)
	if !strings.HasSuffix(path, ".go") {
		fmt.Fprintf(stderr, "grade: %s: want a Go source file (FILE.go)\n", path)
		return gradeExitNotGraded
	}
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "grade: cannot read the file: %v\n", err)
		return gradeExitNotGraded
	}

	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc := grader.NewService(sandbox.NewPool(grader.NewChildRunner(sandbox.DefaultLimits(), log), 1, 0), log)
	report, err := svc.Grade(ctx, grader.Job{Problem: *problem, Source: string(src), Seed: *seed}, nil)
	if err != nil {
		fmt.Fprintf(stderr, "grade: %v\n", err)
		return gradeExitNotGraded
	}
	if *asJSON {
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

// gradableProblems lists the problems the grader has scenarios for.
func gradableProblems() []string {
	names := make([]string, 0, len(grader.Suites))
	for name := range grader.Suites {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
