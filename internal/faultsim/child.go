//go:build !nointerp

package faultsim

import (
	"bufio"
	"context"
	"io"
	"runtime/debug"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// ServeChild is a grading child's whole life: it reads one JSON Job from
// in, grades it with the kit it names among kits in a synctest bubble,
// writes the result lines to out and exits the process. It returns only
// when the job cannot be read, before any submitted code ran. The caller
// runs it under the sandbox's limits.
func ServeChild(in io.Reader, out io.Writer, kits []Kit) error {
	job, err := readJob(in)
	if err != nil {
		return err
	}
	debug.SetMaxStack(childMaxStack)
	MarkGradingChild()
	InProcess(func(b Bubble) { ServeJob(context.Background(), kits, job, b, out) })
	return nil
}

// ServeJob grades job in b and writes the result lines to out; split from
// ServeChild so tests can give it a bubble of their own.
func ServeJob(ctx context.Context, kits []Kit, job Job, b Bubble, out io.Writer) {
	w := &lineWriter{w: bufio.NewWriter(out)}
	if job.Native {
		// Before any of the submission runs: a child stopped by a limit
		// has still handed the referee what it builds.
		w.write(ChildMessage{Native: NativeProgramFor(kits, job)})
	}
	var st gradewire.Streamer
	rep, err := RunJob(ctx, kits, job, b, func(s ScenarioResult) { w.write(st.Scenario(s.Wire())) })
	switch {
	case err != nil:
		w.write(ChildMessage{Error: err.Error()})
	case rep == nil:
		w.write(ChildMessage{Error: "faultsim: the grade returned no report and no error"})
	default:
		w.write(st.Report(rep.Wire(job.FirstSeed)))
	}
}
