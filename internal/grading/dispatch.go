//go:build !nointerp

package grading

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/grader"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// Problems finds a problem in the content being served (web.Content), so
// a grade uses the scenarios as they are now, after a -watch reload too.
type Problems interface {
	Problem(slug string) (*problems.Problem, bool)
}

// Dispatcher is the grader the web and the rooms use: a problem whose kit
// grades against a scenarios file goes to Kits, any other to Refund. Both
// services must share one sandbox pool: Admit and RetryAfter ask it, so the
// places, the queue and the per-address turns are the same for every
// problem.
type Dispatcher struct {
	Refund  *grader.Service
	Kits    *Service
	Content Problems
}

// Admit takes a place in the shared queue for a job of key.
func (d *Dispatcher) Admit(key string) (*sandbox.Ticket, error) { return d.Refund.Admit(key) }

// RetryAfter is when key's first job should end.
func (d *Dispatcher) RetryAfter(key string) time.Duration { return d.Refund.RetryAfter(key) }

// GradeAdmitted grades job with the grader its problem names, and returns
// the report in the form the web renders.
func (d *Dispatcher) GradeAdmitted(ctx context.Context, ticket *sandbox.Ticket, job grader.Job, progress func(grader.ScenarioReport)) (*grader.Report, error) {
	p, ok := d.Content.Problem(job.Problem)
	if !ok || p.Code == nil || p.Code.ScenariosPath == "" {
		return d.Refund.GradeAdmitted(ctx, ticket, job, progress)
	}
	if p.Code.Kit == grader.KitName {
		// The refund kit still grades on the grader's own engine, against
		// the scenarios file as it is now.
		job.ScenariosFile, job.ScenarioData = p.Code.ScenariosPath, p.Code.Scenarios
		return d.Refund.GradeAdmitted(ctx, ticket, job, progress)
	}
	fj := faultsim.Job{Kit: p.Code.Kit, ScenariosFile: p.Code.ScenariosPath, Scenarios: []byte(p.Code.Scenarios),
		Only: job.Scenarios, File: fileName(p.Code.StarterPath), Source: job.Source, FirstSeed: job.Seed}
	var onScenario func(faultsim.ScenarioResult)
	if progress != nil {
		onScenario = func(s faultsim.ScenarioResult) { progress(scenarioReport(s)) }
	}
	rep, err := d.Kits.Grade(ctx, ticket, fj, onScenario)
	if err != nil {
		return nil, err
	}
	return RefundView(rep, job.Problem, job.Seed), nil
}

func fileName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	if path == "" {
		return "main.go"
	}
	return path
}

// RefundView restates a kit's report as the report the web's report page
// renders (grader.Report, the refund grader's shape): scenarios,
// invariants with their evidence, calls and trace carry over; the refund
// problem's defect table stays empty, a kit having none.
func RefundView(r *faultsim.Report, problem string, seed int64) *grader.Report {
	out := &grader.Report{Version: grader.ReportVersion, Status: r.Status, Message: r.Message, Problem: problem, Seed: seed,
		Diagnostics: append([]grader.Diagnostic{}, r.Diagnostics...), Scenarios: []grader.ScenarioReport{},
		Summary: grader.Summary{Defects: []grader.DefectStatus{}}}
	for _, s := range r.Scenarios {
		sr := scenarioReport(s)
		out.Scenarios = append(out.Scenarios, sr)
		out.Summary.ScenariosTotal++
		if sr.Status == grader.StatusPass {
			out.Summary.ScenariosPassed++
		}
	}
	if out.Message == "" {
		switch out.Status {
		case grader.StatusPass:
			out.Message = fmt.Sprintf("Every invariant held in all %d scenarios.", out.Summary.ScenariosTotal)
		case grader.StatusFail:
			failed := out.Summary.ScenariosTotal - out.Summary.ScenariosPassed
			out.Message = fmt.Sprintf("%d of %d scenario%s failed.", failed, out.Summary.ScenariosTotal, plural(out.Summary.ScenariosTotal))
		}
	}
	return out
}

func scenarioReport(s faultsim.ScenarioResult) grader.ScenarioReport {
	sr := grader.ScenarioReport{Name: s.Name, Title: s.Title, Status: s.Status, SchedulesExplored: s.Runs,
		Invariants: []grader.InvariantResult{}, Invocations: []grader.InvocationResult{}, Trace: []grader.TraceEvent{}}
	if s.Status != faultsim.StatusPass {
		sr.FailingRun = s.Run
	}
	for _, inv := range s.Invariants {
		ir := grader.InvariantResult{ID: inv.ID, Title: inv.Title, Why: inv.Why, Status: grader.InvariantHeld}
		if !inv.Held {
			// The view's Defect is an id into the refund problem's defect
			// table; a kit's defect is a sentence, so it joins the message.
			ir.Status, ir.Message = grader.InvariantViolated, strings.Join(inv.Evidence, "\n")
			if inv.Defect != "" {
				ir.Message += "\nWhat it points to: " + inv.Defect + "."
			}
		}
		sr.Invariants = append(sr.Invariants, ir)
	}
	for _, c := range s.Calls {
		iv := grader.InvocationResult{Worker: c.Worker, RequestID: c.Subject, Ended: c.Ended, Panic: c.Panic}
		iv.Outcome, iv.Error, _ = strings.Cut(c.Result, ", ")
		if iv.Error == "nil" {
			iv.Error = ""
		}
		if c.Restarted {
			iv.CrashedAt = "restarted after a crash"
		}
		sr.Invocations = append(sr.Invocations, iv)
		if c.Output != "" {
			sr.Output += c.Output
		}
	}
	for _, e := range s.Trace {
		sr.Trace = append(sr.Trace, grader.TraceEvent{At: "+" + e.At.String(), Actor: e.Actor, Kind: e.Kind, Text: e.Text})
	}
	return sr
}
