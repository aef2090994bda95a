package faultsim

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// Runtime is how a submission in one language runs: it checks the source
// and gives the Program that loads it on each worker. Whatever the
// runtime, the world, the scheduler, the virtual clock, the crash points,
// the invariants and the report are the engine's: a runtime only decides
// how the entry point's code executes between the harness calls. Go
// interpreted by yaegi is the default (internal/faultsim/interpreted);
// Python is another (internal/faultsim/pyrun).
type Runtime interface {
	// Lang is the language the runtime runs, as a file's extension names
	// it (LangOf).
	Lang() string
	// Check checks source, the file filename, for kit k. What is wrong
	// with it is the user's, as diagnostics; a runtime that cannot run
	// here says so the same way.
	Check(k Kit, filename, source string) (Program, []gradewire.Diagnostic)
}

// SelfGrading is a Program that prepares its own grade (a trial load,
// lanes sized to its compile cost, a process to release afterwards) and
// then grades through Grade: GradeSource hands it the grade.
type SelfGrading interface {
	GradeProgram(ctx context.Context, k Kit, scenarios []Scenario, b Bubble, opt Options) (*Report, error)
}

// CPUPlaced is a runtime that keeps a grade on one CPU and can be told
// which (Job.CPU): the parent spreads its grades over its CPUs.
type CPUPlaced interface {
	OnCPU(cpu int) Runtime
}

// PlacedOn is rts with each CPUPlaced runtime told cpu; nil leaves them
// as they are.
func PlacedOn(rts []Runtime, cpu *int) []Runtime {
	if cpu == nil {
		return rts
	}
	out := make([]Runtime, len(rts))
	for i, rt := range rts {
		if p, ok := rt.(CPUPlaced); ok {
			rt = p.OnCPU(*cpu)
		}
		out[i] = rt
	}
	return out
}

// EntryNamer is a Program whose entry point is spelt otherwise than the
// kit's Go name: a Python answer defines a snake_case coroutine function,
// and its report names the function the user wrote.
type EntryNamer interface {
	EntryName() string
}

// EntryName is the name of k's entry point as prog spells it.
func EntryName(k Kit, prog Program) string {
	if n, ok := prog.(EntryNamer); ok && n.EntryName() != "" {
		return n.EntryName()
	}
	return k.Entry().Name
}

// Languages, as LangOf names them.
const (
	LangGo     = "go"
	LangPython = "python"
)

// LangOf is the language of a submission file by its extension: ".py" is
// Python, anything else Go (a draft without a name is Go, as every draft
// was before Python).
func LangOf(filename string) string {
	if strings.EqualFold(filepath.Ext(filename), ".py") {
		return LangPython
	}
	return LangGo
}

// RuntimeFor is the runtime among rts for filename's language, nil if
// none of them runs it.
func RuntimeFor(rts []Runtime, filename string) Runtime {
	lang := LangOf(filename)
	for _, rt := range rts {
		if rt != nil && rt.Lang() == lang {
			return rt
		}
	}
	return nil
}

// GradeSource checks source with the runtime of its language among rts
// and grades it. A submission that does not load, or whose language no
// runtime here runs, is a report with status error and diagnostics: the
// user's to read, not a fault of the grader.
func GradeSource(ctx context.Context, rts []Runtime, k Kit, scenarios []Scenario, filename, source string, b Bubble, opt Options) (*Report, error) {
	rt := RuntimeFor(rts, filename)
	if rt == nil {
		return NotLoaded(k, []gradewire.Diagnostic{{Message: "faultsim: " + LangOf(filename) + " submissions cannot be graded here"}}), nil
	}
	prog, diags := rt.Check(k, filename, source)
	if diags != nil {
		return NotLoaded(k, diags), nil
	}
	if sg, ok := prog.(SelfGrading); ok {
		return sg.GradeProgram(ctx, k, scenarios, b, opt)
	}
	return Grade(ctx, k, scenarios, prog, b, opt)
}

// NotLoaded is the report of a submission that did not load: status
// error, its diagnostics, no scenario run.
func NotLoaded(k Kit, diags []gradewire.Diagnostic) *Report {
	return &Report{Kit: k.Name(), Status: StatusError, Diagnostics: diags, Scenarios: []ScenarioResult{},
		Message: "The code could not be graded: " + diags[0].String()}
}
