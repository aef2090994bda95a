package faultsim

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
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
	// EveryRun makes every run, even one that would repeat a twin's run
	// (see twins), whose report is the same: for tests that show it is.
	EveryRun bool
	// Variation, when set, makes of the scenario it names one run, the
	// one it describes, in place of the scenario's exploration; the other
	// scenarios are graded as usual (see Varied).
	Variation *Variation
	// NoShrink leaves failing runs as they are: no minimal run is looked
	// for (see shrink.go).
	NoShrink bool
	lanes    lanes
}

// WithDefaults is o with what it leaves unset filled in, as a grade reads it.
func (o Options) WithDefaults() Options {
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
			case r.Stopped == StopCut:
				why = "the run was cut short there"
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
	opt = opt.WithDefaults()
	opt.lanes = newLanes(opt.Lanes)
	rep := &Report{Kit: k.Name(), Status: StatusPass, Scenarios: []ScenarioResult{}}
	if st, ok := k.(Storyteller); ok {
		story := st.Story()
		rep.Story = &story
	}
	results := make([]ScenarioResult, len(scenarios))
	errs := make([]error, len(scenarios))
	// Scenarios run side by side (see lanes); the report and the progress
	// keep the suite's order, and the first failure in that order is the
	// one returned.
	inOrder(len(scenarios), opt.Lanes, func(i int) bool {
		if errs[i] = ctx.Err(); errs[i] == nil {
			results[i], errs[i] = gradeScenario(k, scenarios[i], prog, b, opt)
		}
		// A scenario cut short by a leak ends the grade after it: every
		// later scenario would leak again (see gradeScenario).
		return errs[i] == nil && results[i].leaked == ""
	}, func(i int) {
		if errs[i] == nil && opt.Progress != nil {
			opt.Progress(results[i])
		}
	})
	examined, violated := map[string]bool{}, map[string]bool{}
	var failed []string
	for i, sr := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if sr.Status != StatusPass {
			rep.Status = StatusFail
			failed = append(failed, sr.Name)
		}
		for _, d := range sr.examined {
			examined[d] = true
		}
		for _, d := range sr.violated {
			violated[d] = true
		}
		rep.Scenarios = append(rep.Scenarios, sr)
		// Scenarios after a leaking one were not run, or are left out if
		// a lane had started them: which ones did depends on timing.
		if sr.leaked != "" && i < len(results)-1 {
			later := fmt.Sprintf("the %d scenarios after it were not run", len(results)-1-i)
			if i == len(results)-2 {
				later = "the scenario after it was not run"
			}
			rep.Message = fmt.Sprintf("%d of %d scenarios run failed: %s. The grade stopped after %s, "+
				"whose run with %s left goroutines blocked for ever once every call had returned; "+
				"%s: leaked goroutines keep their memory until the grade ends, so each further leak "+
				"would bring the grade nearer to running out of memory.", len(failed), i+1, strings.Join(failed, ", "), sr.Name, sr.leaked, later)
			break
		}
	}
	// A kit with a table of defects gets a summary of those some checked
	// invariant pointed to: fixed unless one of them failed.
	if dt, ok := k.(DefectTable); ok {
		rep.Defects = []DefectStatus{}
		for _, d := range dt.Defects() {
			if examined[d.ID] {
				rep.Defects = append(rep.Defects, DefectStatus{ID: d.ID, Title: d.Title, Kind: d.Kind, Fixed: !violated[d.ID]})
			}
		}
	}
	return rep, nil
}

// catalogue is the kit's invariants, the engine's first (unless the kit
// has its own of that id), and whether the plan checks each.
func catalogue(k Kit, p Plan) ([]Invariant, []bool, error) {
	all := k.Invariants()
	_, own := k.(ReturnsJudge)
	if !own && !slices.ContainsFunc(all, func(inv Invariant) bool { return inv.ID == Returns }) {
		all = append([]Invariant{returnsInvariant}, all...)
	}
	checked := make([]bool, len(all))
	for i, inv := range all {
		checked[i] = len(p.Checks) == 0 || (inv.ID == Returns && !own) || slices.Contains(p.Checks, inv.ID)
	}
	for _, id := range p.Checks {
		if !slices.ContainsFunc(all, func(inv Invariant) bool { return inv.ID == id }) {
			return nil, nil, fmt.Errorf("faultsim: scenario %s checks %q, which kit %s does not have", p.Name, id, k.Name())
		}
	}
	return all, checked, nil
}

// maxTraceEvents caps the trace a scenario's result carries.
const maxTraceEvents = 400

func gradeScenario(k Kit, sc Scenario, prog Program, b Bubble, opt Options) (ScenarioResult, error) {
	if l, ok := k.(Learner); ok {
		var err error
		sc, err = l.Learn(sc, func(q Scenario) (*Run, error) {
			r := &Run{Seed: opt.FirstSeed, Plan: q.Plan(), Scenario: q}
			opt.lanes.execute(b, k, prog, r, nil)
			return r, r.internal
		})
		if err != nil {
			return ScenarioResult{}, err
		}
	}
	plan := sc.Plan()
	invs, checked, err := catalogue(k, plan)
	if err != nil {
		return ScenarioResult{}, err
	}
	if v := opt.Variation; v != nil && v.Scenario == plan.Name && v.StopAfter > 0 {
		// A run cut short is judged only by the invariants a prefix of a
		// run can break: what it did not get to do is no failure.
		for i, inv := range invs {
			checked[i] = checked[i] && inv.Prefix
		}
	}
	var runs, rest []*Run
	made := 1
	if opt.Variation != nil && opt.Variation.Scenario == plan.Name {
		// One run, as the variation describes it: no exploration.
		r, err := Varied(k, sc, *opt.Variation)
		if err != nil {
			return ScenarioResult{}, err
		}
		opt.lanes.execute(b, k, prog, r, nil)
		if r.internal != nil {
			return ScenarioResult{}, r.internal
		}
		runs = []*Run{r}
	} else {
		tw := newTwins(prog, opt)
		first := &Run{Seed: opt.FirstSeed, Plan: plan, Scenario: sc}
		opt.lanes.execute(b, k, prog, first, tw)
		if first.internal != nil {
			return ScenarioResult{}, first.internal
		}
		seeds := opt.Seeds
		if plan.Schedules > 0 {
			seeds = plan.Schedules
		}
		switch {
		case plan.EveryCrashPoint:
			rest = crashRuns(first, -1)
		// A first run stopped by the step limits is a loop that never lets
		// time pass: every other schedule would spin to the same limit.
		case first.Stopped != StopSpin && first.Stopped != StopSteps:
			for i := 1; i < seeds; i++ {
				rest = append(rest, &Run{Seed: opt.FirstSeed + int64(i), Plan: plan, Scenario: sc})
			}
			rest = append(rest, crashRuns(first, opt.MaxCrashRuns)...)
		}
		// A scenario that judges leaks makes no run after its first leaking
		// one: that run fails it already, and each further leak is memory the
		// child never gets back, which would end the grade out of memory at a
		// point that depends on the collector's timing.
		var cut func(*Run) bool
		for i, inv := range invs {
			if checked[i] && inv.JudgesLeaks {
				cut = (*Run).Leaked
				break
			}
		}
		if cut == nil || !first.Leaked() {
			made += runLanes(b, k, prog, rest, opt.lanes, tw, cut)
		}
		runs = append([]*Run{first}, rest[:made-1]...)
	}
	for _, r := range runs {
		if r.internal != nil {
			return ScenarioResult{}, r.internal
		}
	}
	sr := ScenarioResult{Name: plan.Name, Title: plan.Title, Description: plan.Description, Status: StatusPass, Runs: len(runs)}
	if made < 1+len(rest) {
		sr.leaked = runs[made-1].Label()
	}
	for _, r := range runs {
		if r.Twin != nil {
			sr.Repeated++
		}
	}
	// Each invariant's first violation, in run order; the run shown is
	// the first that broke any.
	type violation struct {
		ev       []string
		defect   string
		run      int
		together bool // found by CheckRuns, of the runs together
	}
	found := make([]*violation, len(invs))
	failing := -1
	for ri, r := range runs {
		for i, inv := range invs {
			if !checked[i] || found[i] != nil {
				continue
			}
			ev, defect := inv.judge(r)
			together := false
			if len(ev) == 0 && ri == len(runs)-1 && inv.CheckRuns != nil {
				ev, together = inv.CheckRuns(runs), true
			}
			if len(ev) > 0 {
				found[i] = &violation{ev, defect, ri, together}
				if failing < 0 {
					failing = ri
				}
			}
		}
	}
	for i, inv := range invs {
		res := InvariantResult{ID: inv.ID, Title: inv.Title, Why: inv.Why, Held: true, NotChecked: !checked[i]}
		if checked[i] {
			d := inv.Defect
			if pd, ok := plan.Defects[inv.ID]; ok {
				d = pd
			}
			sr.examined = append(sr.examined, d)
			if v := found[i]; v != nil {
				res.Held, res.Defect, res.Evidence = false, d, v.ev
				if v.defect != "" {
					res.Defect = v.defect
				}
				if v.run != failing {
					res.Run = runs[v.run].Label()
				}
				sr.violated = append(sr.violated, res.Defect)
			}
		}
		sr.Invariants = append(sr.Invariants, res)
	}
	shown := runs[0]
	if failing >= 0 {
		shown = runs[failing]
		seed := shown.Seed
		sr.Status, sr.FailingSeed, sr.Run = StatusFail, &seed, shown.Label()
	}
	var loadProblem, deadlock string
	for _, r := range runs {
		for _, iv := range r.Calls {
			if iv.Ended == EndNotLoaded && loadProblem == "" {
				loadProblem = iv.LoadError
			}
		}
		if r.Deadlock != "" && deadlock == "" {
			deadlock = r.Deadlock
		}
	}
	switch {
	case loadProblem != "":
		sr.Status, sr.Message = StatusError, loadProblem
	case deadlock != "":
		sr.Status, sr.Message = StatusFail, "Some goroutines of the submission stayed blocked forever: "+deadlock
	case sr.leaked != "":
		sr.Status = StatusFail
		later := fmt.Sprintf("this scenario's %d later runs were not made", len(rest)-(made-1))
		if len(rest)-(made-1) == 1 {
			later = "this scenario's last run was not made"
		}
		sr.Message = fmt.Sprintf("The run with %s left goroutines blocked for ever after every call had returned, "+
			"so %s: each leaked goroutine keeps its memory until the grade ends.", sr.leaked, later)
	}
	rep, _ := shown.World.(Reporter)
	for _, iv := range shown.Calls {
		cr := CallResult{Worker: iv.Call.Worker, Subject: iv.Call.Subject, Restarted: iv.Restarted,
			Ended: iv.Ended, Result: iv.Result, Panic: iv.Panic, Output: outputOf(iv)}
		switch {
		case iv.Ended == EndNotLoaded:
			cr.Error = iv.LoadError
		case rep != nil:
			cr.Outcome, cr.Error = rep.ResultParts(iv)
		default:
			// A World's result reads "outcome, nil" or "outcome, error:
			// text"; the report's Error is the text alone.
			cr.Outcome, cr.Error, _ = strings.Cut(iv.Result, ", ")
			if cr.Error == "nil" {
				cr.Error = ""
			}
			cr.Error = strings.TrimPrefix(cr.Error, "error: ")
		}
		if iv.Worker != nil {
			cr.CrashedAt = iv.Worker.Died
		}
		if iv.output != nil && iv.output.Truncated() {
			sr.OutputTruncated = true
		}
		sr.Calls = append(sr.Calls, cr)
	}
	if shown.World != nil {
		sr.EndState = shown.World.EndState()
	}
	events, order := sortedEvents(shown.Trace)
	if len(events) > maxTraceEvents {
		events, sr.TraceTruncated = events[:maxTraceEvents], true
	}
	sr.Trace = events
	sr.Choices = choicesOf(k, sc, shown, order)
	sr.FaultsFired, sr.FaultsUnfired = coverageOf(k, sc, runs)
	if failing >= 0 && !opt.NoShrink && opt.Variation == nil {
		// The minimal run breaks the first invariant the shown run broke
		// on its own (not one judged of the runs together).
		for i, v := range found {
			if v != nil && v.run == failing && !v.together {
				sr.Minimal = shrink(k, sc, prog, b, opt, invs[i], shown, made)
				break
			}
		}
	}
	return sr, nil
}

// crashRuns are the first run's seed again with each crash point of each
// worker the plan names: before and after every harness call it made; at
// most max of them, unless max < 0.
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
				if max >= 0 && len(out) == max {
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
