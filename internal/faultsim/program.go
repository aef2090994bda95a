package faultsim

import (
	"io"
	"strings"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// Program loads a submission for one worker. Each worker stands for a
// process of its own, so a load gives it its own copy of the submission's
// package state. The entry returned has the kit's entry type.
type Program interface {
	Load(w *Worker, seed int64, out io.Writer) (entry any, err error)
}

// finisher is told how a worker's call ended, so a program can reuse what
// it loaded for a later run when nothing of the last one can leak.
type finisher interface {
	Finished(w *Worker, clean bool)
}

// callEnder is told when a worker's call is over (it returned or
// panicked, or its process died) while the run goes on, so a program can
// give what the worker loaded to a later worker of the same run when
// nothing of the call can still run.
type callEnder interface {
	CallEnded(w *Worker)
}

// LoadError is a submission that does not load: the user's failure, with
// diagnostics to show.
type LoadError struct{ Diagnostics []gradewire.Diagnostic }

func (e *LoadError) Error() string {
	var parts []string
	for _, d := range e.Diagnostics {
		parts = append(parts, d.String())
	}
	return "faultsim: the submission does not load: " + strings.Join(parts, "; ")
}
