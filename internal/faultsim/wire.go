package faultsim

import (
	"fmt"
	"strings"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// The engine's report leaves the child as the wire's report
// (internal/gradewire), the one shape the server renders and stores for
// every kit. A kit's invariant names its defect in words, or by an id of
// the kit's table of defects (DefectTable), whose summary then fills the
// wire report's.

// Wire is r as the parent receives it; seed is the first seed the job
// explored.
func (r *Report) Wire(seed int64) *gradewire.Report {
	out := &gradewire.Report{Version: gradewire.ReportVersion, Kit: r.Kit, Status: r.Status, Message: r.Message, Seed: seed,
		Diagnostics: append([]gradewire.Diagnostic{}, r.Diagnostics...), Scenarios: []gradewire.ScenarioReport{},
		Summary: gradewire.Summary{Defects: []gradewire.DefectStatus{}}, Story: r.Story}
	for _, d := range r.Defects {
		out.Summary.Defects = append(out.Summary.Defects, gradewire.DefectStatus(d))
	}
	var failed []string
	for _, s := range r.Scenarios {
		out.Scenarios = append(out.Scenarios, s.Wire())
		out.Summary.ScenariosTotal++
		if s.Status == StatusPass {
			out.Summary.ScenariosPassed++
		} else {
			failed = append(failed, s.Name)
		}
	}
	out.Coverage = coverage(r.Scenarios)
	if out.Message == "" {
		switch out.Status {
		case StatusPass:
			out.Message = fmt.Sprintf("Every invariant held in all %d scenarios.", out.Summary.ScenariosTotal)
		case StatusFail:
			out.Message = fmt.Sprintf("%d of %d scenarios failed: %s.", len(failed), out.Summary.ScenariosTotal, strings.Join(failed, ", "))
		}
	}
	return out
}

// Wire is s as the parent receives it: the evidence of a violation is its
// message, one line a fact, and a violation seen in another run than the
// one shown says which.
func (s ScenarioResult) Wire() gradewire.ScenarioReport {
	sr := gradewire.ScenarioReport{Name: s.Name, Title: s.Title, Description: s.Description, Status: s.Status, Message: s.Message,
		SchedulesExplored: s.Runs, FailingSeed: s.FailingSeed,
		Invariants: []gradewire.InvariantResult{}, Invocations: []gradewire.InvocationResult{}, Trace: []gradewire.TraceEvent{},
		EndState: s.EndState, TraceTruncated: s.TraceTruncated, OutputTruncated: s.OutputTruncated,
		Choices: s.Choices, Minimal: s.Minimal, FaultsFired: s.FaultsFired, FaultsUnfired: s.FaultsUnfired}
	if s.FailingSeed != nil {
		sr.FailingRun = s.Run
	}
	for _, inv := range s.Invariants {
		ir := gradewire.InvariantResult{ID: inv.ID, Title: inv.Title, Why: inv.Why, Status: gradewire.InvariantHeld}
		switch {
		case inv.NotChecked:
			ir.Status = gradewire.InvariantNotChecked
		case !inv.Held:
			ir.Status, ir.Message, ir.Defect = gradewire.InvariantViolated, strings.Join(inv.Evidence, "\n"), inv.Defect
			if inv.Run != "" && inv.Run != s.Run {
				// Said plainly, so that nobody reads this evidence against
				// the trace shown, which is another run's.
				ir.Message += " (seen in another run, " + inv.Run + ", not in the run traced here)"
			}
		}
		sr.Invariants = append(sr.Invariants, ir)
	}
	var output strings.Builder
	for _, c := range s.Calls {
		iv := gradewire.InvocationResult{Worker: c.Worker, RequestID: c.Subject, Ended: c.Ended, Outcome: c.Outcome, Error: c.Error,
			Panic: c.Panic, CrashedAt: c.CrashedAt}
		if c.Restarted {
			iv.CrashedAt = "restarted after a crash"
		}
		sr.Invocations = append(sr.Invocations, iv)
		if c.Output != "" {
			fmt.Fprintf(&output, "[%s]\n%s", c.Worker, c.Output)
			if !strings.HasSuffix(c.Output, "\n") {
				output.WriteString("\n")
			}
		}
	}
	sr.Output = output.String()
	if len(sr.Output) > OutputLimit {
		sr.Output, sr.OutputTruncated = sr.Output[:OutputLimit], true
	}
	for _, e := range s.Trace {
		sr.Trace = append(sr.Trace, wireEvent(e))
	}
	return sr
}

// wireEvent is e as a report carries it, its step in the story included;
// a shown run's events and a minimal run's are written alike.
func wireEvent(e Event) gradewire.TraceEvent {
	return gradewire.TraceEvent{At: formatOffset(e.At), Actor: e.Actor, Kind: e.Kind, Text: e.Text, Rule: e.Rule,
		Peer: e.Peer, Back: e.Back, Outcome: e.Outcome, Message: e.Message, Answer: e.Answer}
}

// coverage is which fault classes fired in the scenarios that passed, and
// which classes they script that fired in none; nil when none passed.
func coverage(scenarios []ScenarioResult) *gradewire.Coverage {
	fired, scripted := map[string]bool{}, map[string]bool{}
	passed := false
	for _, s := range scenarios {
		if s.Status != StatusPass {
			continue
		}
		passed = true
		for _, c := range s.FaultsFired {
			fired[c] = true
		}
		if s.Choices != nil {
			for _, f := range s.Choices.Faults {
				scripted[f.Class] = true
			}
		}
	}
	if !passed {
		return nil
	}
	c := &gradewire.Coverage{Fired: ClassesInOrder(fired)}
	if c.Fired == nil {
		c.Fired = []string{}
	}
	for class := range scripted {
		if fired[class] {
			delete(scripted, class)
		}
	}
	c.Unfired = ClassesInOrder(scripted)
	return c
}
