package pyrun

import (
	"context"
	"sync"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

// limitStop stops a grade whose lane the kernel ended at a limit of the
// grading process. A lane is a process of its own, so its CPU time limit
// is its own: a Go submission that loops for ever takes the grading
// child down with it and the parent says "stopped: the CPU time limit",
// but a Python one would lose only its lane, fail that call, and go on
// looping in the next scenario's lane until the wall clock ran out. So
// the first lane lost at the CPU limit ends the grade as the Go one
// ends: the scenarios that had finished, and the limit (Report.Stopped),
// which the grading child hands its parent to word as it words its own.
type limitStop struct {
	mu       sync.Mutex
	cancel   context.CancelFunc
	limit    string // a sandbox.Ending; "" while none was reached
	why      string
	finished []faultsim.ScenarioResult
}

// watch gives the grade a context the first lane lost at a limit
// cancels, and a progress that stops passing scenarios on from then: the
// one running when the limit struck did not finish.
func (l *limitStop) watch(ctx context.Context, opt faultsim.Options) (context.Context, faultsim.Options) {
	ctx, cancel := context.WithCancel(ctx)
	progress := opt.Progress
	l.mu.Lock()
	l.cancel, l.limit, l.why, l.finished = cancel, "", "", nil
	l.mu.Unlock()
	opt.Progress = func(s faultsim.ScenarioResult) {
		l.mu.Lock()
		stopped := l.limit != ""
		if !stopped {
			l.finished = append(l.finished, s)
		}
		l.mu.Unlock()
		if !stopped && progress != nil {
			progress(s)
		}
	}
	return ctx, opt
}

// stopAt records that a lane was lost at limit (the first such loss
// counts) and stops the grade's further scenarios.
func (p *Program) stopAt(limit, why string) {
	l := &p.limit
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit != "" {
		return
	}
	l.limit, l.why = limit, why
	if l.cancel != nil {
		l.cancel()
	}
}

// report is the grade's report when a lane was lost at a limit, nil when
// none was: status error, the scenarios that had finished, Stopped.
func (l *limitStop) report(k faultsim.Kit) *faultsim.Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil {
		l.cancel()
	}
	if l.limit == "" {
		return nil
	}
	return &faultsim.Report{Kit: k.Name(), Status: faultsim.StatusError, Stopped: l.limit,
		Scenarios: append([]faultsim.ScenarioResult{}, l.finished...),
		Message:   "The submission was stopped at a limit: " + l.why + "; look for a loop that never ends or never waits."}
}
