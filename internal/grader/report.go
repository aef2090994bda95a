package grader

import (
	"fmt"
	"io"
	"strings"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

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

// Diagnostic is a problem with the submitted source, with its position.
type Diagnostic = sandbox.Diagnostic

// Report is the result of grading one submission: a fixed JSON shape, like
// exercism's test runner's, that the web app, the CLI and tests read.
type Report struct {
	Version     int              `json:"version"`
	Status      string           `json:"status"`
	Message     string           `json:"message"`
	Problem     string           `json:"problem"`
	Seed        int64            `json:"seed"`
	Diagnostics []Diagnostic     `json:"diagnostics"`
	Summary     Summary          `json:"summary"`
	Scenarios   []ScenarioReport `json:"scenarios"`
	// Timings are real durations; Sanitized removes them.
	Timings *Timings `json:"timings,omitempty"`
}

// Summary says how many scenarios passed and which seed defects are fixed.
type Summary struct {
	ScenariosPassed int            `json:"scenarios_passed"`
	ScenariosTotal  int            `json:"scenarios_total"`
	Defects         []DefectStatus `json:"defects"`
}

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
}

// InvariantResult is one invariant in one scenario.
type InvariantResult struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Why     string `json:"why"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	Defect  string `json:"defect,omitempty"` // the seed defect a violation points to
}

// InvocationResult is one call of RefundMoney in the shown run.
type InvocationResult struct {
	Worker    string `json:"worker"`
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
}

// Timings are real (wall-clock) durations in milliseconds: where the time
// of a grade went. They differ between runs of the same job.
type Timings struct {
	TotalMS      float64            `json:"total_ms"`
	CheckMS      float64            `json:"check_ms"`
	ScenariosMS  map[string]float64 `json:"scenarios_ms"`
	Runs         int                `json:"runs"`
	Workers      int                `json:"workers"`      // invocations of RefundMoney, all runs
	Interpreters int                `json:"interpreters"` // interpreters created and loaded
}

// Sanitized returns a copy without timings: the same source and seed give
// byte-identical JSON for it.
func (r *Report) Sanitized() *Report {
	c := *r
	c.Timings = nil
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

// WriteText prints the report for a terminal.
func (r *Report) WriteText(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("%s: %s\n", strings.ToUpper(r.Status), r.Message)
	for _, d := range r.Diagnostics {
		p("  %s\n", d)
	}
	if r.Status == StatusError && len(r.Scenarios) == 0 {
		return
	}
	p("\nScenarios (%d of %d passed, seed %d):\n", r.Summary.ScenariosPassed, r.Summary.ScenariosTotal, r.Seed)
	for _, s := range r.Scenarios {
		mark := "ok  "
		if s.Status != StatusPass {
			mark = "FAIL"
		}
		p("  %s %-24s %s (%d run(s))\n", mark, s.Name, s.Title, s.SchedulesExplored)
		if s.Status == StatusPass {
			continue
		}
		if s.Message != "" {
			p("       %s\n", s.Message)
		}
		if s.FailingRun != "" {
			p("       first failing run: %s\n", s.FailingRun)
		}
		for _, inv := range s.Invariants {
			if inv.Status != InvariantViolated {
				continue
			}
			p("       violated %s (defect: %s)\n         %s\n", inv.ID, inv.Defect, inv.Message)
		}
		for _, iv := range s.Invocations {
			line := fmt.Sprintf("%s %s", iv.Worker, iv.Ended)
			if iv.Outcome != "" {
				line += " " + iv.Outcome
			}
			if iv.Error != "" {
				line += ", error: " + iv.Error
			}
			if iv.Panic != "" {
				line += ", panic: " + iv.Panic
			}
			if iv.CrashedAt != "" {
				line += " " + iv.CrashedAt
			}
			p("       %s\n", line)
		}
		p("       trace:\n")
		for _, e := range s.Trace {
			p("         %9s %-10s %-6s %s\n", e.At, e.Actor, e.Kind, e.Text)
		}
		if s.TraceTruncated {
			p("         ... (trace cut off)\n")
		}
		if s.Output != "" {
			p("       output:\n")
			for _, line := range strings.Split(strings.TrimRight(s.Output, "\n"), "\n") {
				p("         | %s\n", line)
			}
		}
	}
	if ds := r.Summary.DefectsOfKind(DefectKindOriginal); len(ds) > 0 {
		p("\nDefects of the original code:\n")
		for _, d := range ds {
			mark := "not fixed"
			if d.Fixed {
				mark = "fixed"
			}
			p("  %-9s %-26s %s\n", mark, d.ID, d.Title)
		}
	}
	if ds := r.Summary.DefectsOfKind(DefectKindRewrite); len(ds) > 0 {
		p("\nMistakes a rewrite can make:\n")
		for _, d := range ds {
			mark := "made"
			if d.Fixed {
				mark = "avoided"
			}
			p("  %-9s %-26s %s\n", mark, d.ID, d.Title)
		}
	}
}
