package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/grader"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// maxChildJobBytes bounds what the child reads before it knows the job's
// kind; each kind's own reader bounds it again, more tightly.
const maxChildJobBytes = 4 << 20

// gradingKits are the kits a grading child can grade a faultsim job with.
func gradingKits() []faultsim.Kit { return []faultsim.Kit{createclient.Kit{}} }

// gradeChildCommand is the hidden grading-child mode (grader.ChildCommand):
// the server re-executes itself this way, under the sandbox's limits, to
// run one submission. The job arrives on stdin; results leave on fd 3.
// A job that names a kit is a faultsim job (internal/grading sends it);
// any other is the refund grader's. Both come through the same pool.
// It is not listed in the usage text.
func gradeChildCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	results := os.NewFile(sandbox.ResultFD, "results")
	if _, err := results.Stat(); err != nil {
		fmt.Fprintf(stderr, "%s: this mode is started by the grader itself, with a result pipe on fd %d\n",
			grader.ChildCommand, sandbox.ResultFD)
		return 2
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, maxChildJobBytes+1))
	if err != nil {
		fmt.Fprintf(stderr, "%s: read the job: %v\n", grader.ChildCommand, err)
		return 2
	}
	var kind struct {
		Kit string `json:"kit"`
	}
	_ = json.Unmarshal(data, &kind) // a job that does not decode is refused by its reader below
	// Either ServeChild exits the process once the job is graded; it
	// returns only when the job could not be read.
	if kind.Kit != "" {
		err = faultsim.ServeChild(bytes.NewReader(data), results, gradingKits())
	} else {
		err = grader.ServeChild(bytes.NewReader(data), results)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	return 0
}
