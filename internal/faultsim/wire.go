package faultsim

import (
	"fmt"
	"strings"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// The engine's report leaves the child as the wire's report
// (internal/gradewire), the one shape the server renders and stores for
// every kit. A kit's invariant names its defect in words, so the wire
// report's defect table stays empty and each violation carries its
// defect as a sentence.

// Wire is r as the parent receives it; seed is the first seed the job
// explored.
func (r *Report) Wire(seed int64) *gradewire.Report {
	out := &gradewire.Report{Version: gradewire.ReportVersion, Kit: r.Kit, Status: r.Status, Message: r.Message, Seed: seed,
		Diagnostics: append([]gradewire.Diagnostic{}, r.Diagnostics...), Scenarios: []gradewire.ScenarioReport{},
		Summary: gradewire.Summary{Defects: []gradewire.DefectStatus{}}}
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
	sr := gradewire.ScenarioReport{Name: s.Name, Title: s.Title, Status: s.Status, SchedulesExplored: s.Runs,
		Invariants: []gradewire.InvariantResult{}, Invocations: []gradewire.InvocationResult{}, Trace: []gradewire.TraceEvent{},
		EndState: s.EndState}
	if s.Status != StatusPass {
		sr.FailingRun = s.Run
	}
	for _, inv := range s.Invariants {
		ir := gradewire.InvariantResult{ID: inv.ID, Title: inv.Title, Why: inv.Why, Status: gradewire.InvariantHeld}
		if !inv.Held {
			ir.Status, ir.Message, ir.Defect = gradewire.InvariantViolated, strings.Join(inv.Evidence, "\n"), inv.Defect
			if inv.Run != "" && inv.Run != s.Run {
				ir.Message += "\n(in the run with " + inv.Run + ")"
			}
		}
		sr.Invariants = append(sr.Invariants, ir)
	}
	var output strings.Builder
	for _, c := range s.Calls {
		iv := gradewire.InvocationResult{Worker: c.Worker, RequestID: c.Subject, Ended: c.Ended, Panic: c.Panic}
		iv.Outcome, iv.Error, _ = strings.Cut(c.Result, ", ")
		if iv.Error == "nil" {
			iv.Error = ""
		}
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
	for _, e := range s.Trace {
		sr.Trace = append(sr.Trace, gradewire.TraceEvent{At: "+" + e.At.String(), Actor: e.Actor, Kind: e.Kind, Text: e.Text})
	}
	return sr
}
