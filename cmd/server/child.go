package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/faultline-dev/faultline/internal/grader"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// gradeChildCommand is the hidden grading-child mode (grader.ChildCommand):
// the server re-executes itself this way, under the sandbox's limits, to
// run one submission. The job arrives on stdin; results leave on fd 3.
// It is not listed in the usage text.
func gradeChildCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	results := os.NewFile(sandbox.ResultFD, "results")
	if _, err := results.Stat(); err != nil {
		fmt.Fprintf(stderr, "%s: this mode is started by the grader itself, with a result pipe on fd %d\n",
			grader.ChildCommand, sandbox.ResultFD)
		return 2
	}
	// ServeChild exits the process once the job is graded; it returns
	// only when the job could not be read.
	if err := grader.ServeChild(os.Stdin, results); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	return 0
}
