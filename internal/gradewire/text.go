package gradewire

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the report for a terminal.
func (r *Report) WriteText(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("%s: %s\n", strings.ToUpper(r.Status), r.Message)
	if r.Referee != nil {
		p("Native referee (%s): %s\n", r.Referee.Outcome, r.Referee.Message)
	}
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
			p("       violated %s (defect: %s)\n", inv.ID, inv.Defect)
			for _, line := range strings.Split(inv.Message, "\n") {
				p("         %s\n", line)
			}
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
				// "crashed after Get (call 2)"; a call that ended otherwise
				// says how it began: "returned created, restarted after a crash".
				sep := ", "
				if iv.Ended == "crashed" {
					sep = " "
				}
				line += sep + iv.CrashedAt
			}
			p("       %s\n", line)
		}
		if len(s.EndState) > 0 {
			p("       end state:\n")
			for _, line := range s.EndState {
				p("         %s\n", line)
			}
		}
		if m := s.Minimal; m != nil {
			if m.Same {
				p("       why it fails (nothing can be taken from this run):\n")
			} else {
				p("       why it fails (the run without %s):\n", strings.Join(m.Removed, "; "))
			}
			for i, step := range m.Steps {
				p("         %d. %s\n", i+1, step)
			}
		}
		p("       trace:\n")
		for _, e := range s.Trace {
			if e.Rule != "" {
				p("         %9s %-10s %-6s %s (rule %s)\n", e.At, e.Actor, e.Kind, e.Text, e.Rule)
				continue
			}
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
	if c := r.Coverage; c != nil {
		p("\nFaults that fired in the scenarios that passed: %s\n", strings.Join(c.Fired, ", "))
		if len(c.Unfired) > 0 {
			p("Scripted there but never fired: %s\n", strings.Join(c.Unfired, ", "))
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
