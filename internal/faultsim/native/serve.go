package native

import (
	"context"
	"io"
	"runtime/debug"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/bubble"
)

// NativeCopiesNeeded is how many copies of a submission a grade of
// scenarios on one lane loads at most at once: the busiest run's calls,
// each of which may be restarted once.
func NativeCopiesNeeded(scenarios []faultsim.Scenario) int {
	n := 1
	for _, sc := range scenarios {
		n = max(n, 2*len(sc.Plan().Calls))
	}
	return n
}

// ServeNative is the native referee's program: it reads one Job from in,
// grades it on one lane with kit k through the natively compiled copies
// copies returns (a package each, built by the go tool beside the
// program), and writes the report line to out as a grading child does.
// The referee runs it under the same sandbox limits as the grading child.
// It returns an error only when the job cannot be read or graded at all.
func ServeNative(in io.Reader, out io.Writer, k faultsim.Kit, copies func() []NativeCopy) error {
	job, err := faultsim.ReadJob(in)
	if err != nil {
		return err
	}
	debug.SetMaxStack(faultsim.ChildMaxStack)
	w := faultsim.NewLineWriter(out)
	scenarios, err := faultsim.JobScenarios(k, job)
	if err != nil {
		w.Write(faultsim.ChildMessage{Error: err.Error()})
		return nil
	}
	bubble.InProcess(func(b faultsim.Bubble) {
		cs := copies()
		prog := &NativeCopies{Kit: k, Copies: cs, Shared: len(cs) == 1 && cs[0].Reset == nil}
		// The referee compares verdicts alone (gradewire.SameVerdict):
		// minimal runs would only add to its time.
		opt := faultsim.JobOptions(job, nil)
		opt.Lanes, opt.NoShrink = 1, true
		rep, err := faultsim.Grade(context.Background(), k, scenarios, prog, b, opt)
		switch {
		case err != nil:
			w.Write(faultsim.ChildMessage{Error: err.Error()})
		default:
			w.Write(faultsim.ChildMessage{Report: job.Keeps(rep.Wire(job.FirstSeed))})
		}
	})
	return nil
}
