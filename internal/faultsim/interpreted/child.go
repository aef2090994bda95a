package interpreted

import (
	"bytes"
	"context"
	"io"
	"runtime/debug"
	"strings"

	"github.com/traefik/yaegi/interp"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/bubble"
	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// ServeChild is a grading child's whole life: it reads one JSON Job from
// in, grades it with the kit it names among kits in a synctest bubble,
// writes the result lines to out and exits the process. It returns only
// when the job cannot be read, before any submitted code ran. The caller
// runs it under the sandbox's limits. rts are the runtimes besides Go's
// (Python's), for jobs whose file is in their language.
func ServeChild(in io.Reader, out io.Writer, kits []faultsim.Kit, rts ...faultsim.Runtime) error {
	job, err := faultsim.ReadJob(in)
	if err != nil {
		return err
	}
	debug.SetMaxStack(faultsim.ChildMaxStack)
	MarkGradingChild()
	bubble.InProcess(func(b faultsim.Bubble) { ServeJob(context.Background(), kits, job, b, out, rts...) })
	return nil
}

// Jobs feeds a grading child that grades one job after another (the
// sandbox's reusable child): Next returns a job's bytes, io.EOF when no
// more will come; Finished ends the job Next returned, once its result
// lines are written, with why the child must run no other job, or "".
type Jobs interface {
	Next() ([]byte, error)
	Finished(unfit string) error
}

// ServeChildJobs is a reusable grading child's whole life: it grades each
// job from jobs as ServeChild grades its one, each with fresh
// interpreters in a bubble of its own, and exits the process when jobs
// ends or anything breaks. A job that leaves goroutines of its run blocked
// fails the bubble: the child then exits without finishing the job, and
// the parent retires it. A job whose code changed a host variable it
// could reach (an allowed package's or a kit's, see gointerp.HostState)
// ends unfit, and the parent retires the child too.
func ServeChildJobs(jobs Jobs, out io.Writer, kits []faultsim.Kit, rts ...faultsim.Runtime) {
	debug.SetMaxStack(faultsim.ChildMaxStack)
	MarkGradingChild()
	var harnesses []interp.Exports
	for _, k := range kits {
		harnesses = append(harnesses, k.Harness().Symbols)
	}
	host := gointerp.TakeHostState(harnesses...)
	bubble.Serving(func(b faultsim.Bubble, failed func() bool) {
		for {
			data, err := jobs.Next()
			if err != nil {
				if err != io.EOF {
					faultsim.NewLineWriter(out).Write(faultsim.ChildMessage{Error: err.Error()})
				}
				return
			}
			job, err := faultsim.ReadJob(bytes.NewReader(data))
			switch {
			case err != nil:
				faultsim.NewLineWriter(out).Write(faultsim.ChildMessage{Error: err.Error()})
			case job.Kit == "":
				faultsim.NewLineWriter(out).Write(faultsim.ChildMessage{Error: "faultsim: the job names no kit"})
			default:
				ServeJob(context.Background(), kits, job, b, out, rts...)
			}
			unfit := ""
			if changed := host.Changed(); changed != nil {
				unfit = "the job changed " + strings.Join(changed, ", ")
			}
			if failed() || jobs.Finished(unfit) != nil {
				return
			}
		}
	})
}

// ServeJob grades job in b and writes the result lines to out; split from
// ServeChild so tests can give it a bubble of their own.
func ServeJob(ctx context.Context, kits []faultsim.Kit, job faultsim.Job, b faultsim.Bubble, out io.Writer, rts ...faultsim.Runtime) {
	w := faultsim.NewLineWriter(out)
	if job.Native && faultsim.LangOf(job.File) == faultsim.LangGo {
		// Before any of the submission runs: a child stopped by a limit
		// has still handed the referee what it builds.
		w.Write(faultsim.ChildMessage{Native: NativeProgramFor(kits, job)})
	}
	st := gradewire.Streamer{KeepPassed: job.KeepPassed}
	rep, err := RunJob(ctx, kits, job, b, func(s faultsim.ScenarioResult) { w.Write(st.Scenario(s.Wire())) }, rts...)
	switch {
	case err != nil:
		w.Write(faultsim.ChildMessage{Error: err.Error()})
	case rep == nil:
		w.Write(faultsim.ChildMessage{Error: "faultsim: the grade returned no report and no error"})
	case rep.Stopped != "":
		w.Write(faultsim.ChildMessage{Stopped: rep.Stopped})
	default:
		w.Write(st.Report(rep.Wire(job.FirstSeed)))
	}
}
