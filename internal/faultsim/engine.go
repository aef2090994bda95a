package faultsim

import (
	"context"
	"fmt"
	"runtime"
	"slices"
)

// Options says how much of each scenario's space a grade explores.
type Options struct {
	// Seeds is how many schedules each scenario runs (at least 1), with
	// seeds FirstSeed, FirstSeed+1, ...
	Seeds     int
	FirstSeed int64
	// Lanes is how many runs execute at once (default: the cores, at
	// most 4).
	Lanes int
	// MaxCrashRuns bounds the crash points explored per scenario
	// (default 64): a loop of harness calls has one per call.
	MaxCrashRuns int
	// Progress, if set, gets each scenario's result as it finishes, in
	// the suite's order.
	Progress func(ScenarioResult)
	lanes    lanes
}

func (o Options) withDefaults() Options {
	if o.Seeds < 1 {
		o.Seeds = 1
	}
	if o.Lanes < 1 {
		o.Lanes = min(runtime.GOMAXPROCS(0), 4)
	}
	if o.MaxCrashRuns < 1 {
		o.MaxCrashRuns = 64
	}
	return o
}

// Returns is the engine's own invariant, judged before any kit's: every
// call of the entry point returns (or its process dies at a crash point).
const Returns = "returns"

var returnsInvariant = Invariant{
	ID:     Returns,
	Title:  "Every call returns",
	Why:    "A call that panics, blocks forever or never stops retrying holds its work hostage: nothing else can settle it.",
	Defect: "a panic, a deadlock, or a loop with no end (retrying without a limit, or without letting time pass)",
	Check:  checkReturns,
}

func checkReturns(r *Run) []string {
	var ev []string
	for _, iv := range r.Calls {
		switch iv.Ended {
		case EndPanicked:
			ev = append(ev, fmt.Sprintf("%s's call panicked: %s", iv.Call.Worker, iv.Panic))
		case EndNotLoaded:
			ev = append(ev, fmt.Sprintf("%s's code did not load: %s", iv.Call.Worker, iv.LoadError))
		case EndDidNotReturn:
			why := "it was still running when the run ended"
			switch {
			case r.Deadlock != "":
				why = "it stayed blocked forever"
			case r.Stopped == StopTime:
				why = fmt.Sprintf("it was still running when the scenario's %s of virtual time ran out", r.Plan.Budget)
			case r.Stopped == StopSpin || r.Stopped == StopSteps:
				why = "it called the harness thousands of times without stopping"
			}
			ev = append(ev, fmt.Sprintf("%s's call never returned: %s", iv.Call.Worker, why))
		}
	}
	return ev
}

// Grade runs every scenario with prog and judges each run with the kit's
// invariants. What the submission does is data in the Report; the error is
// for the engine or the kit breaking.
func Grade(ctx context.Context, k Kit, scenarios []Scenario, prog Program, b Bubble, opt Options) (*Report, error) {
	opt = opt.withDefaults()
	opt.lanes = newLanes(opt.Lanes)
	rep := &Report{Kit: k.Name(), Status: StatusPass, Scenarios: []ScenarioResult{}}
	results := make([]ScenarioResult, len(scenarios))
	errs := make([]error, len(scenarios))
	// Scenarios run side by side (see lanes); the report and the progress
	// keep the suite's order, and the first failure in that order is the
	// one returned.
	inOrder(len(scenarios), opt.Lanes, func(i int) bool {
		if errs[i] = ctx.Err(); errs[i] == nil {
			results[i], errs[i] = gradeScenario(k, scenarios[i], prog, b, opt)
		}
		return errs[i] == nil
	}, func(i int) {
		if errs[i] == nil && opt.Progress != nil {
			opt.Progress(results[i])
		}
	})
	for i, sr := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if sr.Status != StatusPass {
			rep.Status = StatusFail
		}
		rep.Scenarios = append(rep.Scenarios, sr)
	}
	return rep, nil
}

// catalogue is the invariants a plan judges, the engine's first.
func catalogue(k Kit, p Plan) ([]Invariant, error) {
	all := append([]Invariant{returnsInvariant}, k.Invariants()...)
	if len(p.Checks) == 0 {
		return all, nil
	}
	var out []Invariant
	for _, inv := range all {
		if inv.ID == Returns || slices.Contains(p.Checks, inv.ID) {
			out = append(out, inv)
		}
	}
	for _, id := range p.Checks {
		if !slices.ContainsFunc(all, func(inv Invariant) bool { return inv.ID == id }) {
			return nil, fmt.Errorf("faultsim: scenario %s checks %q, which kit %s does not have", p.Name, id, k.Name())
		}
	}
	return out, nil
}

func gradeScenario(k Kit, sc Scenario, prog Program, b Bubble, opt Options) (ScenarioResult, error) {
	plan := sc.Plan()
	invs, err := catalogue(k, plan)
	if err != nil {
		return ScenarioResult{}, err
	}
	first := &Run{Seed: opt.FirstSeed, Plan: plan, Scenario: sc}
	opt.lanes.execute(b, k, prog, first)
	if first.internal != nil {
		return ScenarioResult{}, first.internal
	}
	var rest []*Run
	// A first run stopped by the step limits is a loop that never lets
	// time pass: every other schedule would spin to the same limit.
	if first.Stopped != StopSpin && first.Stopped != StopSteps {
		for i := 1; i < opt.Seeds; i++ {
			rest = append(rest, &Run{Seed: opt.FirstSeed + int64(i), Plan: plan, Scenario: sc})
		}
		rest = append(rest, crashRuns(first, opt.MaxCrashRuns)...)
	}
	runLanes(b, k, prog, rest, opt.lanes)
	runs := append([]*Run{first}, rest...)
	for _, r := range runs {
		if r.internal != nil {
			return ScenarioResult{}, r.internal
		}
	}
	sr := ScenarioResult{Name: plan.Name, Title: plan.Title, Status: StatusPass, Runs: len(runs)}
	shown := first
	for _, inv := range invs {
		res := InvariantResult{ID: inv.ID, Title: inv.Title, Why: inv.Why, Held: true}
		for _, r := range runs {
			if ev := inv.Check(r); len(ev) > 0 {
				res.Held, res.Defect, res.Evidence, res.Run = false, inv.Defect, ev, r.Label()
				if sr.Status == StatusPass {
					sr.Status, shown = StatusFail, r
				}
				break
			}
		}
		sr.Invariants = append(sr.Invariants, res)
	}
	sr.Run = shown.Label()
	for _, iv := range shown.Calls {
		sr.Calls = append(sr.Calls, CallResult{Worker: iv.Call.Worker, Subject: iv.Call.Subject, Restarted: iv.Restarted,
			Ended: iv.Ended, Result: iv.Result, Panic: iv.Panic, Output: outputOf(iv)})
	}
	if shown.World != nil {
		sr.EndState = shown.World.EndState()
	}
	sr.Trace = shown.Trace.Events()
	return sr, nil
}

// crashRuns are the first run's seed again with each crash point of each
// worker the plan names: before and after every harness call it made.
func crashRuns(first *Run, max int) []*Run {
	var out []*Run
	for _, id := range first.Plan.Crash {
		calls := 0
		for _, iv := range first.Calls {
			if iv.Call.Worker == id && !iv.Restarted && iv.Worker != nil {
				calls = iv.Worker.Calls()
				break
			}
		}
		for n := 1; n <= calls; n++ {
			for _, before := range []bool{true, false} {
				if len(out) == max {
					return out
				}
				out = append(out, &Run{Seed: first.Seed, Plan: first.Plan, Scenario: first.Scenario,
					CrashWorker: id, Crash: CrashPoint{Call: n, Before: before}})
			}
		}
	}
	return out
}

func outputOf(iv *Invocation) string {
	if iv.output == nil {
		return ""
	}
	return iv.output.String()
}
