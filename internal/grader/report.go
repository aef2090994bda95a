package grader

import "github.com/faultline-dev/faultline/internal/gradewire"

// The report's data is the wire contract with the parent
// (internal/gradewire); these names keep the refund grader's code as it
// was written.

// ReportVersion is the version of the report's JSON shape.
const ReportVersion = gradewire.ReportVersion

// Report and scenario statuses.
const (
	StatusPass  = gradewire.StatusPass
	StatusFail  = gradewire.StatusFail
	StatusError = gradewire.StatusError
)

// Invariant statuses.
const (
	InvariantHeld       = gradewire.InvariantHeld
	InvariantViolated   = gradewire.InvariantViolated
	InvariantNotChecked = gradewire.InvariantNotChecked
)

// MaxSourceBytes is the largest submission graded.
const MaxSourceBytes = gradewire.MaxSourceBytes

type (
	Diagnostic       = gradewire.Diagnostic
	Report           = gradewire.Report
	Summary          = gradewire.Summary
	DefectStatus     = gradewire.DefectStatus
	ScenarioReport   = gradewire.ScenarioReport
	InvariantResult  = gradewire.InvariantResult
	InvocationResult = gradewire.InvocationResult
	TraceEvent       = gradewire.TraceEvent
	Timings          = gradewire.Timings
	// Job is a refund grade as the parent sends it.
	Job = gradewire.RefundJob
)
