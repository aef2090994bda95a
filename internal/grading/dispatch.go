package grading

import (
	"context"
	"fmt"
	"path"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// Problems finds a problem in the content being served (web.Content), so
// a grade uses the scenarios as they are now, after a -watch reload too.
type Problems interface {
	Problem(slug string) (*problems.Problem, bool)
}

// Request is a grade as the web and the rooms ask for it: a problem's
// code, and optionally only some of its scenarios (a Check).
type Request struct {
	Problem string
	Source  string
	Seed    int64
	// File is the submission's file name, whose extension says its
	// language (".py": Python); "" is the problem's Go starter's name.
	File string
	// Only names the scenarios to run, in the problem's order; empty runs
	// all of them.
	Only []string
	// KeepPassed keeps passed scenarios' runs in the report (a child
	// drops them otherwise): a pass replayed to show its run.
	KeepPassed bool
	// Variation, when set, makes of its scenario the one run it describes
	// (gradewire.Job.Variation): a what-if replay. Only should name that
	// scenario, and KeepPassed be set if its run should show when it
	// passes.
	Variation *gradewire.Variation
}

// Plan is a problem's scenarios as the parent knows them.
type Plan = gradewire.Plan

// Dispatcher is the grader the web and the rooms use. A problem whose kit
// grades against a scenarios file goes to the child as a kit's job, with
// that file as it is now (after a -watch reload too), through Service's
// one pool, so the places, the queue and the per-address turns are the
// same for every problem.
type Dispatcher struct {
	Service *Service
	Content Problems
}

// Admit takes a place in the shared queue for a job of key.
func (d *Dispatcher) Admit(key string) (*sandbox.Ticket, error) { return d.Service.Admit(key) }

// RetryAfter is when key's first job should end.
func (d *Dispatcher) RetryAfter(key string) time.Duration { return d.Service.RetryAfter(key) }

// Plan is the plan of problem, read from its scenarios file; false when
// nothing grades it.
func (d *Dispatcher) Plan(problem string) (Plan, bool) {
	code, ok := d.gradedCode(problem)
	if !ok {
		return Plan{}, false
	}
	return Plan{Scenarios: code.ScenarioNames, Check: code.CheckScenarios}, true
}

// gradedCode is problem's code when its kit grades it against a scenarios
// file.
func (d *Dispatcher) gradedCode(problem string) (*problems.Code, bool) {
	if d.Content == nil {
		return nil, false
	}
	p, ok := d.Content.Problem(problem)
	if !ok || p.Code == nil || p.Code.ScenariosPath == "" {
		return nil, false
	}
	return p.Code, true
}

// GradeAdmitted grades req with the grader its problem's kit names; see
// Service.GradeKit for progress, the ticket and the error. A problem
// nothing grades is an error: the caller should have asked Plan.
func (d *Dispatcher) GradeAdmitted(ctx context.Context, ticket *sandbox.Ticket, req Request, progress func(gradewire.ScenarioReport)) (*gradewire.Report, error) {
	code, ok := d.gradedCode(req.Problem)
	if !ok {
		ticket.Release()
		return nil, fmt.Errorf("grading: no grader for problem %q", req.Problem)
	}
	job := KitJob(code, req.Source, req.Seed, req.Only)
	if req.File != "" {
		job.File = req.File
	}
	job.Problem, job.KeepPassed, job.Variation = req.Problem, req.KeepPassed, req.Variation
	rep, err := d.Service.GradeKit(ctx, ticket, job, code.ScenarioNames, progress)
	if rep != nil {
		rep.Problem = req.Problem
	}
	return rep, err
}

// KitJob is the job that grades source against code's scenarios (only
// those named, when any are): the scenarios file travels as read, so a
// grade uses the file as it is now.
func KitJob(code *problems.Code, source string, seed int64, only []string) gradewire.Job {
	file := "main.go"
	if code.StarterPath != "" {
		file = path.Base(code.StarterPath)
	}
	return gradewire.Job{Kit: code.Kit, ScenariosFile: code.ScenariosPath, Scenarios: []byte(code.Scenarios),
		Only: only, File: file, Source: source, FirstSeed: seed}
}
