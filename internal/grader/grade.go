// Package grader grades a submitted refund function by running it, in
// yaegi, against fault scenarios: a fake Stripe-like provider with
// idempotency keys, a fake store, crashes, lost replies and concurrent
// workers, all on synctest's virtual clock under a seeded scheduler. It
// reports which invariants held, per scenario, with an event trace.
//
// Grade interprets untrusted code in the calling process: only the grading
// child process (see Service) and tests call it.
package grader

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/refund/world"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// suiteOf returns the scenarios job's problem is graded against: those it
// carries, else the built-in ones of its problem. Scenarios that do not
// parse are the content's error, not the submission's. (A function, not a
// method: Job is the wire's type, internal/gradewire.)
func suiteOf(job Job) ([]Scenario, error) {
	if job.ScenarioData != "" {
		return parseScenariosOnce(job.ScenariosFile, job.ScenarioData)
	}
	problem := job.Problem
	if problem == "" {
		problem = DefaultProblem
	}
	suite, ok := Suites[problem]
	if !ok {
		return nil, fmt.Errorf("grader: no scenarios for problem %q", problem)
	}
	return suite(), nil
}

// maxTraceEvents caps the trace a scenario report carries.
const maxTraceEvents = 400

func newReport(job Job) *Report {
	if job.Problem == "" {
		job.Problem = DefaultProblem
	}
	return &Report{Version: ReportVersion, Problem: job.Problem, Seed: job.Seed, Diagnostics: []Diagnostic{}, Scenarios: []ScenarioReport{},
		Summary: Summary{Defects: []DefectStatus{}}}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// openGate lets every step through at once: for loading the submission
// outside any run.
type openGate struct{}

func (openGate) Pass(string) bool      { return true }
func (openGate) Go(_ string, f func()) { go f() }

// workerIDs lists the workers of the job's scenarios other than worker-1.
func workerIDs(job Job) []string {
	suite, err := suiteOf(job)
	if err != nil {
		return nil
	}
	scenarios, err := selectScenarios(suite, job.Scenarios)
	if err != nil {
		return nil
	}
	seen := map[string]bool{"worker-1": true}
	var ids []string
	for _, sc := range scenarios {
		for _, ph := range sc.Phases {
			for _, inv := range ph.Invocations {
				if !seen[inv.Worker] {
					seen[inv.Worker] = true
					ids = append(ids, inv.Worker)
				}
			}
		}
	}
	return ids
}

// GradeCompiled grades a natively compiled RefundMoney (see NativeProgram):
// the same scenarios and report, without the interpreter. It exists to
// compare the grader with the compile-and-run route; package variables of
// compiled code are shared by all workers, so it is not a substitute for
// Grade.
func GradeCompiled(ctx context.Context, job Job, entry NativeProgram, b Bubble, progress func(ScenarioReport)) (*Report, error) {
	started := time.Now()
	rep := newReport(job)
	if err := GradeProgram(ctx, job, entry, b, progress, rep); err != nil {
		return nil, err
	}
	rep.Timings.TotalMS = ms(time.Since(started))
	return rep, nil
}

// GradeProgram runs the scenarios of job's problem against prog and fills
// rep. Grade uses it with the interpreted submission; the native benchmark
// with a compiled one.
func GradeProgram(ctx context.Context, job Job, prog Program, b Bubble, progress func(ScenarioReport), rep *Report) error {
	suite, err := suiteOf(job)
	if err != nil {
		return err
	}
	scenarios, err := selectScenarios(suite, job.Scenarios)
	if err != nil {
		return err
	}
	if rep.Timings == nil {
		rep.Timings = &Timings{ScenariosMS: map[string]float64{}}
	}
	results := make([]scenarioResult, len(scenarios))
	runScenarios(ctx, b, scenarios, prog, job.Seed, results, func(k int) {
		if progress != nil && results[k].err == nil {
			progress(results[k].report)
		}
	})
	violatedDefects := map[string]bool{}
	examined := map[string]bool{}
	var failed []string
	for k := range scenarios {
		sc, res := &scenarios[k], &results[k]
		if res.err != nil {
			return res.err
		}
		sr := res.report
		rep.Timings.ScenariosMS[sc.Name] = ms(res.took)
		rep.Timings.Runs += res.stats.runs
		rep.Timings.Workers += res.stats.workers
		for _, inv := range sr.Invariants {
			if inv.Status == InvariantNotChecked {
				continue
			}
			examined[sc.defectFor(inv.ID)] = true
			if inv.Status == InvariantViolated {
				violatedDefects[inv.Defect] = true
			}
		}
		rep.Summary.ScenariosTotal++
		if sr.Status == StatusPass {
			rep.Summary.ScenariosPassed++
		} else {
			failed = append(failed, sr.Name)
		}
		rep.Scenarios = append(rep.Scenarios, sr)
	}
	for _, id := range DefectIDs {
		if examined[id] {
			rep.Summary.Defects = append(rep.Summary.Defects, DefectStatus{ID: id, Title: defectTitles[id], Kind: DefectKind(id), Fixed: !violatedDefects[id]})
		}
	}
	if len(failed) == 0 {
		rep.Status = StatusPass
		rep.Message = fmt.Sprintf("Every invariant held in all %d scenarios.", rep.Summary.ScenariosTotal)
		return nil
	}
	rep.Status = StatusFail
	rep.Message = fmt.Sprintf("%d of %d scenarios failed: %s.", len(failed), rep.Summary.ScenariosTotal, strings.Join(failed, ", "))
	return nil
}

func selectScenarios(all []Scenario, names []string) ([]Scenario, error) {
	for k := range all {
		if err := all[k].Validate(); err != nil {
			return nil, err
		}
	}
	if len(names) == 0 {
		return all, nil
	}
	byName := map[string]Scenario{}
	var known []string
	for _, s := range all {
		byName[s.Name] = s
		known = append(known, s.Name)
	}
	var out []Scenario
	for _, n := range names {
		s, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("grader: unknown scenario %q (known: %s)", n, strings.Join(known, ", "))
		}
		out = append(out, s)
	}
	return out, nil
}

type scenarioStats struct{ runs, workers int }

// scenarioResult is one scenario's outcome in a grade, kept in the
// scenario's place so that lanes finishing in any order give the same
// report.
type scenarioResult struct {
	report ScenarioReport
	stats  scenarioStats
	took   time.Duration
	err    error
}

// runScenarios fills results[k] for every scenario, spread over lanes when
// prog has them (see lanesFor), and calls done(k) for each scenario in
// order, as soon as it and every one before it have finished: progress
// streams in the suite's order whichever lane ran what. After a failure
// (the grader broke, or ctx ended) no lane starts another scenario; the
// failure lands in the result of each scenario not run, and the caller
// reports the first.
func runScenarios(ctx context.Context, b Bubble, scenarios []Scenario, prog Program, seed int64, results []scenarioResult, done func(k int)) {
	one := func(k int, p Program) {
		if err := ctx.Err(); err != nil {
			results[k].err = fmt.Errorf("grader: stopped before scenario %s: %w", scenarios[k].Name, err)
			return
		}
		t0 := time.Now()
		sr, stats, err := runScenario(b, &scenarios[k], p, seed)
		results[k] = scenarioResult{report: sr, stats: stats, took: time.Since(t0), err: err}
	}
	lanes := lanesFor(prog, len(scenarios))
	if lanes <= 1 {
		for k := range scenarios {
			one(k, prog)
			done(k)
			if results[k].err != nil {
				return
			}
		}
		return
	}
	// Lanes take scenarios in the suite's order, so every scenario before
	// the first unfinished one has finished: a child stopped by a limit
	// streamed them all, and the first it did not is one that was running
	// (see where). The costly explorations are spread through the suite,
	// and the short ones at its end even out the lanes.
	var (
		mu       sync.Mutex
		next     int  // the next scenario to start
		reported int  // scenarios before this one went to done
		broken   bool // a scenario failed: start no more
		finished = make([]bool, len(scenarios))
		wg       sync.WaitGroup
	)
	for i := 0; i < lanes; i++ {
		wg.Add(1)
		go func(p Program) {
			defer wg.Done()
			for {
				mu.Lock()
				if broken || next == len(scenarios) {
					mu.Unlock()
					return
				}
				k := next
				next++
				mu.Unlock()
				one(k, p)
				mu.Lock()
				finished[k] = true
				if results[k].err != nil {
					broken = true
				}
				for reported < len(scenarios) && finished[reported] {
					done(reported)
					if results[reported].err != nil {
						reported = len(scenarios) // nothing after a failure, as when run in order
						break
					}
					reported++
				}
				mu.Unlock()
			}
		}(prog.(laned).lane(i))
	}
	wg.Wait()
	if broken {
		// The first failure in suite order is the one reported: mark the
		// scenarios no lane reached, so the caller meets a failure no
		// later than the first scenario that has no report.
		for k := range results {
			if !finished[k] {
				results[k].err = fmt.Errorf("grader: stopped before scenario %s: an earlier scenario failed", scenarios[k].Name)
			}
		}
	}
}

// lanesFor is how many lanes a grade of n scenarios (or a scenario of n
// runs) uses: maxLanes when set, else one per core and at most the
// program's own limit; at most n, and one for a program without per-lane
// state.
func lanesFor(prog Program, n int) int {
	lp, ok := prog.(laned)
	if !ok {
		return 1
	}
	lanes := maxLanes
	if lanes <= 0 {
		lanes = runtime.GOMAXPROCS(0)
		if l := lp.laneLimit(); l > 0 {
			lanes = min(lanes, l)
		}
	}
	return max(1, min(lanes, n))
}

// runScenario explores the scenario's schedules or crash points and turns
// the runs into a ScenarioReport.
func runScenario(b Bubble, sc *Scenario, prog Program, seed int64) (ScenarioReport, scenarioStats, error) {
	learned, err := learnSubmission(b, sc, prog, seed)
	if err != nil {
		return ScenarioReport{}, scenarioStats{}, err
	}
	var runs []*run
	if sc.Explore.CrashPoints == CrashEveryBoundary {
		// A first run without a crash finds the crash worker's calls.
		base := &run{seed: seed, learned: learned}
		execute(b, sc, prog, base)
		runs = append(runs, base)
		calls := 0
		for _, iv := range base.invs {
			if iv.Worker == sc.Explore.CrashWorker {
				calls = iv.worker.Calls()
			}
		}
		var crashes []*run
		for k := 1; k <= calls && base.internal == nil; k++ {
			for _, before := range []bool{true, false} {
				crashes = append(crashes, &run{seed: seed, crash: world.CrashPoint{Call: k, Before: before}, crashFor: sc.Explore.CrashWorker, learned: learned})
			}
		}
		runLanes(b, sc, prog, crashes)
		runs = append(runs, crashes...)
	} else {
		n := sc.Explore.Schedules
		if n < 1 {
			n = 1
		}
		// A first run the step limits stopped is a loop that never waits
		// (or retries far too often): every other seed would spin to the
		// same limit, costing CPU and telling nothing more.
		first := &run{seed: seed, learned: learned}
		execute(b, sc, prog, first)
		runs = append(runs, first)
		if first.stopped != stoppedSteps && first.stopped != stoppedTotalSteps {
			var rest []*run
			for i := 1; i < n; i++ {
				rest = append(rest, &run{seed: seed + int64(i), learned: learned})
			}
			runLanes(b, sc, prog, rest)
			runs = append(runs, rest...)
		}
	}
	stats := scenarioStats{runs: len(runs)}
	for _, r := range runs {
		stats.workers += len(r.invs)
		if r.internal != nil {
			return ScenarioReport{}, stats, r.internal
		}
	}

	sr := ScenarioReport{Name: sc.Name, Title: sc.Title, Description: sc.Description, Status: StatusPass,
		SchedulesExplored: len(runs), Invariants: []InvariantResult{}, Invocations: []InvocationResult{}, Trace: []TraceEvent{}}
	first := map[string]violation{}
	firstRun := map[string]int{}
	failing := -1
	var loadProblem, deadlock string
	for k, r := range runs {
		vs := checkRun(sc, r)
		if sc.checks(InvBackoff) && k == len(runs)-1 {
			if _, done := first[InvBackoff]; !done {
				if msg := envelopeCheck(runs); msg != "" {
					vs = append(vs, violation{inv: InvBackoff, msg: msg})
				}
			}
		}
		for _, v := range vs {
			if _, ok := first[v.inv]; !ok {
				first[v.inv] = v
				firstRun[v.inv] = k
			}
		}
		if len(vs) > 0 && failing < 0 {
			failing = k
		}
		for _, iv := range r.invs {
			if iv.ended == endNotLoaded && loadProblem == "" {
				loadProblem = iv.loadErr
			}
		}
		if r.deadlock != "" && deadlock == "" {
			deadlock = r.deadlock
		}
	}
	for _, inv := range catalogue {
		id := inv.ID
		ir := InvariantResult{ID: id, Title: inv.Title, Why: inv.Why, Status: InvariantNotChecked}
		if sc.checks(id) {
			ir.Status = InvariantHeld
			if v, ok := first[id]; ok {
				ir.Status = InvariantViolated
				ir.Message = v.msg
				if firstRun[id] != failing {
					ir.Message += " (in the run with " + runs[firstRun[id]].label() + ")"
				}
				ir.Defect = sc.defectFor(id)
				if v.defect != "" {
					ir.Defect = v.defect
				}
			}
		}
		sr.Invariants = append(sr.Invariants, ir)
	}
	shown := runs[0]
	if failing >= 0 {
		sr.Status = StatusFail
		shown = runs[failing]
		s := shown.seed
		sr.FailingSeed = &s
		sr.FailingRun = shown.label()
	}
	switch {
	case loadProblem != "":
		sr.Status = StatusError
		sr.Message = loadProblem
	case deadlock != "":
		sr.Status = StatusFail
		sr.Message = "Some goroutines of the submission stayed blocked forever: " + deadlock
	}
	fillShownRun(&sr, shown)
	return sr, stats, nil
}

// maxLanes, when above zero, is how many lanes a grade uses (tests set
// it); zero means one per core the process may use (the grading child's
// GOMAXPROCS), unless the program limits itself (see laned). Lanes are how
// many scenarios (or, in a grade of one scenario, how many of its runs)
// execute at once: scenarios and runs are independent (each run has its
// own bubble, world and interpreters). Lanes share one pool of idle
// interpreters and compile another only when none is free. Two lanes once
// measured slower than one (157 ms against 104): each lane kept its own
// interpreters, and the benchmark's bubbles each set GOMAXPROCS.
var maxLanes = 0

// runLanes executes runs, several at a time when prog has lanes, each lane
// with its own interpreters. Results land in the runs themselves, so the
// order of completion does not matter.
func runLanes(b Bubble, sc *Scenario, prog Program, runs []*run) {
	lanes := lanesFor(prog, len(runs))
	if lanes <= 1 {
		for _, r := range runs {
			execute(b, sc, prog, r)
		}
		return
	}
	lp := prog.(laned)
	next := make(chan *run)
	var wg sync.WaitGroup
	for i := 0; i < lanes; i++ {
		wg.Add(1)
		go func(p Program) {
			defer wg.Done()
			for r := range next {
				execute(b, sc, p, r)
			}
		}(lp.lane(i))
	}
	for _, r := range runs {
		next <- r
	}
	close(next)
	wg.Wait()
}

// fillShownRun copies one run's invocations, output and trace into sr.
func fillShownRun(sr *ScenarioReport, r *run) {
	var out strings.Builder
	for _, iv := range r.invs {
		res := InvocationResult{Worker: iv.Worker, RequestID: iv.RequestID, Ended: iv.ended, Outcome: string(iv.outcome),
			Error: iv.errText, Panic: iv.panicMsg, CrashedAt: iv.worker.Died}
		if iv.ended == endNotLoaded {
			res.Error = iv.loadErr
		}
		sr.Invocations = append(sr.Invocations, res)
		if s := iv.output.String(); s != "" {
			fmt.Fprintf(&out, "[%s]\n%s", iv.Worker, s)
			if !strings.HasSuffix(s, "\n") {
				out.WriteString("\n")
			}
		}
		if iv.output.Truncated() {
			sr.OutputTruncated = true
		}
	}
	sr.Output = out.String()
	if len(sr.Output) > sandbox.OutputLimit {
		sr.Output, sr.OutputTruncated = sr.Output[:sandbox.OutputLimit], true
	}
	if r.env == nil {
		return
	}
	events := r.env.Trace()
	sort.SliceStable(events, func(i, j int) bool { return events[i].At < events[j].At })
	if len(events) > maxTraceEvents {
		events, sr.TraceTruncated = events[:maxTraceEvents], true
	}
	for _, e := range events {
		sr.Trace = append(sr.Trace, TraceEvent{At: at(e.At), Actor: traceActor(e.Actor), Kind: e.Kind, Text: e.Text})
	}
}

func traceActor(a string) string {
	if strings.HasPrefix(a, "provider/") {
		return "provider"
	}
	return a
}
