//go:build !nointerp

// Package grading is the parent side of grading a code problem with a kit:
// it hands a faultsim.Job (kit name, scenarios file, source) to a grading
// child through the sandbox pool the refund grader uses too, so the two
// share places and per-address turns, and turns what the child sent, or
// how it ended, into a faultsim.Report. Submitted code never runs here.
package grading

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// MaxSourceBytes is the largest submission graded: a whole client is a
// few KiB, so anything near this is not a solution.
const MaxSourceBytes = 256 << 10

// DefaultSeeds is how many schedules each scenario of a user's grade
// explores: enough for the create-client corpus's races to show (its
// tests find every broken solution with 20), few enough for a grade to
// take seconds.
const DefaultSeeds = 20

// Service grades kit jobs in sandboxed children.
type Service struct {
	pool *sandbox.Pool
	log  *slog.Logger
}

// New grades through pool, whose runner starts the server's grading child
// (it tells a kit job from a refund job by the job's kit field). log may
// be nil.
func New(pool *sandbox.Pool, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{pool: pool, log: log}
}

// Admit takes a place in the shared queue for a job of key (the client
// address), or refuses at once with a *sandbox.BusyError.
func (s *Service) Admit(key string) (*sandbox.Ticket, error) { return s.pool.Admit(key) }

// Grade runs job in a child and returns its report; progress (may be nil)
// gets each scenario as the child finishes it. A ticket from Admit is
// used or released whatever happens; nil admits the job now. What the
// submission does is data in the Report (a limit it ran into included);
// the error is for the system: the pool is full (errors.Is
// sandbox.ErrBusy), ctx ended, or the job itself is wrong (an unknown kit,
// scenarios that do not parse), which is the content's fault or ours.
func (s *Service) Grade(ctx context.Context, ticket *sandbox.Ticket, job faultsim.Job, progress func(faultsim.ScenarioResult)) (*faultsim.Report, error) {
	defer ticket.Release() // a job that never reaches the child gives up its place
	if job.Kit == "" {
		return nil, errors.New("grading: the job names no kit")
	}
	if len(job.Source) > MaxSourceBytes {
		return &faultsim.Report{Kit: job.Kit, Status: faultsim.StatusError, Scenarios: []faultsim.ScenarioResult{},
			Message: fmt.Sprintf("The source file is %s; the grader accepts at most %s (source too large).",
				sandbox.FormatBytes(int64(len(job.Source))), sandbox.FormatBytes(MaxSourceBytes))}, nil
	}
	if job.Seeds == 0 {
		job.Seeds = DefaultSeeds
	}
	if s.pool.Running() > 0 {
		// Another child is grading, so the cores are taken: a second lane
		// would only add its interpreters' compiles.
		job.Lanes = 1
	}
	input, err := json.Marshal(job)
	if err != nil {
		return nil, fmt.Errorf("grading: encode the job: %w", err)
	}
	var st stream
	st.progress = progress
	if ticket == nil {
		if ticket, err = s.pool.Admit(""); err != nil {
			return nil, err
		}
	}
	out, err := ticket.Run(ctx, input, st.receive)
	if err != nil {
		if errors.Is(err, sandbox.ErrBusy) {
			return nil, err
		}
		return nil, fmt.Errorf("grading: run the grading child: %w", err)
	}
	return s.interpret(ctx, job, out, &st)
}

// interpret decides what the child's end means.
func (s *Service) interpret(ctx context.Context, job faultsim.Job, out *sandbox.Outcome, st *stream) (*faultsim.Report, error) {
	switch {
	case st.broken != nil:
		return nil, fmt.Errorf("grading: the child sent a line that is not a result: %w", st.broken)
	case st.report != nil && out.OK():
		return st.report, nil
	case st.childErr != "":
		return nil, fmt.Errorf("grading: the child could not grade the job: %s", st.childErr)
	case out.Ending == sandbox.EndCanceled && ctx.Err() != nil:
		return nil, ctx.Err()
	case out.OK():
		return nil, errors.New("grading: the child ended without a report")
	}
	// The submission ran into a limit or crashed the child: that is its
	// result, with the scenarios that had finished.
	s.log.Info("grading: a grading child stopped", "kit", job.Kit, "ending", out.Ending, "after_scenarios", len(st.finished))
	return &faultsim.Report{
		Kit:    job.Kit,
		Status: faultsim.StatusError,
		Message: fmt.Sprintf("The grading stopped after %d finished scenario%s: %s.",
			len(st.finished), plural(len(st.finished)), out.Describe()),
		Scenarios: append([]faultsim.ScenarioResult{}, st.finished...),
	}, nil
}

// stream collects the child's NDJSON lines (faultsim.ChildMessage).
type stream struct {
	progress func(faultsim.ScenarioResult)
	finished []faultsim.ScenarioResult
	report   *faultsim.Report
	childErr string
	broken   error
}

func (st *stream) receive(line []byte) error {
	var m faultsim.ChildMessage
	if err := json.Unmarshal(line, &m); err != nil {
		st.broken = err
		return err // kills the child: it is not speaking the protocol
	}
	switch {
	case m.Scenario != nil:
		st.finished = append(st.finished, *m.Scenario)
		if st.progress != nil {
			st.progress(*m.Scenario)
		}
	case m.Report != nil:
		st.report = m.Report
	case m.Error != "":
		st.childErr = m.Error
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
