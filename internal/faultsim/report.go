package faultsim

import (
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// Report statuses.
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error" // the code could not be graded (it does not load)
)

// Report is the data of a grade; the web layer renders it.
type Report struct {
	Kit         string                 `json:"kit"`
	Status      string                 `json:"status"`
	Message     string                 `json:"message,omitempty"`
	Diagnostics []gradewire.Diagnostic `json:"diagnostics,omitempty"`
	Scenarios   []ScenarioResult       `json:"scenarios"`
	// Defects is the summary of a kit with a table of defects (see
	// DefectTable), nil for one without.
	Defects []DefectStatus `json:"defects,omitempty"`
	// Story is how the kit draws its runs (Storyteller), nil when it
	// does not.
	Story *gradewire.Story `json:"story,omitempty"`
	// Stopped, when set, is the limit of the grading process (a
	// sandbox.Ending: "cpu-time") that a process of the submission's own
	// ran into (a Python lane), which stopped the grade: the grading
	// child reports it as the parent reports a child the limit stopped
	// (gradewire.ChildMessage.Stopped). Status is then error.
	Stopped string `json:"-"`
}

// DefectStatus is one defect of a kit's table that the grade examined.
type DefectStatus struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Kind  string `json:"kind"`
	Fixed bool   `json:"fixed"`
}

// ScenarioResult is one scenario over every run explored: each invariant
// held in all of them, or failed in the run named, with its evidence. The
// calls, end state and trace are those of the first failing run (the first
// run when all held).
type ScenarioResult struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Status      string `json:"status"`
	// Message says what went wrong with the scenario as a whole: the
	// code that did not load, goroutines blocked forever.
	Message     string            `json:"message,omitempty"`
	Runs        int               `json:"runs"`
	Invariants  []InvariantResult `json:"invariants"`
	Run         string            `json:"run"`
	FailingSeed *int64            `json:"failing_seed,omitempty"`
	Calls       []CallResult      `json:"calls"`
	EndState    []string          `json:"end_state"`
	Trace       []Event           `json:"trace"`
	// TraceTruncated: the run's trace was longer than the report keeps;
	// OutputTruncated: a call printed more than its share.
	TraceTruncated  bool `json:"trace_truncated,omitempty"`
	OutputTruncated bool `json:"output_truncated,omitempty"`
	// Repeated is how many of the Runs were not made because they would
	// have repeated a twin's (see twins), for benchmarks: the report is
	// the same either way.
	Repeated int `json:"-"`
	// Choices are the shown run's choices (see variation.go); Minimal the
	// smallest variation of a failing run that still fails (shrink.go).
	Choices *gradewire.RunChoices `json:"choices,omitempty"`
	Minimal *gradewire.MinimalRun `json:"minimal,omitempty"`
	// FaultsFired are the classes of the faults that fired in any of the
	// scenario's runs, in gradewire's order; FaultsUnfired says which of
	// its scripted faults fired in none (FaultRef.Text).
	FaultsFired   []string `json:"faults_fired,omitempty"`
	FaultsUnfired []string `json:"faults_unfired,omitempty"`
	// The defects the checked invariants point to, and those of the
	// ones that failed (see DefectTable).
	examined, violated []string
	// leaked labels the run after which no run of the scenario was made
	// because it leaked goroutines (see Run.Leaked), "" if none was cut.
	leaked string
}

// InvariantResult is one invariant of a scenario.
type InvariantResult struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Held  bool   `json:"held"`
	// NotChecked: the scenario does not judge this invariant (Held is
	// then true, and means nothing).
	NotChecked bool     `json:"not_checked,omitempty"`
	Why        string   `json:"why,omitempty"`
	Defect     string   `json:"defect,omitempty"`
	Evidence   []string `json:"evidence,omitempty"`
	Run        string   `json:"run,omitempty"`
}

// CallResult is how one call of the entry point ended in the run shown.
type CallResult struct {
	Worker    string `json:"worker"`
	Subject   string `json:"subject"`
	Restarted bool   `json:"restarted,omitempty"`
	Ended     string `json:"ended"`
	Result    string `json:"result,omitempty"`
	Outcome   string `json:"outcome,omitempty"`
	Error     string `json:"error,omitempty"`
	Panic     string `json:"panic,omitempty"`
	CrashedAt string `json:"crashed_at,omitempty"`
	Output    string `json:"output,omitempty"`
}

// Failed lists the ids of the invariants that failed, per scenario name.
func (r *Report) Failed() map[string][]string {
	out := map[string][]string{}
	for _, sc := range r.Scenarios {
		for _, inv := range sc.Invariants {
			if !inv.Held && !inv.NotChecked {
				out[sc.Name] = append(out[sc.Name], inv.ID)
			}
		}
	}
	return out
}
