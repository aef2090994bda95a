package faultsim_test

// The engine's features a kit opts into (phases, triggered calls, caller
// contexts, a learning run, checks over all runs, a table of defects),
// tried on the toy family: a kit that wraps toyKit and a world that wraps
// toyWorld with the optional interfaces.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
)

type planScenario struct{ p faultsim.Plan }

func (s planScenario) Plan() faultsim.Plan { return s.p }

// featureKit is the toy family with the optional parts a test sets.
type featureKit struct {
	toyKit
	invariants []faultsim.Invariant
	defects    []faultsim.Defect
	learn      func(sc faultsim.Scenario, quiet func(faultsim.Scenario) (*faultsim.Run, error)) (faultsim.Scenario, error)
}

func (k featureKit) Invariants() []faultsim.Invariant {
	if k.invariants != nil {
		return k.invariants
	}
	return k.toyKit.Invariants()
}

func (k featureKit) NewWorld(sc faultsim.Scenario, r *faultsim.Run) (faultsim.World, error) {
	return &eventWorld{toyWorld: toyWorld{run: r}}, nil
}

// learningKit is featureKit with a learning run.
type learningKit struct{ featureKit }

func (k learningKit) Learn(sc faultsim.Scenario, quiet func(faultsim.Scenario) (*faultsim.Run, error)) (faultsim.Scenario, error) {
	return k.learn(sc, quiet)
}

// tableKit is featureKit with a table of defects.
type tableKit struct{ featureKit }

func (k tableKit) Defects() []faultsim.Defect { return k.defects }

// eventWorld's events are "value N": the counter is written N.
type eventWorld struct {
	toyWorld
	waits []waiting
}

type waiting struct {
	value int
	c     faultsim.Call
	fire  func() bool
}

func (w *eventWorld) PhaseStarts(i int, p faultsim.Phase) {
	w.run.Trace.Add("clock", faultsim.KindState, "phase %d (%s) begins", i, p.Name)
}

func (w *eventWorld) When(c faultsim.Call, fire func() bool) {
	var v int
	fmt.Sscanf(c.When, "value %d", &v)
	w.waits = append(w.waits, waiting{v, c, fire})
}

func (w *eventWorld) Invoke(ctx context.Context, wk *faultsim.Worker, entry any, c faultsim.Call) string {
	f := entry.(func(context.Context, Counter) error)
	if err := f(ctx, &eventCounter{toyCounter{&w.toyWorld, wk}, w}); err != nil {
		return "error: " + err.Error()
	}
	return "nil"
}

type eventCounter struct {
	toyCounter
	w *eventWorld
}

func (c *eventCounter) Set(ctx context.Context, v int) {
	c.toyCounter.Set(ctx, v)
	for i := 0; i < len(c.w.waits); i++ {
		if wt := c.w.waits[i]; wt.value == v {
			c.w.waits = slices.Delete(c.w.waits, i, i+1)
			i--
			started := wt.fire()
			c.wk.Trace().Add("test", faultsim.KindState, "%s triggered, started %v", wt.c.Worker, started)
		}
	}
}

func gradeFeature(t *testing.T, k faultsim.Kit, p faultsim.Plan, prog faultsim.Program, opt faultsim.Options) *faultsim.Report {
	t.Helper()
	if p.Budget == 0 {
		p.Budget = time.Minute
	}
	rep, err := faultsim.Grade(context.Background(), k, []faultsim.Scenario{planScenario{p}}, prog, faultsimtest.Bubble(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func traceTexts(sr faultsim.ScenarioResult) []string {
	var out []string
	for _, e := range sr.Trace {
		out = append(out, fmt.Sprintf("%s %s %s", faultsim.FormatAt(e.At), e.Actor, e.Text))
	}
	return out
}

func indexOf(t *testing.T, lines []string, part string) int {
	t.Helper()
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, part) })
	if i < 0 {
		t.Fatalf("trace lacks %q:\n%s", part, strings.Join(lines, "\n"))
	}
	return i
}

func TestPhasesRunInOrderAndTriggersJoinTheirPhase(t *testing.T) {
	// The racy bump is safe one call at a time: phases make it so.
	plan := faultsim.Plan{Name: "phased",
		Phases: []faultsim.Phase{{Name: "first"}, {Name: "second", After: time.Second}},
		Calls: []faultsim.Call{
			{Worker: "worker-1", Subject: "a", Phase: 0},
			{Worker: "worker-2", Subject: "b", Phase: 1},
			// worker-3 starts once worker-2 wrote 2, in the second phase.
			{Worker: "worker-3", Subject: "c", Phase: 1, When: "value 2", At: time.Second},
			// The first phase is over when the counter reaches 3.
			{Worker: "worker-4", Subject: "d", Phase: 0, When: "value 3"},
		}}
	rep := gradeFeature(t, featureKit{}, plan, faultsimtest.Native{Entry: racyNative}, faultsim.Options{Seeds: 10})
	sr := rep.Scenarios[0]
	if sr.Status != faultsim.StatusPass {
		t.Fatalf("status %s: %v", sr.Status, rep.Failed())
	}
	lines := traceTexts(sr)
	p0, p1 := indexOf(t, lines, "phase 0 (first) begins"), indexOf(t, lines, "phase 1 (second) begins")
	w1end, w3start := indexOf(t, lines, "Bump(a) returns"), indexOf(t, lines, "Bump(c) starts")
	if !(p0 < w1end && w1end < p1 && p1 < w3start) {
		t.Errorf("phases out of order:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.HasPrefix(lines[p1], "t+1s ") || !strings.HasPrefix(lines[w3start], "t+2s ") {
		t.Errorf("phase 1 should begin at 1s and worker-3 start a second after worker-2's write:\n%s", strings.Join(lines, "\n"))
	}
	indexOf(t, lines, "worker-4 triggered, started false")
	if len(sr.Calls) != 3 {
		t.Errorf("calls = %+v, want worker-4's never started", sr.Calls)
	}
	if got := sr.EndState[0]; got != "counter = 3" {
		t.Errorf("end state %q", got)
	}
}

func TestCallerContexts(t *testing.T) {
	waits := func(ctx context.Context, c Counter) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Hour):
			return nil
		}
	}
	plan := faultsim.Plan{Name: "contexts", Budget: 2 * time.Hour, Calls: []faultsim.Call{
		{Worker: "worker-1", Subject: "a", CancelAfter: 2 * time.Second, Timeout: 5 * time.Second},
		{Worker: "worker-2", Subject: "b", Timeout: 3 * time.Second},
		{Worker: "worker-3", Subject: "c"},
	}}
	var calls []*faultsim.Invocation
	k := featureKit{invariants: []faultsim.Invariant{{ID: "look", Check: func(r *faultsim.Run) []string { calls = r.Calls; return nil }}}}
	rep := gradeFeature(t, k, plan, faultsimtest.Native{Entry: waits}, faultsim.Options{})
	byWorker := map[string]*faultsim.Invocation{}
	for _, iv := range calls {
		byWorker[iv.Call.Worker] = iv
	}
	for _, tt := range []struct {
		worker, ends, result string
		at, ended            time.Duration
	}{
		{"worker-1", faultsim.ContextCancelled, "error: context canceled", 2 * time.Second, 2 * time.Second},
		{"worker-2", faultsim.ContextDeadline, "error: context deadline exceeded", 3 * time.Second, 3 * time.Second},
		{"worker-3", "", "nil", 0, time.Hour},
	} {
		iv := byWorker[tt.worker]
		if iv.ContextEnds != tt.ends || iv.ContextEndsAt != tt.at || iv.Result != tt.result || iv.EndedAt != tt.ended {
			t.Errorf("%s: context ends %q at %s, result %q at %s; want %q at %s, %q at %s", tt.worker,
				iv.ContextEnds, iv.ContextEndsAt, iv.Result, iv.EndedAt, tt.ends, tt.at, tt.result, tt.ended)
		}
	}
	lines := traceTexts(rep.Scenarios[0])
	indexOf(t, lines, "Bump(a) starts; its caller will stop waiting and cancel the context at +2s")
	indexOf(t, lines, "t+2s caller/worker-1 the caller of worker-1 stops waiting: it cancels the context")
	indexOf(t, lines, "Bump(b) starts, with a context deadline at +3s")
}

func TestLearningRunAndChecksOverAllRuns(t *testing.T) {
	// The learning run sees what a quiet scenario does and picks the
	// scenario to explore; the check over all runs sees every seed.
	var quietCalls int
	var seen []int64
	k := learningKit{featureKit{
		invariants: []faultsim.Invariant{{ID: "seeds", Title: "Seeds differ",
			Check: func(r *faultsim.Run) []string { return nil },
			CheckRuns: func(runs []*faultsim.Run) []string {
				for _, r := range runs {
					seen = append(seen, r.Seed)
				}
				return []string{fmt.Sprintf("%d runs", len(runs))}
			}}},
		learn: func(sc faultsim.Scenario, quiet func(faultsim.Scenario) (*faultsim.Run, error)) (faultsim.Scenario, error) {
			r, err := quiet(toyScenario{name: "quiet", workers: 1})
			if err != nil {
				return nil, err
			}
			quietCalls = len(r.Calls)
			p := sc.Plan()
			p.Title = fmt.Sprintf("learned from %d call", len(r.Calls))
			return planScenario{p}, nil
		}}}
	plan := faultsim.Plan{Name: "learn", Schedules: 3, Calls: []faultsim.Call{{Worker: "worker-1", Subject: "a"}}}
	rep := gradeFeature(t, k, plan, faultsimtest.Native{Entry: casNative}, faultsim.Options{FirstSeed: 7, Seeds: 9})
	sr := rep.Scenarios[0]
	if quietCalls != 1 || sr.Title != "learned from 1 call" {
		t.Errorf("learning run made %d calls; title %q", quietCalls, sr.Title)
	}
	if !slices.Equal(seen, []int64{7, 8, 9}) || sr.Runs != 3 {
		t.Errorf("the check over all runs saw seeds %v (runs %d), want the plan's 3 from 7", seen, sr.Runs)
	}
	inv := sr.Invariants[1]
	if inv.Held || inv.Evidence[0] != "3 runs" || sr.Run != "seed 9" || *sr.FailingSeed != 9 {
		t.Errorf("invariant %+v, run %q: want a violation shown with the last run", inv, sr.Run)
	}
}

func TestDefectsAndUncheckedInvariants(t *testing.T) {
	lost := toyKit{}.Invariants()[0]
	lost.Defect = "lost-update"
	lost.Judge = func(r *faultsim.Run) ([]string, string) {
		ev := lost.Check(r)
		if len(ev) > 0 && len(r.Calls) > 2 {
			return ev, "crowd" // the evidence names a better defect
		}
		return ev, ""
	}
	never := faultsim.Invariant{ID: "never", Title: "Never judged", Defect: "unseen", Check: func(*faultsim.Run) []string { return []string{"judged"} }}
	k := tableKit{featureKit{invariants: []faultsim.Invariant{lost, never},
		defects: []faultsim.Defect{{ID: "unseen", Title: "U", Kind: "original"}, {ID: "crowd", Title: "C", Kind: "rewrite"},
			{ID: "race", Title: "R", Kind: "original"}, {ID: "lost-update", Title: "L", Kind: "original"}}}}
	two := func(n int) faultsim.Plan {
		p := faultsim.Plan{Name: fmt.Sprint(n), Budget: time.Minute, Checks: []string{"no-lost-update"}, Defects: map[string]string{"no-lost-update": "race"}}
		for i := 1; i <= n; i++ {
			p.Calls = append(p.Calls, faultsim.Call{Worker: fmt.Sprintf("worker-%d", i), Subject: "c"})
		}
		return p
	}
	rep, err := faultsim.Grade(context.Background(), k, []faultsim.Scenario{planScenario{two(2)}, planScenario{two(3)}},
		faultsimtest.Native{Entry: racyNative}, faultsimtest.Bubble(t), faultsim.Options{Seeds: 30})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"race", "crowd"} {
		sr := rep.Scenarios[i]
		if got := sr.Invariants[1]; got.Held || got.Defect != want {
			t.Errorf("scenario %s: %+v, want a violation pointing to %s", sr.Name, got, want)
		}
		if got := sr.Invariants[2]; !got.NotChecked || !got.Held {
			t.Errorf("scenario %s: %+v, want never not checked", sr.Name, got)
		}
	}
	// race is what the plans map the checked invariant to, and it failed;
	// the summary lists the defects the scenarios examine (crowd only came
	// from evidence, unseen from an unchecked invariant), and lost-update
	// is what the plans replace.
	want := []faultsim.DefectStatus{{ID: "race", Title: "R", Kind: "original"}}
	if !slices.Equal(rep.Defects, want) {
		t.Errorf("defects %+v, want %+v", rep.Defects, want)
	}
	w := rep.Wire(0)
	if got := w.Scenarios[0].Invariants[2].Status; got != "not_checked" {
		t.Errorf("wire status of an unchecked invariant %q", got)
	}
	if len(w.Summary.Defects) != 1 {
		t.Errorf("wire defects %+v", w.Summary.Defects)
	}
}

func TestLeftoverGoroutinesAreNoDeadlock(t *testing.T) {
	// The call returns; a goroutine it started stays blocked forever.
	leaves := func(ctx context.Context, c Counter) error {
		go func() { select {} }()
		c.Set(ctx, 1)
		return nil
	}
	var leftover, deadlock string
	k := featureKit{invariants: []faultsim.Invariant{{ID: "look", Check: func(r *faultsim.Run) []string {
		leftover, deadlock = r.Leftover, r.Deadlock
		return nil
	}}}}
	rep := gradeFeature(t, k, faultsim.Plan{Name: "leaves", Calls: []faultsim.Call{{Worker: "worker-1", Subject: "a"}}},
		faultsimtest.Native{Entry: leaves}, faultsim.Options{})
	if leftover == "" || deadlock != "" || rep.Scenarios[0].Status != faultsim.StatusPass {
		t.Errorf("leftover %q, deadlock %q, status %s", leftover, deadlock, rep.Scenarios[0].Status)
	}
}

func TestEveryRandFunctionDrawsFromTheWorkersSource(t *testing.T) {
	const src = `package tally

import (
	"context"
	"fmt"
	"math/rand"

	"faultline.test/tally"
)

func Bump(ctx context.Context, c tally.Counter) error {
	fmt.Println(rand.Float32(), rand.ExpFloat64(), rand.NormFloat64(), rand.Float64())
	return nil
}
`
	rep := grade(t, interpretedProgram(t, src), toyScenario{name: "one", workers: 1}, faultsim.Options{FirstSeed: 3})
	r := rand.New(rand.NewSource(3*1000 + 1))
	want := fmt.Sprintln(r.Float32(), r.ExpFloat64(), r.NormFloat64(), r.Float64())
	if got := rep.Scenarios[0].Calls[0].Output; got != want {
		t.Errorf("printed %q, want the worker's draws %q", got, want)
	}
}

func TestALeakEndsTheGradeAtTheSameRunWhateverTheLanes(t *testing.T) {
	// The call leaks a goroutine when its worker's seed is odd and past 3:
	// the first leaking run of "second" is seed 5, whatever lane finishes
	// first; "first" never leaks and "third" is not run.
	var started atomic.Int32
	leaks := func(ctx context.Context, c Counter) error {
		started.Add(1)
		ec := c.(*eventCounter)
		if s := ec.w.run.Seed; s > 3 && s%2 == 1 && ec.w.run.Plan.Name == "second" {
			go func() { select {} }()
		}
		c.Set(ctx, 1)
		return nil
	}
	judge := faultsim.Invariant{ID: "goroutines-end", Title: "no leak", JudgesLeaks: true, Check: func(r *faultsim.Run) []string {
		if r.Leaked() {
			return []string{"leaked"}
		}
		return nil
	}}
	k := featureKit{invariants: []faultsim.Invariant{judge}}
	var scenarios []faultsim.Scenario
	for _, name := range []string{"first", "second", "third"} {
		scenarios = append(scenarios, planScenario{faultsim.Plan{Name: name, Budget: time.Minute,
			Calls: []faultsim.Call{{Worker: "worker-1", Subject: "a"}}}})
	}
	var want []byte
	for _, lanes := range []int{1, 2, 4, 1, 4} {
		started.Store(0)
		rep, err := faultsim.Grade(context.Background(), k, scenarios, faultsimtest.Native{Entry: leaks}, faultsimtest.Bubble(t),
			faultsim.Options{Seeds: 12, FirstSeed: 1, Lanes: lanes})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Status != faultsim.StatusFail || len(rep.Scenarios) != 2 || rep.Scenarios[1].Runs != 5 ||
			!strings.Contains(rep.Message, "the scenario after it was not run") ||
			!strings.Contains(rep.Scenarios[1].Message, "seed 5") {
			t.Fatalf("lanes %d: status %s, message %q, scenarios %+v", lanes, rep.Status, rep.Message, rep.Scenarios)
		}
		// In one lane nothing after the cut starts; with more, runs and
		// scenarios after it may have started, and are left out all the
		// same.
		if n := started.Load(); lanes == 1 && n != 12+5 {
			t.Errorf("lanes 1: %d calls started, want the 12 of first and 5 of second", n)
		}
		got, _ := json.Marshal(rep.Wire(1))
		if want == nil {
			want = got
		} else if string(got) != string(want) {
			t.Errorf("lanes %d: the report differs:\n%s\nwant\n%s", lanes, got, want)
		}
	}
}
