package interpreted

import (
	"context"
	"io"
	"runtime/debug"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/bubble"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// ServeChild is a grading child's whole life: it reads one JSON Job from
// in, grades it with the kit it names among kits in a synctest bubble,
// writes the result lines to out and exits the process. It returns only
// when the job cannot be read, before any submitted code ran. The caller
// runs it under the sandbox's limits.
func ServeChild(in io.Reader, out io.Writer, kits []faultsim.Kit) error {
	job, err := faultsim.ReadJob(in)
	if err != nil {
		return err
	}
	debug.SetMaxStack(faultsim.ChildMaxStack)
	MarkGradingChild()
	bubble.InProcess(func(b faultsim.Bubble) { ServeJob(context.Background(), kits, job, b, out) })
	return nil
}

// ServeJob grades job in b and writes the result lines to out; split from
// ServeChild so tests can give it a bubble of their own.
func ServeJob(ctx context.Context, kits []faultsim.Kit, job faultsim.Job, b faultsim.Bubble, out io.Writer) {
	w := faultsim.NewLineWriter(out)
	if job.Native {
		// Before any of the submission runs: a child stopped by a limit
		// has still handed the referee what it builds.
		w.Write(faultsim.ChildMessage{Native: NativeProgramFor(kits, job)})
	}
	st := gradewire.Streamer{KeepPassed: job.KeepPassed}
	rep, err := RunJob(ctx, kits, job, b, func(s faultsim.ScenarioResult) { w.Write(st.Scenario(s.Wire())) })
	switch {
	case err != nil:
		w.Write(faultsim.ChildMessage{Error: err.Error()})
	case rep == nil:
		w.Write(faultsim.ChildMessage{Error: "faultsim: the grade returned no report and no error"})
	default:
		w.Write(st.Report(rep.Wire(job.FirstSeed)))
	}
}
