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
// package and its subpackages.
//
// How a submission runs is a Runtime (runtime.go), by the file's language,
// which gives a Program, one per route, in a subpackage of its own:
// interpreted (Go in yaegi, the grading child's default route), pyrun
// (Python in processes of its own, answered over pipes) and native
// (natively compiled Go copies, the referee's). Both give the code the same
// stand-ins for standard functions (standins.go), which find their worker
// through its slot (slots.go). bubble gives a process the virtual clock;
// faultsimtest and nativebuild are for tests only.
package faultsim

import (
	"context"
	"reflect"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
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
	// every step and write r's trace. The world must not read r's seed
	// during the run (a worker's Seed, which the engine watches, is the
	// one to use). A run the engine does not make, because its schedule
	// would repeat an earlier run's (see twins.go), gets that run's world,
	// trace and calls under its own seed and crash point: what a kit keeps
	// of a judged run it keeps per Run, never per World.
	NewWorld(sc Scenario, r *Run) (World, error)
}

// A Storyteller is a kit whose runs are drawn as sequence diagrams: its
// fakes' lanes, and what its effect marks count. Its events say what each
// is in the picture (Trace.AddStep). A kit that is no Storyteller has its
// runs listed, event by event.
type Storyteller interface {
	Story() gradewire.Story
}

// Harness is the host package a submission imports: its import path and
// its symbols as `yaegi extract` generates them (keyed "path/name"). Every
// export of it is the candidate's API: the fakes live elsewhere.
type Harness struct {
	Path    string
	Symbols map[string]map[string]reflect.Value
}

// SymbolKey is the key of the package at importPath in Harness.Symbols,
// as yaegi keys its exports: "importpath/name". It is the engine's, so
// that a kit names its symbols without importing the interpreter: the
// native referee's program links the kit.
func SymbolKey(importPath string) string {
	return importPath + "/" + importPath[strings.LastIndex(importPath, "/")+1:]
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
	// An invariant left out shows in the report as not checked.
	Checks []string
	// Description says in prose what the scenario does, for the report.
	Description string
	// Phases, when set, run the calls in steps: every call names its
	// phase (Call.Phase), and phase i begins After once every call of
	// phase i-1 has ended (returned, panicked, or its process died). The
	// phases' clock is an actor of its own, "clock", which passes the
	// gate at each phase's start (see PhaseHook). Without phases every
	// call starts at once.
	Phases []Phase
	// Schedules is how many seeds the scenario runs, when it says so
	// (else Options.Seeds).
	Schedules int
	// EveryCrashPoint explores every crash point of the Crash workers,
	// with no cap (Options.MaxCrashRuns), and no further seeds.
	EveryCrashPoint bool
	// Defects maps an invariant id to the defect its failure points to in
	// this scenario, over the invariant's own (Invariant.Defect).
	Defects map[string]string
}

// Phase is one step of a scenario.
type Phase struct {
	Name  string
	After time.Duration
}

// Call is one invocation of the entry point.
type Call struct {
	Worker string
	At     time.Duration
	// Subject is what the call is about, for the kit (an id); the engine
	// only prints it.
	Subject string
	// Phase is the index of the call's phase in Plan.Phases.
	Phase int
	// When, if set, is an event of the world, opaque to the engine: the
	// call starts At after the event first happens (see Triggers), if its
	// phase is still open then; if the event never happens, it never
	// starts.
	When string
	// CancelAfter and Timeout end the call's context, as its caller
	// would: cancelled, or past a deadline, that long after the call
	// starts. Zero: never. The first to come is the one that happens.
	CancelAfter time.Duration
	Timeout     time.Duration
}

// How a call's context ends (Invocation.ContextEnds).
const (
	ContextCancelled = "cancelled"
	ContextDeadline  = "past its deadline"
)

// contextEnds is when c's context ends, since the call started, and how;
// zero when it never does.
func (c Call) contextEnds() (time.Duration, string) {
	switch {
	case c.CancelAfter > 0 && (c.Timeout <= 0 || c.CancelAfter <= c.Timeout):
		return c.CancelAfter, ContextCancelled
	case c.Timeout > 0:
		return c.Timeout, ContextDeadline
	}
	return 0, ""
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

// PhaseHook is a World told when each phase of a plan with phases
// begins, holding the gate as the actor "clock": where a world changes its
// script for the phase and says so in the trace.
type PhaseHook interface {
	PhaseStarts(i int, p Phase)
}

// Triggers is a World whose events start calls (Call.When). The world
// calls fire, inside the step that made the event happen, the first time
// event happens; fire says whether the call starts (false: its phase is
// over). Calls with a When need a World that has it.
type Triggers interface {
	When(c Call, fire func() bool)
}

// Reporter is a World that says how a call's result reads in the
// report's outcome and error columns; without it the result is split at
// its first ", ".
type Reporter interface {
	ResultParts(iv *Invocation) (outcome, err string)
}

// Learner is a Kit that learns from the submission before exploring a
// scenario: quiet executes one scenario once (a quiet variant of sc, say,
// to see what the code sends) and returns its run; Learn returns the
// scenario to explore in sc's place.
type Learner interface {
	Learn(sc Scenario, quiet func(Scenario) (*Run, error)) (Scenario, error)
}

// ReturnsJudge is a Kit whose catalogue judges a call that never returns
// itself: the engine's Returns invariant is left out of its reports.
type ReturnsJudge interface {
	JudgesReturns()
}

// Defect is one entry of a kit's table of defects: what the report's
// summary lists, fixed or not, for each defect some checked invariant of
// the grade points to.
type Defect struct {
	ID, Title, Kind string
}

// DefectTable is a Kit whose invariants point to defects by id (Defect
// and Plan.Defects hold ids of its table).
type DefectTable interface {
	Defects() []Defect
}

// Invariant is one entry of a kit's catalogue. A kit's invariant with the
// engine's id Returns replaces the engine's.
type Invariant struct {
	ID     string
	Title  string
	Why    string // why it matters
	Defect string // the defect a failure points to
	// Check judges one finished run; it returns the evidence of a
	// violation, nil when the invariant held.
	Check func(r *Run) []string
	// Judge, if set, is Check with the defect this violation points to
	// when its evidence names one better than the scenario does ("" for
	// the scenario's).
	Judge func(r *Run) (evidence []string, defect string)
	// CheckRuns, if set, judges all the runs of a scenario at once, after
	// every run held under Check: a property of the runs together (waits
	// that differ between processes, say). A violation is shown with the
	// last run.
	CheckRuns func(runs []*Run) []string
	// Prefix says a violation seen in a run's first events stays one in
	// any run that goes on from there: a safety property seen at an event
	// (a thing done twice, a message sent that must not be), not one of
	// the run's end (every call returns, the record ends settled). Only
	// such an invariant is judged of a run stopped early
	// (Variation.StopAfter), and the shrink cuts its minimal run where
	// it broke.
	Prefix bool
	// JudgesLeaks says the invariant fails every run that Leaked: then a
	// scenario that checks it makes no run after its first leaking one,
	// and the grade starts no scenario after it (see Run.Leaked).
	JudgesLeaks bool
}

func (inv Invariant) judge(r *Run) ([]string, string) {
	if inv.Judge != nil {
		return inv.Judge(r)
	}
	if inv.Check == nil {
		return nil, ""
	}
	return inv.Check(r), ""
}
