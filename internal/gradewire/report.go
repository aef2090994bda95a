package gradewire

import "fmt"

// ReportVersion is the version of the report's JSON shape.
const ReportVersion = 1

// Report and scenario statuses.
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error" // not gradable: compile error, forbidden import, a limit hit
)

// Invariant statuses.
const (
	InvariantHeld       = "held"
	InvariantViolated   = "violated"
	InvariantNotChecked = "not_checked"
)

// Diagnostic is a problem with the submitted source, at a line and column
// (1-based; 0 when unknown).
type Diagnostic struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

func (d Diagnostic) String() string {
	if d.Line == 0 {
		return d.Message
	}
	return fmt.Sprintf("line %d:%d: %s", d.Line, d.Column, d.Message)
}

// Report is the result of grading one submission: a fixed JSON shape, like
// exercism's test runner's, that the web app, the CLI and tests read.
type Report struct {
	Version int `json:"version"`
	// Kit names the kit that graded, empty in reports stored before the
	// refund grader became a kit.
	Kit         string           `json:"kit,omitempty"`
	Status      string           `json:"status"`
	Message     string           `json:"message"`
	Problem     string           `json:"problem"`
	Seed        int64            `json:"seed"`
	Diagnostics []Diagnostic     `json:"diagnostics"`
	Summary     Summary          `json:"summary"`
	Scenarios   []ScenarioReport `json:"scenarios"`
	// Timings are real durations; Sanitized removes them.
	Timings *Timings `json:"timings,omitempty"`
	// Referee is what the native referee said of this verdict; nil when
	// none was asked (a Check the interpreter graded, a report stored
	// before the referee).
	Referee *Referee `json:"referee,omitempty"`
	// Coverage is which fault classes fired in the scenarios that passed;
	// nil in reports stored before it, and where no scenario passed.
	Coverage *Coverage `json:"coverage,omitempty"`
}

// Summary says how many scenarios passed and which seed defects are fixed.
type Summary struct {
	ScenariosPassed int            `json:"scenarios_passed"`
	ScenariosTotal  int            `json:"scenarios_total"`
	Defects         []DefectStatus `json:"defects"`
}

// Defect kinds (DefectStatus.Kind).
const (
	DefectKindOriginal = "original" // a defect of the code the candidate was given
	DefectKindRewrite  = "rewrite"  // a mistake a rewrite can make
)

// DefectStatus is one seed defect: fixed (for a rewrite mistake: avoided)
// when no scenario showed a violation pointing to it. Kind says whether it
// is a defect of the original snippet or a mistake rewrites make.
type DefectStatus struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Kind  string `json:"kind"`
	Fixed bool   `json:"fixed"`
}

// DefectsOfKind returns the summary's defects of one kind, in report order.
func (s Summary) DefectsOfKind(kind string) []DefectStatus {
	var out []DefectStatus
	for _, d := range s.Defects {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	return out
}

// ScenarioReport is one scenario's result. When a run failed, the trace,
// invocations and output are those of the first failing run; otherwise of
// the first run.
type ScenarioReport struct {
	Name              string             `json:"name"`
	Title             string             `json:"title"`
	Description       string             `json:"description"`
	Status            string             `json:"status"`
	Message           string             `json:"message,omitempty"`
	SchedulesExplored int                `json:"schedules_explored"`
	FailingSeed       *int64             `json:"failing_seed,omitempty"`
	FailingRun        string             `json:"failing_run,omitempty"` // the seed, and the crash point if any
	Invariants        []InvariantResult  `json:"invariants"`
	Invocations       []InvocationResult `json:"invocations"`
	Output            string             `json:"output,omitempty"`
	OutputTruncated   bool               `json:"output_truncated,omitempty"`
	Trace             []TraceEvent       `json:"trace"`
	TraceTruncated    bool               `json:"trace_truncated,omitempty"`
	// EndState describes the world when the shown run was over, one line
	// per thing a kit keeps (an operation, a payment); empty when the kit
	// says nothing of it.
	EndState []string `json:"end_state,omitempty"`
	// Choices are the shown run's choices, numbered as a Variation names
	// them; nil in reports stored before them.
	Choices *RunChoices `json:"choices,omitempty"`
	// Minimal is, for a failing scenario, the smallest variation of the
	// shown run found that still breaks the same invariant (see
	// variation.go); nil when none was looked for or found.
	Minimal *MinimalRun `json:"minimal,omitempty"`
	// FaultsFired are the classes of the faults that fired in any of the
	// scenario's runs; FaultsUnfired says which scripted faults fired in
	// none.
	FaultsFired   []string `json:"faults_fired,omitempty"`
	FaultsUnfired []string `json:"faults_unfired,omitempty"`
}

// InvariantResult is one invariant in one scenario.
type InvariantResult struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Why     string `json:"why"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	// Defect is what a violation points to: the id of one of the
	// summary's defects (DefectTitle), or, from a kit without a defect
	// table, the defect in words.
	Defect string `json:"defect,omitempty"`
}

// InvocationResult is one call of the entry point in the shown run.
type InvocationResult struct {
	Worker string `json:"worker"`
	// RequestID is what the call was about (a refund request, an
	// operation); its JSON name is older than kits.
	RequestID string `json:"request_id"`
	Ended     string `json:"ended"` // returned, panicked, crashed, did-not-return, not-loaded
	Outcome   string `json:"outcome,omitempty"`
	Error     string `json:"error,omitempty"`
	Panic     string `json:"panic,omitempty"`
	CrashedAt string `json:"crashed_at,omitempty"`
}

// TraceEvent is one line of the event trace on the virtual clock.
type TraceEvent struct {
	At    string `json:"at"`    // offset from the run's start, "+10.4s"
	Actor string `json:"actor"` // worker-1, provider, store, clock
	Kind  string `json:"kind"`  // call, reply, drop, sleep, crash, log, state
	Text  string `json:"text"`
	// Rule is the id of the page's rule that decided this event (a fake's
	// answer), empty where no rule did.
	Rule string `json:"rule,omitempty"`
}

// Timings are real (wall-clock) durations in milliseconds: where the time
// of a grade went. They differ between runs of the same job.
type Timings struct {
	TotalMS      float64            `json:"total_ms"`
	CheckMS      float64            `json:"check_ms"`
	ScenariosMS  map[string]float64 `json:"scenarios_ms"`
	Runs         int                `json:"runs"`
	Workers      int                `json:"workers"`      // invocations of the entry point, all runs
	Interpreters int                `json:"interpreters"` // interpreters created and loaded
}

// Sanitized returns a copy without timings: the same source and seed give
// byte-identical JSON for it.
func (r *Report) Sanitized() *Report {
	c := *r
	c.Timings = nil
	if r.Referee != nil {
		ref := *r.Referee
		ref.BuildMS, ref.RunMS = 0, 0
		c.Referee = &ref
	}
	return &c
}

// ExitCode is the CLI's exit status: 0 when every invariant held, 1 when
// some were violated, 2 when the submission could not be graded.
func (r *Report) ExitCode() int {
	switch r.Status {
	case StatusPass:
		return 0
	case StatusFail:
		return 1
	}
	return 2
}

// DefectTitle is the title of the defect a violation points to: the
// summary's title for a defect id, else the words themselves (a kit's
// invariant names its defect in words).
func (r *Report) DefectTitle(defect string) string {
	for _, d := range r.Summary.Defects {
		if d.ID == defect {
			return d.Title
		}
	}
	return defect
}

// Passed counts the scenarios that passed and those graded, from the
// scenarios themselves: a report cut short by a limit has fewer than its
// summary's total.
func (r *Report) Passed() (passed, graded int) {
	for _, s := range r.Scenarios {
		if s.Status == StatusPass {
			passed++
		}
	}
	return passed, len(r.Scenarios)
}

// Failed lists the ids of the invariants violated, per scenario name.
func (r *Report) Failed() map[string][]string {
	out := map[string][]string{}
	for _, sc := range r.Scenarios {
		for _, inv := range sc.Invariants {
			if inv.Status == InvariantViolated {
				out[sc.Name] = append(out[sc.Name], inv.ID)
			}
		}
	}
	return out
}
