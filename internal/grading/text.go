package grading

import (
	"fmt"
	"io"
	"strings"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

// Summary counts a report's scenarios.
func Summary(r *faultsim.Report) (passed, total int) {
	for _, s := range r.Scenarios {
		if s.Status == faultsim.StatusPass {
			passed++
		}
	}
	return passed, len(r.Scenarios)
}

// ExitCode is `server grade`'s exit status for r: 0 every invariant held,
// 1 some failed, 2 the code could not be graded.
func ExitCode(r *faultsim.Report) int {
	switch r.Status {
	case faultsim.StatusPass:
		return 0
	case faultsim.StatusFail:
		return 1
	}
	return 2
}

// WriteText writes r for a terminal: one line a scenario and, under each
// that failed, the invariants it broke with their evidence, how each call
// ended and the trace of the run shown.
func WriteText(w io.Writer, r *faultsim.Report) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	passed, total := Summary(r)
	msg := r.Message
	if msg == "" {
		msg = fmt.Sprintf("%d of %d scenarios passed", passed, total)
	}
	p("%s: %s\n", strings.ToUpper(r.Status), msg)
	for _, d := range r.Diagnostics {
		p("  %s\n", d)
	}
	if len(r.Scenarios) == 0 {
		return
	}
	p("\nScenarios (%d of %d passed, kit %s):\n", passed, total, r.Kit)
	for _, s := range r.Scenarios {
		mark := "ok  "
		if s.Status != faultsim.StatusPass {
			mark = "FAIL"
		}
		p("  %s %-28s %s (%d run(s))\n", mark, s.Name, s.Title, s.Runs)
		if s.Status == faultsim.StatusPass {
			continue
		}
		if s.Run != "" {
			p("       run shown: %s\n", s.Run)
		}
		for _, inv := range s.Invariants {
			if inv.Held {
				continue
			}
			p("       violated %s: %s", inv.ID, inv.Title)
			if inv.Defect != "" {
				p(" (defect: %s)", inv.Defect)
			}
			p("\n")
			for _, e := range inv.Evidence {
				p("         %s\n", e)
			}
		}
		for _, c := range s.Calls {
			line := fmt.Sprintf("%s %s %s", c.Worker, c.Subject, c.Ended)
			if c.Result != "" {
				line += " " + c.Result
			}
			if c.Panic != "" {
				line += ", panic: " + c.Panic
			}
			if c.Restarted {
				line += " (restarted)"
			}
			p("       %s\n", line)
		}
		if len(s.EndState) > 0 {
			p("       end state: %s\n", strings.Join(s.EndState, "; "))
		}
		p("       trace:\n")
		for _, e := range s.Trace {
			p("         %9s %-10s %-6s %s\n", e.At, e.Actor, e.Kind, e.Text)
		}
	}
}
