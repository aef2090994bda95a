//go:build !nointerp

package grader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// MaxSourceBytes is the largest submission the grader accepts. A complete
// refund function is a few KiB; anything near this is not a solution.
const MaxSourceBytes = 256 << 10

// Service grades submissions in sandboxed child processes, never in its
// own process: submitted code can loop, allocate without end, crash the Go
// runtime or deadlock, and the server must go on answering. Every such end
// becomes a Report with status "error" naming the limit and the scenario
// that was running.
type Service struct {
	pool *sandbox.Pool
	log  *slog.Logger
}

// NewChildRunner returns a Runner that re-executes the current binary as a
// grading child (ChildCommand): the binary must dispatch that subcommand
// to ServeChild.
func NewChildRunner(limits sandbox.Limits, log *slog.Logger) *sandbox.Runner {
	return &sandbox.Runner{Args: []string{ChildCommand}, Limits: limits, Logger: log}
}

// NewService grades through pool, whose Runner must start a grading child
// (NewChildRunner, or a test binary serving the same protocol). log may
// be nil.
func NewService(pool *sandbox.Pool, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{pool: pool, log: log}
}

// Grade runs job in a child and returns its report. progress (may be nil)
// receives each scenario as the child finishes it. What the submission
// does is always data in the Report; the error is for the grading system
// itself: the pool is full (a *sandbox.BusyError, errors.Is
// sandbox.ErrBusy), ctx ended, or the child broke without blaming the
// submission.
func (s *Service) Grade(ctx context.Context, job Job, progress func(ScenarioReport)) (*Report, error) {
	report, _, err := s.grade(ctx, nil, job, progress)
	return report, err
}

// Admit takes a place in the grading queue for a job of key (the client
// address it is graded for), or refuses at once with a *sandbox.BusyError:
// a caller can answer "busy" before it starts anything. Waiting jobs get
// places fairly between keys (sandbox.Pool); the key never reaches the
// child. Pass the ticket to GradeAdmitted.
func (s *Service) Admit(key string) (*sandbox.Ticket, error) { return s.pool.Admit(key) }

// GradeAdmitted is Grade for a job admitted with Admit: it waits for the
// ticket's place. The ticket is used or released whatever happens; nil
// admits the job now, without a key.
func (s *Service) GradeAdmitted(ctx context.Context, ticket *sandbox.Ticket, job Job, progress func(ScenarioReport)) (*Report, error) {
	report, _, err := s.grade(ctx, ticket, job, progress)
	return report, err
}

// RetryAfter is when a client whose jobs are all in the queue (key, as
// for Admit) should expect one to end.
func (s *Service) RetryAfter(key string) time.Duration { return s.pool.RetryAfter(key) }

// grade is Grade that also returns how the child ended (nil when no child
// ran), for benchmarks and logs.
func (s *Service) grade(ctx context.Context, ticket *sandbox.Ticket, job Job, progress func(ScenarioReport)) (*Report, *sandbox.Outcome, error) {
	defer ticket.Release() // a job that never reaches the child gives up its place
	if len(job.Source) > MaxSourceBytes {
		return notGradable(job, fmt.Sprintf("The source file is %s; the grader accepts at most %s (source too large).",
			sandbox.FormatBytes(int64(len(job.Source))), sandbox.FormatBytes(MaxSourceBytes))), nil, nil
	}
	order, err := scenarioOrder(job)
	if err != nil {
		return nil, nil, err
	}
	if s.pool.Running() > 0 {
		// Another child is grading, so the cores are taken: a second lane
		// would only add its interpreters' compiles (measured: a grade on
		// two lanes costs about a third more CPU than on one).
		job.Lanes = 1
	}
	input, err := json.Marshal(job)
	if err != nil {
		return nil, nil, fmt.Errorf("grader: encode the job: %w", err)
	}

	var stream resultStream
	stream.progress = progress
	if ticket == nil {
		if ticket, err = s.pool.Admit(""); err != nil {
			return nil, nil, err
		}
	}
	out, err := ticket.Run(ctx, input, stream.receive)
	if err != nil {
		if errors.Is(err, sandbox.ErrBusy) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("grader: run the grading child: %w", err)
	}
	report, err := s.interpret(ctx, job, order, out, &stream)
	return report, out, err
}

// interpret turns how the child ended and what it sent into a report, or
// an error when the grading system itself failed.
func (s *Service) interpret(ctx context.Context, job Job, order []string, out *sandbox.Outcome, stream *resultStream) (*Report, error) {
	report, childErr, finished, broken := stream.result()
	level := slog.LevelDebug
	if !out.OK() {
		level = slog.LevelInfo // a stopped submission: normal, but worth seeing
	}
	s.log.Log(ctx, level, "grader: child finished",
		slog.String("problem", job.Problem), slog.Int64("seed", job.Seed),
		slog.String("ending", out.Describe()), slog.Duration("wall", out.Wall),
		slog.Duration("cpu", out.CPU), slog.Int64("max_rss", out.MaxRSS),
		slog.Bool("namespaces", out.Namespaces), slog.Bool("warm", out.Warm))

	switch {
	case broken != nil:
		return nil, broken
	case report != nil:
		// The child finished its report; whatever happened after (a late
		// crash while exiting) changes nothing the candidate did.
		return report, nil
	case out.Ending == sandbox.EndCanceled:
		return nil, fmt.Errorf("grader: grading stopped: %w", context.Cause(ctx))
	case childErr != "":
		return s.keepFinished(ctx, job, order, finished, fmt.Errorf("grader: the grading child failed: %s", childErr))
	case out.OK():
		return s.keepFinished(ctx, job, order, finished, fmt.Errorf("grader: the grading child exited without a report (stderr: %q)", lastLines(out.Stderr, 5)))
	}
	if out.Ending == sandbox.EndCrash && out.Fatal == "" {
		// A crash without a runtime message is not something interpreted
		// code can cause (it cannot exit or signal): the child broke.
		s.log.Error("grader: grading child crashed without a runtime message",
			slog.String("describe", out.Describe()), slog.String("stderr", lastLines(out.Stderr, 10)))
	}
	return stoppedReport(job, order, finished, out), nil
}

// keepFinished handles a child that broke (the grader's fault, never the
// submission's) after some scenarios finished: those are kept and shown,
// in a report that says the rest could not be graded and why; the failure
// is logged as the grader's. With nothing finished there is nothing to
// show, and the error goes to the caller.
func (s *Service) keepFinished(ctx context.Context, job Job, order []string, finished []ScenarioReport, err error) (*Report, error) {
	if len(finished) == 0 {
		return nil, err
	}
	s.log.ErrorContext(ctx, "grader: the grading child broke; the finished scenarios are kept",
		slog.Int("finished", len(finished)), slog.Int("scenarios", len(order)), slog.String("error", err.Error()))
	r := notGradable(job, fmt.Sprintf("The grader itself failed %s, a fault of the grader and not of your code; the scenarios that finished are shown.", where(order, finished)))
	r.Scenarios = append(r.Scenarios, finished...)
	r.Summary.ScenariosTotal = len(order)
	for _, sc := range finished {
		if sc.Status == StatusPass {
			r.Summary.ScenariosPassed++
		}
	}
	return r, nil
}

// notGradable is a report for a job that could not be graded to the end.
func notGradable(job Job, message string) *Report {
	r := newReport(job)
	r.Status = StatusError
	r.Message = message
	return r
}

// stoppedReport is the report of a child stopped by a limit or a crash: the
// scenarios that had finished, and a message naming the limit and the
// scenario that was running.
func stoppedReport(job Job, order []string, finished []ScenarioReport, out *sandbox.Outcome) *Report {
	r := notGradable(job, fmt.Sprintf("The submission was stopped %s: %s.", where(order, finished), stopReason(out)))
	r.Scenarios = append(r.Scenarios, finished...)
	r.Summary.ScenariosTotal = len(order)
	for _, sc := range finished {
		if sc.Status == StatusPass {
			r.Summary.ScenariosPassed++
		}
	}
	return r
}

// scenarioOrder lists the names of the scenarios job runs, in the order
// the child runs them, so a stopped child's last scenario can be named.
// An unknown problem or scenario is the caller's mistake: an error.
func scenarioOrder(job Job) ([]string, error) {
	suite, err := job.suite()
	if err != nil {
		return nil, err
	}
	scenarios, err := selectScenarios(suite, job.Scenarios)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(scenarios))
	for i, sc := range scenarios {
		names[i] = sc.Name
	}
	return names, nil
}

// where says which scenario was running when the child was stopped. The
// child loads the submission once, then runs scenarios in order, one per
// lane at a time, and streams them in order: the first that had not
// finished was running.
func where(order []string, finished []ScenarioReport) string {
	n := len(finished)
	switch {
	case n >= len(order):
		return "after its last scenario, while the report was being written"
	case n == 0:
		return fmt.Sprintf("while the submission was loading or running the first scenario, %q", order[0])
	}
	return fmt.Sprintf("in scenario %q (%d of %d scenarios had finished)", order[n], n, len(order))
}

// stopReason explains an Outcome to a candidate: which limit, and what in
// their code usually causes it.
func stopReason(out *sandbox.Outcome) string {
	l := out.Limits
	switch out.Ending {
	case sandbox.EndCPUTime:
		return fmt.Sprintf("it used up the CPU time limit of %s; look for a loop that never ends or never waits", l.CPUTime)
	case sandbox.EndWallTime:
		return fmt.Sprintf("it ran past the wall-clock time limit of %s; look for a loop that never ends or never waits", l.WallTime)
	case sandbox.EndMemory:
		return fmt.Sprintf("it ran out of memory (memory limit: %s of address space); look for an allocation that keeps growing, goroutines started in a loop, or recursion that never stops",
			sandbox.FormatBytes(l.AddressSpace))
	case sandbox.EndResultLimit:
		return fmt.Sprintf("its results passed the output limit of %s", sandbox.FormatBytes(int64(l.ResultBytes)))
	}
	fatal := out.Fatal
	switch {
	case strings.Contains(fatal, "concurrent map"):
		return fmt.Sprintf("it crashed the grading process (%s): several goroutines used one map at once without a lock", fatal)
	case strings.Contains(fatal, "stack overflow") || strings.Contains(fatal, "stack exceeds"):
		return fmt.Sprintf("it crashed the grading process (%s): recursion that never stops", fatal)
	case strings.HasPrefix(fatal, "panic: "):
		return fmt.Sprintf("it crashed the grading process with a panic nobody recovered (%s); a panic in a goroutine the submission starts ends the whole program", fatal)
	case fatal != "":
		return fmt.Sprintf("it crashed the grading process (%s)", fatal)
	}
	return "the grading process crashed (" + out.Describe() + ")"
}

// lastLines returns the last n lines of b, for error messages and logs.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// resultStream collects what a child reports on its result pipe.
type resultStream struct {
	progress func(ScenarioReport)

	mu       sync.Mutex
	finished []ScenarioReport
	report   *Report
	err      string
	broken   error // the child did not speak the protocol
}

// receive handles one NDJSON line. A line that does not decode means the
// child is not speaking the protocol: the child is killed.
func (s *resultStream) receive(line []byte) error {
	var msg childMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		s.mu.Lock()
		s.broken = fmt.Errorf("grader: undecodable result line from the child: %w", err)
		s.mu.Unlock()
		return s.broken
	}
	s.mu.Lock()
	switch {
	case msg.Scenario != nil:
		s.finished = append(s.finished, *msg.Scenario)
	case msg.Report != nil:
		s.report = msg.Report
	case msg.Error != "":
		s.err = msg.Error
	}
	s.mu.Unlock()
	if msg.Scenario != nil && s.progress != nil {
		s.progress(*msg.Scenario)
	}
	return nil
}

func (s *resultStream) result() (*Report, string, []ScenarioReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.report, s.err, s.finished, s.broken
}
