// Package grading is the parent side of grading: it sends a kit's job to a
// grading child through the sandbox pool,
// reads the child's NDJSON lines (gradewire), and turns them, or how the
// child ended, into a gradewire.Report. Submitted code never runs here,
// and nothing here links the interpreter: the web layer and the rooms
// grade through this package.
package grading

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/bytesize"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// DefaultSeeds is how many schedules each scenario of a kit's grade
// explores: enough for the create-client corpus's races to show (its
// tests find every broken solution with 20), few enough for a grade to
// take seconds.
const DefaultSeeds = 20

// Service grades submissions in sandboxed child processes, never in its
// own process: submitted code can loop, allocate without end, crash the Go
// runtime or deadlock, and the server must go on answering. Every such end
// becomes a Report with status "error" naming the limit and the scenario
// that was running.
type Service struct {
	pool *sandbox.Pool
	log  *slog.Logger
	cpus *cpuShares // for Python grades (cpus.go)

	// Referee, when set, checks every Grade's verdict natively, and a
	// Check's when the interpreter could not grade (see referee.go).
	Referee *Referee
	// Disagreements, when set, keeps the grades the referee overruled.
	Disagreements DisagreementLog
}

// NewChildRunner returns a Runner that re-executes the current binary as a
// grading child (gradewire.ChildCommand): the binary must dispatch that
// subcommand to the child side.
//
// The child is confined by the kernel (sandbox.ConfinePolicy's zero
// value: no network, no process, no file written, nothing read but the
// runtime's needs) as far as the host's kernel allows: the interpreter's
// import allowlist is the first wall, the kernel the second.
func NewChildRunner(limits sandbox.Limits, log *slog.Logger) *sandbox.Runner {
	return &sandbox.Runner{Args: []string{gradewire.ChildCommand}, Limits: limits, Logger: log,
		Env: []string{"GOGC=" + strconv.Itoa(childGCPercent)}, Confine: &sandbox.ConfinePolicy{}}
}

// KindPython is the pool kind (sandbox.WithKind) of a job whose file is
// Python: NewPool gives it children of NewPythonChildRunner.
const KindPython = "python"

// NewPythonChildRunner is NewChildRunner for a Python job's child. That
// child runs no submitted code itself: it starts python3 processes and
// answers their harness calls. So it may make processes and execute two
// programs: this binary, which it starts as sandbox.ConfineExecCommand
// to confine itself under the Python policy (pyenv.Policy: the
// installation read, python3 executed, nothing written, no socket) and
// then execute python3; and python3 itself, which Landlock must allow in
// this child's domain too, since the Python process's domain nests in
// it. It still opens no socket and writes no file. A Go job never runs
// in such a child (NewPool). Where Python cannot be graded, its child is
// confined as a Go job's and says why (pyenv.ChildEnv).
func NewPythonChildRunner(limits sandbox.Limits, log *slog.Logger) *sandbox.Runner {
	r := NewChildRunner(limits, log)
	r.Env = append(r.Env, pyenv.ChildEnv()...)
	python, read, why := pyenv.Installation()
	if why != "" {
		return r
	}
	policy := pyenv.Policy(python, read)
	policy.ExecSelf = true
	// /proc: the confining process (a new pid) applies Landlock to each
	// of its threads through /proc/<pid>/task; python3's own domain has
	// no rule for it.
	policy.Read = append(policy.Read[:len(policy.Read):len(policy.Read)], "/proc")
	r.Confine = &policy
	return r
}

// NewPool is a pool of grading children (size places, queue waiting jobs
// at most, as sandbox.NewPool): Go jobs run in children of
// NewChildRunner, Python jobs in children of NewPythonChildRunner.
func NewPool(limits sandbox.Limits, log *slog.Logger, size, queue int) *sandbox.Pool {
	pool := sandbox.NewPool(NewChildRunner(limits, log), size, queue)
	pool.SetKindRunner(KindPython, NewPythonChildRunner(limits, log))
	return pool
}

// NewPythonPool is a pool whose children are all NewPythonChildRunner's,
// for a process that grades Python alone (`server grade FILE.py`): its
// spares (Prestart) are Python's, where NewPool's spares are Go's and a
// Python job there starts its child cold. A Go job must not be given to
// it: its child would not be confined as a Go job's is.
func NewPythonPool(limits sandbox.Limits, log *slog.Logger, size, queue int) *sandbox.Pool {
	return sandbox.NewPool(NewPythonChildRunner(limits, log), size, queue)
}

// childGCPercent is a grading child's GOGC from its first instruction: the
// grade runs at 1600 (faultsim's gradeGCPercent), and a child is nothing
// but its grade, so its start-up and the reading of the job collect as
// rarely. The refund reference's child, 15 runs each side by side on a
// loaded machine: 104 ms of CPU at Go's 100 (median; 96 the least), 98
// at 1600 (88). GOMEMLIMIT still bounds the heap (sandbox.Limits).
const childGCPercent = 1600

// New grades through pool, whose Runner must start a grading child
// (NewChildRunner, or a test binary serving the same protocol). log may
// be nil.
func New(pool *sandbox.Pool, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{pool: pool, log: log, cpus: newCPUShares()}
}

// Admit takes a place in the grading queue for a job of key (the client
// address it is graded for), or refuses at once with a *sandbox.BusyError:
// a caller can answer "busy" before it starts anything. Waiting jobs get
// places fairly between keys (sandbox.Pool); the key never reaches the
// child. Pass the ticket to a Grade method.
func (s *Service) Admit(key string) (*sandbox.Ticket, error) { return s.pool.Admit(key) }

// RetryAfter is when a client whose jobs are all in the queue (key, as
// for Admit) should expect one to end.
func (s *Service) RetryAfter(key string) time.Duration { return s.pool.RetryAfter(key) }

// GradeKit runs a kit's job in a child. scenarios names the scenarios the
// child runs, in its order (job.Only, or all of the file's), so that a
// stopped child's running scenario can be named; nil when unknown.
//
// For every Grade method: progress (may be nil) receives each scenario as
// the child finishes it; a ticket from Admit is used or released whatever
// happens, and nil admits the job now, without a key. What the submission
// does is data in the Report; the error is for the grading system itself:
// the pool is full (a *sandbox.BusyError, errors.Is sandbox.ErrBusy), ctx
// ended, the job is wrong (an unknown kit or scenario: the content's fault
// or ours), or the child broke before finishing any scenario.
func (s *Service) GradeKit(ctx context.Context, ticket *sandbox.Ticket, job gradewire.Job, scenarios []string, progress func(gradewire.ScenarioReport)) (*gradewire.Report, error) {
	return s.GradeKitNaming(ctx, ticket, job, func() []string { return scenarios }, progress)
}

// GradeKitNaming is GradeKit with the scenarios' order given by a
// function, called only when a report must name a scenario the child did
// not finish (it was stopped, or broke) or count those it did not run:
// for a caller that would read the whole scenarios file for a list a grade
// rarely needs (`server grade`). It must not be nil.
func (s *Service) GradeKitNaming(ctx context.Context, ticket *sandbox.Ticket, job gradewire.Job, scenarios func() []string, progress func(gradewire.ScenarioReport)) (*gradewire.Report, error) {
	defer ticket.Release() // a job that never reaches the child gives up its place
	key := ticket.Key()
	if job.Kit == "" {
		return nil, errors.New("grading: the job names no kit")
	}
	if job.Seeds == 0 {
		job.Seeds = DefaultSeeds
	}
	if only := job.Only; len(only) > 0 {
		scenarios = func() []string { return only }
	}
	if s.pool.Running() > 0 {
		// Another child is grading, so the cores are taken: a second lane
		// would only add its interpreters' compiles.
		job.Lanes = 1
	}
	python := strings.EqualFold(filepath.Ext(job.File), ".py")
	if python {
		ctx = sandbox.WithKind(ctx, KindPython)
		if cpu, give := s.cpus.take(); cpu >= 0 {
			defer give()
			job.CPU = &cpu
		}
	}
	g := grade{kit: job.Kit, seed: job.FirstSeed, order: scenarios, source: job.Source}
	// The referee builds Go natively: it has nothing to say of Python.
	referee := s.Referee != nil && !python
	job.Native = referee
	rep, out, stream, err := s.run(ctx, ticket, g, job, progress)
	if err != nil || out == nil || !referee {
		return rep, err
	}
	// A Check stays interpreted and fast: it is refereed only when the
	// interpreter gave no verdict (refused the code, crashed on it, or
	// stopped at a limit). A Grade's verdict is always checked: a pass is
	// what a candidate keeps, and the interpreter can be wrong silently.
	// So is a what-if's: it is read against the stored Grade's refereed
	// verdicts, and a change there must be the code's, not the route's.
	if check := len(job.Only) > 0 && job.Variation == nil; check && rep.Status != gradewire.StatusError {
		return rep, nil
	}
	native := stream.nativeProgram()
	low := out.Ending == sandbox.EndCPUTime || out.Ending == sandbox.EndWallTime || s.pool.Marked(key)
	return s.judge(ctx, g, job, native, rep, low), nil
}

// grade is what the parent knows of a job while the child runs it.
type grade struct {
	kit    string
	seed   int64
	order  func() []string // the scenarios in the child's order; nil or none when unknown
	source string
}

// scenarios is g.order's list, nil when unknown.
func (g grade) scenarios() []string {
	if g.order == nil {
		return nil
	}
	return g.order()
}

func (g grade) newReport() *gradewire.Report {
	return &gradewire.Report{Version: gradewire.ReportVersion, Kit: g.kit, Seed: g.seed,
		Diagnostics: []gradewire.Diagnostic{}, Scenarios: []gradewire.ScenarioReport{},
		Summary: gradewire.Summary{Defects: []gradewire.DefectStatus{}}}
}

// run sends job to a child and interprets what comes back; the outcome
// is nil when no child ran.
func (s *Service) run(ctx context.Context, ticket *sandbox.Ticket, g grade, job any, progress func(gradewire.ScenarioReport)) (*gradewire.Report, *sandbox.Outcome, *resultStream, error) {
	if len(g.source) > gradewire.MaxSourceBytes {
		return notGradable(g, fmt.Sprintf("The source file is %s; the grader accepts at most %s (source too large).",
			bytesize.Format(int64(len(g.source))), bytesize.Format(gradewire.MaxSourceBytes))), nil, nil, nil
	}
	input, err := json.Marshal(job)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("grading: encode the job: %w", err)
	}
	stream := &resultStream{progress: progress}
	if ticket == nil {
		if ticket, err = s.pool.Admit(""); err != nil {
			return nil, nil, nil, err
		}
	}
	out, err := ticket.Run(ctx, input, stream.receive)
	if err != nil {
		if errors.Is(err, sandbox.ErrBusy) {
			return nil, nil, nil, err
		}
		return nil, nil, nil, fmt.Errorf("grading: run the grading child: %w", err)
	}
	report, err := s.interpret(ctx, g, out, stream)
	return report, out, stream, err
}

// interpret turns how the child ended and what it sent into a report, or
// an error when the grading system itself failed.
func (s *Service) interpret(ctx context.Context, g grade, out *sandbox.Outcome, stream *resultStream) (*gradewire.Report, error) {
	report, childErr, finished, broken := stream.result()
	level := slog.LevelDebug
	if !out.OK() {
		level = slog.LevelInfo // a stopped submission: normal, but worth seeing
	}
	s.log.Log(ctx, level, "grading: child finished",
		slog.String("kit", g.kit), slog.Int64("seed", g.seed),
		slog.String("ending", out.Describe()), slog.Duration("wall", out.Wall),
		slog.Duration("cpu", out.CPU), slog.Int64("max_rss", out.MaxRSS),
		slog.Bool("namespaces", out.Namespaces), slog.Bool("warm", out.Warm), slog.Int("reused", out.Reused))

	switch {
	case broken != nil:
		return nil, broken
	case stream.stoppedAt() != "":
		// A process of the submission's own (a Python lane) ran into the
		// limit: worded as a child that limit stopped is worded.
		at := *out
		at.Ending = stream.stoppedAt()
		return stoppedReport(g, finished, &at), nil
	case report != nil:
		// The child finished its report; whatever happened after (a late
		// crash while exiting) changes nothing the candidate did.
		if report.Seed == 0 {
			report.Seed = g.seed // a kit's child reports no seed
		}
		return report, nil
	case out.Ending == sandbox.EndCanceled:
		return nil, fmt.Errorf("grading: grading stopped: %w", context.Cause(ctx))
	case childErr != "":
		return s.keepFinished(ctx, g, finished, fmt.Errorf("grading: the grading child failed: %s", childErr))
	case out.OK():
		return s.keepFinished(ctx, g, finished, fmt.Errorf("grading: the grading child exited without a report (stderr: %q)", lastLines(out.Stderr, 5)))
	}
	if out.Ending == sandbox.EndCrash && out.Fatal == "" {
		// A crash without a runtime message is not something interpreted
		// code can cause (it cannot exit or signal): the child broke.
		s.log.Error("grading: grading child crashed without a runtime message",
			slog.String("describe", out.Describe()), slog.String("stderr", lastLines(out.Stderr, 10)))
	}
	return stoppedReport(g, finished, out), nil
}

// keepFinished handles a child that broke (the grader's fault, never the
// submission's) after some scenarios finished: those are kept and shown,
// in a report that says the rest could not be graded and why; the failure
// is logged as the grader's. With nothing finished there is nothing to
// show, and the error goes to the caller.
func (s *Service) keepFinished(ctx context.Context, g grade, finished []gradewire.ScenarioReport, err error) (*gradewire.Report, error) {
	if len(finished) == 0 {
		return nil, err
	}
	s.log.ErrorContext(ctx, "grading: the grading child broke; the finished scenarios are kept",
		slog.Int("finished", len(finished)), slog.Int("scenarios", len(g.scenarios())), slog.String("error", err.Error()))
	r := notGradable(g, fmt.Sprintf("The grader itself failed %s, a fault of the grader and not of your code; the scenarios that finished are shown.", where(g.scenarios(), finished)))
	withFinished(r, g, finished)
	return r, nil
}

// notGradable is a report for a job that could not be graded to the end.
func notGradable(g grade, message string) *gradewire.Report {
	r := g.newReport()
	r.Status = gradewire.StatusError
	r.Message = message
	return r
}

// stoppedReport is the report of a child stopped by a limit or a crash: the
// scenarios that had finished, and a message naming the limit and the
// scenario that was running.
func stoppedReport(g grade, finished []gradewire.ScenarioReport, out *sandbox.Outcome) *gradewire.Report {
	r := notGradable(g, fmt.Sprintf("The submission was stopped %s: %s.", where(g.scenarios(), finished), stopReason(out)))
	withFinished(r, g, finished)
	return r
}

func withFinished(r *gradewire.Report, g grade, finished []gradewire.ScenarioReport) {
	r.Scenarios = append(r.Scenarios, finished...)
	r.Summary.ScenariosTotal = max(len(g.scenarios()), len(finished))
	for _, sc := range finished {
		if sc.Status == gradewire.StatusPass {
			r.Summary.ScenariosPassed++
		}
	}
}

// where says which scenario was running when the child was stopped. The
// child loads the submission once, then runs scenarios in order and
// streams them in order: the first that had not finished was running.
func where(order []string, finished []gradewire.ScenarioReport) string {
	n := len(finished)
	switch {
	case len(order) == 0 && n == 0:
		return "while the submission was loading or running its first scenario"
	case len(order) == 0:
		return fmt.Sprintf("after %d scenario%s had finished", n, plural(n))
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
			bytesize.Format(l.AddressSpace))
	case sandbox.EndResultLimit:
		return fmt.Sprintf("its results passed the output limit of %s", bytesize.Format(int64(l.ResultBytes)))
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
	progress func(gradewire.ScenarioReport)

	mu       sync.Mutex
	finished []gradewire.ScenarioReport
	report   *gradewire.Report
	native   *gradewire.NativeProgram
	texts    gradewire.Texts // the invariants' texts the child sent once
	err      string
	broken   error // the child did not speak the protocol
	// stopped is the limit a process the child started for the
	// submission (a Python lane) ran into, which stopped the grade.
	stopped sandbox.Ending
}

// receive handles one NDJSON line. A line that does not decode means the
// child is not speaking the protocol: the child is killed.
func (s *resultStream) receive(line []byte) error {
	var msg gradewire.ChildMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		s.mu.Lock()
		s.broken = fmt.Errorf("grading: undecodable result line from the child: %w", err)
		s.mu.Unlock()
		return s.broken
	}
	s.mu.Lock()
	if s.texts == nil {
		s.texts = gradewire.Texts{}
	}
	if !s.texts.Fill(&msg) {
		s.broken = errors.New("grading: the child left out the texts of an invariant it never sent")
		s.mu.Unlock()
		return s.broken
	}
	switch {
	case msg.Scenario != nil:
		s.finished = append(s.finished, *msg.Scenario)
	case msg.Native != nil && s.native == nil:
		// The first native copy is the one the child made before any
		// submitted code ran; a later one is the submission's doing.
		s.native = msg.Native
	case msg.Report != nil:
		if !msg.Attach(s.finished) {
			s.broken = fmt.Errorf("grading: the child's report counts %d scenarios sent ahead of it; %d came", msg.Streamed, len(s.finished))
			s.mu.Unlock()
			return s.broken
		}
		s.report = msg.Report
	case msg.Error != "":
		s.err = msg.Error
	case msg.Stopped != "":
		if sandbox.Ending(msg.Stopped) != sandbox.EndCPUTime {
			s.broken = fmt.Errorf("grading: the child says a limit it cannot have stopped at: %q", msg.Stopped)
			s.mu.Unlock()
			return s.broken
		}
		s.stopped = sandbox.Ending(msg.Stopped)
	}
	s.mu.Unlock()
	if msg.Scenario != nil && s.progress != nil {
		s.progress(*msg.Scenario)
	}
	return nil
}

// nativeProgram is the native copy the child sent, nil if it sent none.
func (s *resultStream) nativeProgram() *gradewire.NativeProgram {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.native
}

// stoppedAt is the limit the child said a process of the submission's
// own ran into, "" if none.
func (s *resultStream) stoppedAt() sandbox.Ending {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

func (s *resultStream) result() (*gradewire.Report, string, []gradewire.ScenarioReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.report, s.err, s.finished, s.broken
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
