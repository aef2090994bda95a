package gradewire

// A run of a scenario is decided by its seed, its crash point, the faults
// its scenario scripts and the scheduler's picks among actors ready at the
// same moment. The engine records each of them as a numbered choice of the
// run (RunChoices), and a run can be made again with some of them changed
// (Variation): a fault switched off, the crash point removed, a pick
// forced. The same seed and Variation give the same run, event for event.
// Minimal failing runs (MinimalRun) and what-if replays are both such
// variations of a failing run.

// Fault classes: what kind of fault a scripted fault is, whatever kit
// scripts it.
const (
	FaultLostReply    = "lost-reply"        // handled, but the answer never comes back
	FaultLostRequest  = "lost-request"      // lost on the way: never handled, no answer
	FaultConnection   = "connection"        // never sent: the client says so at once
	Fault5xx          = "5xx"               // a server error answer
	Fault429          = "429"               // too many requests
	Fault4xx          = "4xx"               // another client error answer (408, 409, ...)
	FaultSlow         = "slow"              // handled slower than the client waits
	FaultStoreWrite   = "store-write-fails" // a database write fails, changing nothing
	FaultStoreRead    = "store-read-fails"  // a database read or search fails
	FaultHarnessPanic = "harness-panic"     // a call of the harness panics
	FaultCrash        = "crash"             // a worker's process dies at its crash point
)

// FaultClasses are the fault classes in the order reports list them.
var FaultClasses = []string{FaultLostReply, FaultLostRequest, FaultConnection, Fault5xx, Fault429, Fault4xx, FaultSlow,
	FaultStoreWrite, FaultStoreRead, FaultHarnessPanic, FaultCrash}

// RunRef names one run of a scenario: its seed and its crash point (none
// when CrashWorker is empty).
type RunRef struct {
	Seed        int64  `json:"seed"`
	CrashWorker string `json:"crash_worker,omitempty"`
	CrashCall   int    `json:"crash_call,omitempty"`
	CrashBefore bool   `json:"crash_before,omitempty"`
}

// Variation asks for one scenario's run made again with some of its
// choices changed (Job.Variation). Without Drop, NoCrash, Picks and Rest
// it is the run Run names, as the grade made it.
type Variation struct {
	// Scenario is the scenario's name; Run the run varied.
	Scenario string `json:"scenario"`
	Run      RunRef `json:"run"`
	// Drop are the ids of the scripted faults switched off (FaultChoice.ID).
	Drop []string `json:"drop,omitempty"`
	// NoCrash removes the run's crash point: the worker's process lives.
	NoCrash bool `json:"no_crash,omitempty"`
	// Skip names workers whose calls are not made at all.
	Skip []string `json:"skip,omitempty"`
	// Picks force scheduling picks, by their number in the run (PickChoice.N).
	Picks []Pick `json:"picks,omitempty"`
	// Rest says how every pick Picks does not name is made: RestSeeded
	// (the seed's, as in the grade) or RestFirst (the first actor ready,
	// by name, then by arrival).
	Rest string `json:"rest,omitempty"`
	// Holds make an actor wait: see Hold.
	Holds []Hold `json:"holds,omitempty"`
	// StopAfter, when above 0, stops the run once its trace holds that
	// many events: the scheduler lets no actor take another step (the
	// step under way ends first), and the world stays as it was then. A
	// minimal run whose invariant is judged on a prefix of the run is
	// cut there: what came after did not change the outcome. Only the
	// invariants a run's prefix can break are judged of a run cut so.
	StopAfter int `json:"stop_after,omitempty"`
	// Limits make faults that take effect many times (an outage of every
	// request, a span of them) smaller: each takes effect only its first
	// Times times, and the requests after meet no fault.
	Limits []FaultLimit `json:"limits,omitempty"`
}

// FaultLimit lets the fault ID (FaultChoice.ID) take effect at most Times
// times (at least 1) in a run (Variation.Limits).
type FaultLimit struct {
	ID    string `json:"id"`
	Times int    `json:"times"`
}

// How the picks no Pick names are made (Variation.Rest).
const (
	RestSeeded = ""
	RestFirst  = "first"
)

// Pick forces the Nth pick of a run (from 1) to take Actor, if Actor is
// among those ready then; "" takes the first actor ready. An actor not
// ready then leaves the pick to Variation.Rest. Where Actor has several
// steps ready (goroutines of one worker), Nth says which, by arrival
// (from 0; PickChoice.Nth).
type Pick struct {
	N     int    `json:"n"`
	Actor string `json:"actor,omitempty"`
	Nth   int    `json:"nth,omitempty"`
}

// Hold keeps every step of Actor (a worker and the actors it starts:
// "worker-2" holds "caller/worker-2" too) from being picked while the call
// of Until has not ended: "worker-2 starts after worker-1 ends". Where
// nothing else is ready and no time can pass, the hold gives way, and the
// trace says so.
type Hold struct {
	Actor string `json:"actor"`
	Until string `json:"until"`
}

// RunChoices are the choices a run made, numbered, as a Variation names
// them.
type RunChoices struct {
	Run RunRef `json:"run"`
	// Faults are the faults the scenario scripts, each with whether it
	// fired in the run, and when first.
	Faults []FaultChoice `json:"faults,omitempty"`
	// Crash is the run's crash point, nil for a run without one.
	Crash *CrashChoice `json:"crash,omitempty"`
	// Picks are the scheduler's picks where more than one actor was ready
	// (at most MaxPicksKept of them), in order.
	Picks []PickChoice `json:"picks,omitempty"`
	// PicksTruncated: the run made more picks than are kept.
	PicksTruncated bool `json:"picks_truncated,omitempty"`
}

// MaxPicksKept bounds the picks a report keeps of one run.
const MaxPicksKept = 200

// FaultChoice is one fault a scenario scripts.
type FaultChoice struct {
	// ID names the fault within its scenario ("faults[2]",
	// "phases[1].faults[0]"): a Variation drops it by this.
	ID    string `json:"id"`
	Class string `json:"class"`
	// Text says what the fault is, to follow "without": "the lost reply
	// on request 3".
	Text  string `json:"text"`
	Fired bool   `json:"fired"`
	// Off: the run was made with it switched off (Variation.Drop).
	Off bool `json:"off,omitempty"`
	// At is when it first fired ("+1.2s"); Event the index in the trace of
	// the first event after it fired.
	At    string `json:"at,omitempty"`
	Event int    `json:"event,omitempty"`
	// Times is how many times it took effect, when more than once (an
	// outage of every request); Splits says a Variation may limit it
	// (Variation.Limits).
	Times  int  `json:"times,omitempty"`
	Splits bool `json:"splits,omitempty"`
}

// CrashChoice is a run's crash point, and whether the process died there.
type CrashChoice struct {
	Worker string `json:"worker"`
	Point  string `json:"point"` // "before its call 2"
	Fired  bool   `json:"fired"`
	At     string `json:"at,omitempty"`
}

// PickChoice is one pick of the scheduler among actors ready at once.
type PickChoice struct {
	N      int      `json:"n"`
	At     string   `json:"at"`
	Event  int      `json:"event"` // index in the trace of the picked actor's first event
	Ready  []string `json:"ready"` // the actors ready, in the scheduler's order
	Picked string   `json:"picked"`
	Nth    int      `json:"nth,omitempty"`
}

// MinimalRun is the smallest variation of a scenario's failing run found
// that still breaks the same invariant (ScenarioReport.Minimal).
type MinimalRun struct {
	// Invariant is the id of the invariant it breaks, Message its evidence.
	Invariant string    `json:"invariant"`
	Message   string    `json:"message,omitempty"`
	Variation Variation `json:"variation"`
	// Removed says what of the shown run is gone, each to follow
	// "without": "the lost reply on request 3".
	Removed []string `json:"removed"`
	// Steps tell the run in three to six sentences.
	Steps []string `json:"steps"`
	// Trace is the minimal run's; empty when it is the shown run (Same).
	Trace []TraceEvent `json:"trace"`
	// Same: nothing could go from the shown run without the invariant
	// holding (each of its faults, its crash, its calls and its picks is
	// needed, and no event after it broke can be cut: the invariant is
	// judged on the run's end, or broke at its last step), so the
	// minimal run is the shown run.
	Same bool `json:"same,omitempty"`
	// Cut is how many events of the run the shrink ended on came after
	// the point where the invariant broke, and were left out
	// (Variation.StopAfter); 0 when the run was not cut.
	Cut int `json:"cut,omitempty"`
	// Runs is how many runs the search made; Exhausted says its budget
	// ran out before it was done (what is shown is the smallest so far).
	Runs      int  `json:"runs"`
	Exhausted bool `json:"exhausted,omitempty"`
}

// Coverage says which fault classes fired in the runs that passed
// (Report.Coverage): a pass where no fault fired proves little.
type Coverage struct {
	// Fired are the classes that fired in a passed scenario's runs.
	Fired []string `json:"fired"`
	// Unfired are the classes scripted in passed scenarios that fired in
	// none of their runs.
	Unfired []string `json:"unfired,omitempty"`
}
