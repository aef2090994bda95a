package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/faultsim/pyrun"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/kits/refund/pyrefund"
	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// maxChildJobBytes bounds what the child reads; the job's reader bounds
// it again, more tightly.
const maxChildJobBytes = 4 << 20

// gradingKits are the kits a grading child can grade a job with.
func gradingKits() []faultsim.Kit { return []faultsim.Kit{createclient.Kit{}, refund.Kit{}} }

// pythonRuntime is a grading child's runtime for Python answers, with the
// interpreter its parent found and the kits that have a Python API.
func pythonRuntime() faultsim.Runtime {
	return pyrun.Runtime{Python: pyenv.ChildPython(), Bindings: map[string]pyrun.Binding{refund.Name: pyrefund.Binding()}, OneCPU: true}
}

// gradeChildCommand is the hidden grading-child mode (gradewire.ChildCommand):
// the server re-executes itself this way, under the sandbox's limits, to
// run one submission. The job arrives on stdin; results leave on fd 3.
// Every job names its kit (internal/grading sends it). It is not listed in
// the usage text.
func gradeChildCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// Before the job is read, so before any submitted code runs.
	if err := sandbox.ConfineSelf(); err != nil {
		sandbox.ExitConfineFailed(err)
	}
	results := os.NewFile(sandbox.ResultFD, "results")
	if _, err := results.Stat(); err != nil {
		fmt.Fprintf(stderr, "%s: this mode is started by the grader itself, with a result pipe on fd %d\n",
			gradewire.ChildCommand, sandbox.ResultFD)
		return 2
	}
	if sandbox.FramedChild() {
		// A reusable child: one job after another until stdin ends.
		interpreted.ServeChildJobs(sandbox.NewChildJobs(os.Stdin, results, maxChildJobBytes), results, gradingKits(), pythonRuntime())
		return 0
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, maxChildJobBytes+1))
	if err != nil {
		fmt.Fprintf(stderr, "%s: read the job: %v\n", gradewire.ChildCommand, err)
		return 2
	}
	var kind struct {
		Kit string `json:"kit"`
	}
	if json.Unmarshal(data, &kind) == nil && kind.Kit == "" {
		fmt.Fprintf(stderr, "%s: the job names no kit (a job of the refund grader before it became a kit?)\n", gradewire.ChildCommand)
		return 2
	}
	// ServeChild exits the process once the job is graded; it returns
	// only when the job could not be read.
	err = interpreted.ServeChild(bytes.NewReader(data), results, gradingKits(), pythonRuntime())
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	return 0
}
