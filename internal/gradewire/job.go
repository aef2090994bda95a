package gradewire

// ChildCommand is the hidden subcommand that turns the server binary into
// a grading child. The parent's runner passes it; the binary dispatches it
// to the child side. It is not shown in usage.
const ChildCommand = "__grade-child"

// MaxSourceBytes is the largest submission graded: a whole solution is a
// few KiB, so anything near this is not one. The parent refuses larger
// sources before a child starts; the child bounds what it reads by it.
const MaxSourceBytes = 256 << 10

// Job is a grade by a kit, as the parent sends it: everything the child
// needs travels with it (the kit's name, the scenarios file as the author
// wrote it, the source), so the child keeps no catalogue of problems and
// content read at run time grades like built-in content.
type Job struct {
	Kit           string `json:"kit"`
	ScenariosFile string `json:"scenarios_file"` // for file:line in errors
	Scenarios     []byte `json:"scenarios"`
	// Only names the scenarios to run, in the file's order; empty runs all.
	Only      []string `json:"only,omitempty"`
	File      string   `json:"file"`
	Source    string   `json:"source"`
	Seeds     int      `json:"seeds,omitempty"`
	FirstSeed int64    `json:"first_seed,omitempty"`
	// Lanes, above zero, is the most runs the child executes at once: the
	// parent sets 1 when another child already has the cores.
	Lanes int `json:"lanes,omitempty"`
	// Problem is the problem's slug, for the referee's log; the child
	// does not read it.
	Problem string `json:"problem,omitempty"`
	// Native asks the child for the submission's native copy
	// (ChildMessage.Native), written before any of it runs, for the
	// native referee.
	Native bool `json:"native,omitempty"`
	// KeepPassed asks the child to send passed scenarios whole, trace
	// and end state too (Job.Keeps), which a report otherwise drops
	// (Kept): a passed scenario's run replayed on demand (issue 27).
	KeepPassed bool `json:"keep_passed,omitempty"`
	// Variation, when set, makes of the scenario it names the one run it
	// describes (a seed's run with faults switched off, its crash point
	// removed, picks forced) instead of exploring it: a what-if replay.
	// Only should name that scenario alone; FirstSeed stays the grade's
	// (a kit that learns from the code learns from that seed's run).
	Variation *Variation `json:"variation,omitempty"`
	// NoShrink asks for no minimal runs (ScenarioReport.Minimal).
	NoShrink bool `json:"no_shrink,omitempty"`
	// CPU is the CPU a Python grade keeps to (pyrun.Runtime.OneCPU): the
	// parent gives each of its Python grades going at once a CPU of its
	// own while there are enough. Nil: the child's choice.
	CPU *int `json:"cpu,omitempty"`
}

// ChildMessage is one NDJSON line a grading child writes on its result
// pipe: zero or more finished scenarios (progress), then exactly one line
// with the Report or, when the grading system itself broke (a bug, a
// broken kit or scenarios file, never the submission), Error.
type ChildMessage struct {
	Scenario *ScenarioReport `json:"scenario,omitempty"`
	Report   *Report         `json:"report,omitempty"`
	Error    string          `json:"error,omitempty"`
	// Native is the submission's native copy, when the job asked for it.
	Native *NativeProgram `json:"native,omitempty"`
	// Streamed, on a Report's line, is how many scenarios went ahead of
	// it on Scenario lines and are left out of it (Report.Streamed).
	Streamed int `json:"streamed,omitempty"`
	// Short, on a Scenario's line, says its invariants' titles and whys
	// are left out: sent on an earlier line, or on this one in Texts (see
	// gradewire.Texts).
	Short bool                     `json:"short,omitempty"`
	Texts map[string]InvariantText `json:"texts,omitempty"`
	// Stopped, instead of a Report, says the submission ran into a limit
	// of the grading process (a sandbox.Ending, "cpu-time") in a process
	// of its own that the child started (a Python lane), and the child
	// stopped the grade there: the parent reports it as it reports a
	// child that limit stopped, with the scenarios that had finished.
	Stopped string `json:"stopped,omitempty"`
}

// Plan is what the parent knows of a problem's scenarios without grading:
// their names in the order the child runs them (a progress total, the
// name of the scenario a stopped child was running), and the short list a
// Check (the fast pre-grade) runs; an empty Check runs every scenario.
type Plan struct {
	Scenarios []string
	Check     []string
}
