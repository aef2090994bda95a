// Package faultsim is the problem-agnostic grading engine that runs in the
// grading child: a virtual clock (a testing/synctest bubble), a seeded
// scheduler that orders every step of a run, workers that stand for
// processes and die at chosen crash points, the exploration of schedules
// and crash points, the trace, and the evaluation of a family's invariants
// into the report's data.
//
// Everything a problem family knows (its harness API, its fakes, its
// scenario schema, its catalogue of invariants, its entry point) lives in a
// Kit; the engine knows none of it. A test keeps family names out of this
// package.
package faultsim

import (
	"context"
	"reflect"
	"time"
)

// Kit is what a problem family provides to the engine.
type Kit interface {
	// Name is the kit's name, as a problem's front matter spells it
	// (code.kit).
	Name() string
	// Harness is the package a submission imports, for the interpreter.
	Harness() Harness
	// Entry is the function a submission declares.
	Entry() EntrySpec
	// Invariants is the family's catalogue: one table, in report order.
	Invariants() []Invariant
	// ParseScenarios reads a scenarios file of the kit's schema. Its
	// errors name file:line; they are the content's, not the engine's.
	ParseScenarios(file string, data []byte) ([]Scenario, error)
	// NewWorld builds the fakes of one run of sc. It is called inside the
	// run's bubble, before any actor starts: the fakes pass r's gate on
	// every step and write r's trace.
	NewWorld(sc Scenario, r *Run) (World, error)
}

// Harness is the host package a submission imports: its import path and
// its symbols as `yaegi extract` generates them (keyed "path/name"). Every
// export of it is the candidate's API: the fakes live elsewhere.
type Harness struct {
	Path    string
	Symbols map[string]map[string]reflect.Value
}

// EntrySpec is the entry point's signature: parameter and result types
// written with import paths (as gointerp.Source.TypeString prints them), and
// Want as the user reads it.
type EntrySpec struct {
	Name    string
	Params  []string
	Results []string
	Want    string
}

// Scenario is one of a kit's scenarios: the kit's own schema, seen by the
// engine only through its Plan.
type Scenario interface {
	Plan() Plan
}

// Plan is what the engine needs of a scenario, whatever the family.
type Plan struct {
	Name  string
	Title string
	// Calls are the invocations of the entry point, each on a worker of
	// its own (a process), starting At after the run begins.
	Calls []Call
	// Budget is the virtual time a run may take before it is stopped.
	Budget time.Duration
	// Crash names the workers whose crash points are explored: each of
	// their harness calls, before and after.
	Crash []string
	// Restart: a crashed worker's call runs again this long after its
	// process died, as the same worker (a restarted pod keeps its name).
	// Zero: no restart.
	Restart time.Duration
	// Checks are the invariant ids judged; empty means all of the kit's.
	Checks []string
}

// Call is one invocation of the entry point.
type Call struct {
	Worker string
	At     time.Duration
	// Subject is what the call is about, for the kit (an id); the engine
	// only prints it.
	Subject string
}

// World is one run's fakes, built by a Kit.
type World interface {
	// Invoke calls entry (the submission's entry function, of the kit's
	// entry type) as worker w for call c. result is how the call's
	// return values read in the report. Invoke runs on the worker's
	// goroutine and may never return (a run stopped, a crashed worker).
	Invoke(ctx context.Context, w *Worker, entry any, c Call) (result string)
	// EndState describes the world once the run is over, for the report.
	EndState() []string
}

// Invariant is one entry of a kit's catalogue.
type Invariant struct {
	ID     string
	Title  string
	Why    string // why it matters
	Defect string // the defect a failure points to
	// Check judges one finished run; it returns the evidence of a
	// violation, nil when the invariant held.
	Check func(r *Run) []string
}
