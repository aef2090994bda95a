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
	var streamed []string
	texts := gradewire.Texts{}
	rep, err := RunJob(ctx, kits, job, b, func(s ScenarioResult) {
		ws := s.Wire().Kept()
		m := ChildMessage{Scenario: &ws}
		texts.Shorten(&m)
		w.write(m)
		streamed = append(streamed, s.Name)
	})
	switch {
	case err != nil:
		w.write(ChildMessage{Error: err.Error()})
	case rep == nil:
		w.write(ChildMessage{Error: "faultsim: the grade returned no report and no error"})
	case sameNames(streamed, rep.Scenarios):
		// The scenarios went ahead, each on its line: not twice.
		w.write(rep.Wire(job.FirstSeed).Streamed())
	default:
		w.write(ChildMessage{Report: rep.Wire(job.FirstSeed).Kept()})
	}
}

// sameNames reports whether names are the scenarios', in their order.
func sameNames(names []string, scenarios []ScenarioResult) bool {
	if len(names) != len(scenarios) {
		return false
	}
	for i, s := range scenarios {
		if names[i] != s.Name {
			return false
		}
	}
	return true
}
