// Package refund is the async-refund family of code problems on the
// faultsim engine: a RefundMoney that must refund a charge once, whatever
// the provider, the store, crashes and concurrent workers do. It holds the
// family's scenario schema (scenario.go, scenariofile.go), its catalogue
// of invariants and defects (catalog.go, invariants.go) and the glue that
// runs a scenario's world (internal/kits/refund/world) under the engine;
// the submission sees only package refundkit
// (internal/grader/refundkit), whose import path, package name and entry
// signature stay as stored drafts have them.
//
// The API other packages use (the grading child, lint, the corpus,
// differential and mutation tests):
//
//   - Kit{} is the kit; Name ("refund") is what code.kit and
//     gradewire.Job.Kit spell.
//   - Entry is the entry point's type: func(ctx, requestID string)
//     (refundkit.Outcome, error); a natively compiled copy is graded as
//     faultsimtest.Native{Entry: f} (its harness calls find their worker
//     through ctx).
//   - ParseScenarios(file, data) reads a scenarios file; Builtin() is the
//     built-in content's (BuiltinScenariosFile); Scenarios(list) turns
//     either into what the engine takes.
//   - Grade(ctx, prog, scenarios, b, opt) grades any faultsim.Program
//     (interpreted.Interpret(Kit{}, ...) or a native one) and returns the
//     wire report the server renders; the tests' GradeSource does it for
//     source text.
package refund

//go:generate go run github.com/traefik/yaegi/cmd/yaegi@v0.16.1 extract -name refund github.com/faultline-dev/faultline/internal/grader/refundkit

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// Symbols holds the tables `yaegi extract` generates for refundkit.
var Symbols = map[string]map[string]reflect.Value{}

// Name is the kit's name, as code.kit spells it.
const Name = "refund"

// HarnessPath is the import path of the package submissions import.
const HarnessPath = "github.com/faultline-dev/faultline/internal/grader/refundkit"

// EntryName is the function a submission declares.
const EntryName = "RefundMoney"

// Entry is the entry point's type.
type Entry = func(ctx context.Context, requestID string) (refundkit.Outcome, error)

const entryWant = "func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error)"

// Kit is the refund family for faultsim.
type Kit struct{}

// Name implements faultsim.Kit.
func (Kit) Name() string { return Name }

// Story implements faultsim.Storyteller: the store's lane left of the
// workers', the provider's right of them, and a coin for each refund the
// provider applied. Its events' words cite the rules that matter (a
// saved answer's P2) themselves, so their list cites no more.
func (Kit) Story() gradewire.Story {
	return gradewire.Story{Before: []string{world.LaneStore}, After: []string{world.LaneProvider},
		EffectBy: "The provider applied", Effect: "refund"}
}

// Entry implements faultsim.Kit.
func (Kit) Entry() faultsim.EntrySpec {
	return faultsim.EntrySpec{Name: EntryName, Params: []string{"context.Context", "string"},
		Results: []string{HarnessPath + ".Outcome", "error"}, Want: entryWant}
}

// ParseScenarios implements faultsim.Kit.
func (Kit) ParseScenarios(file string, data []byte) ([]faultsim.Scenario, error) {
	list, err := parseScenariosOnce(file, string(data))
	if err != nil {
		return nil, err
	}
	return Scenarios(list), nil
}

// Scenarios returns the scenarios as the engine takes them.
func Scenarios(list []Scenario) []faultsim.Scenario {
	out := make([]faultsim.Scenario, len(list))
	for i := range list {
		out[i] = &list[i]
	}
	return out
}

// JudgesReturns implements faultsim.ReturnsJudge: the catalogue judges a
// call that never returns itself (no-stuck-processing, bounded-attempts,
// stops-when-cancelled), as reports always had it.
func (Kit) JudgesReturns() {}

// Defects implements faultsim.DefectTable.
func (Kit) Defects() []faultsim.Defect {
	out := make([]faultsim.Defect, len(DefectIDs))
	for i, id := range DefectIDs {
		out[i] = faultsim.Defect{ID: id, Title: defectTitles[id], Kind: DefectKind(id)}
	}
	return out
}

// Invariants implements faultsim.Kit: the catalogue, each judged request
// by request; backoff also over all the runs of a scenario.
func (Kit) Invariants() []faultsim.Invariant {
	out := make([]faultsim.Invariant, len(catalogue))
	for i, c := range catalogue {
		inv := faultsim.Invariant{ID: c.ID, Title: c.Title, Why: c.Why, Defect: c.Defect, JudgesLeaks: c.ID == InvGoroutinesEnd, Prefix: c.Prefix,
			Judge: func(fr *faultsim.Run) ([]string, string) {
				r, sc := adapt(fr)
				if r == nil {
					return nil, ""
				}
				msg, defect := judge(sc, r, c)
				if msg == "" {
					return nil, ""
				}
				return []string{msg + c.broken()}, defect
			}}
		if c.ID == InvBackoff {
			inv.CheckRuns = func(frs []*faultsim.Run) []string {
				var runs []*run
				for _, fr := range frs {
					if r, _ := adapt(fr); r != nil {
						runs = append(runs, r)
					}
				}
				if msg := envelopeCheck(runs); msg != "" {
					return []string{msg + c.broken()}
				}
				return nil
			}
		}
		out[i] = inv
	}
	return out
}

// NewWorld implements faultsim.Kit.
func (Kit) NewWorld(s faultsim.Scenario, r *faultsim.Run) (faultsim.World, error) {
	sc, ok := s.(*Scenario)
	if !ok {
		return nil, fmt.Errorf("refund: scenario %T is not this kit's", s)
	}
	env := world.NewEnvOn(r.Gate(), r.Trace, world.DefaultNetwork)
	env.OnFault(r.Fire)
	env.OnFaultLimit(r.MayFire)
	if err := seedWorld(env, sc, sc.learned); err != nil {
		return nil, err
	}
	return &runWorld{sc: sc, run: r, env: env, workers: map[*faultsim.Worker]*world.Worker{}, ends: map[*faultsim.Worker]*callEnd{}}, nil
}

// Learn implements faultsim.Learner: history the scenario says an earlier
// run of this code made is spelled as this code spells it (see
// learnSubmission).
func (Kit) Learn(s faultsim.Scenario, quiet func(faultsim.Scenario) (*faultsim.Run, error)) (faultsim.Scenario, error) {
	sc, ok := s.(*Scenario)
	if !ok {
		return nil, fmt.Errorf("refund: scenario %T is not this kit's", s)
	}
	learned, err := learnSubmission(sc, quiet)
	if err != nil || learned == nil {
		return sc, err
	}
	c := *sc
	c.learned = learned
	return &c, nil
}

// Plan implements faultsim.Scenario.
func (s *Scenario) Plan() faultsim.Plan {
	// A refund scenario says how many schedules it explores (one unless
	// it says more), whatever a job's Seeds: its goldens and its corpus
	// verdicts are those of that count.
	p := faultsim.Plan{Name: s.Name, Title: s.Title, Description: s.Description, Budget: s.budget(), Defects: s.Defects,
		Schedules: max(1, s.Explore.Schedules)}
	for _, id := range InvariantIDs {
		if s.checks(id) {
			p.Checks = append(p.Checks, id)
		}
	}
	if s.Explore.CrashPoints == CrashEveryBoundary {
		p.Crash, p.EveryCrashPoint = []string{s.Explore.CrashWorker}, true
	}
	for pi, ph := range s.Phases {
		p.Phases = append(p.Phases, faultsim.Phase{Name: ph.Name, After: ph.After})
		for _, inv := range ph.Invocations {
			c := faultsim.Call{Worker: inv.Worker, At: inv.At, Subject: inv.RequestID, Phase: pi,
				CancelAfter: inv.CancelAfter, Timeout: inv.Timeout}
			if t := inv.When; t != nil {
				c.When = "status " + string(t.Status)
				if t.Answered != "" {
					c.When = "answered " + t.Answered
				}
			}
			p.Calls = append(p.Calls, c)
		}
	}
	return p
}

// invocation finds the scenario's invocation of worker.
func (s *Scenario) invocation(worker string) (Invocation, int) {
	for pi, ph := range s.Phases {
		for _, inv := range ph.Invocations {
			if inv.Worker == worker {
				return inv, pi
			}
		}
	}
	return Invocation{}, -1
}

// runWorld is one run's world: the fakes, and what each call left that
// the engine does not keep.
type runWorld struct {
	sc      *Scenario
	run     *faultsim.Run
	env     *world.Env
	mu      sync.Mutex
	workers map[*faultsim.Worker]*world.Worker
	ends    map[*faultsim.Worker]*callEnd
	// adapted is each run's reading, by run: a run the engine did not
	// make again (a twin's repeat) shares its twin's world, not its seed.
	adapted map[*faultsim.Run]*run
}

// callEnd is what a call returned, read inside the run.
type callEnd struct {
	outcome  refundkit.Outcome
	err      error
	errText  string
	atEnd    refundkit.Record
	hadAtEnd bool
}

// worker is the fakes' worker for the engine's p.
func (w *runWorld) worker(p *faultsim.Worker) *world.Worker {
	w.mu.Lock()
	defer w.mu.Unlock()
	ww := w.workers[p]
	if ww == nil {
		ww = w.env.Adopt(p)
		w.workers[p] = ww
	}
	return ww
}

// phase is the step of the clock's events: a rule across every lane of
// the run's sequence diagram.
var phase = faultsim.Step{Outcome: faultsim.OutcomePhase}

// PhaseStarts implements faultsim.PhaseHook: a phase may replace the
// provider's fault script.
func (w *runWorld) PhaseStarts(i int, p faultsim.Phase) {
	ph := w.sc.Phases[i]
	if len(w.sc.Phases) > 1 {
		w.env.RecordStep("", world.LaneClock, world.KindState, phase, "%s begins", ph.Name)
	}
	if ph.ResetFaults || len(ph.Faults) > 0 {
		faults := w.sc.scripted(fmt.Sprintf("phases[%d].faults", i), ph.Faults)
		w.env.Provider().ScriptFaults(faults)
		w.env.RecordStep("", world.LaneClock, world.KindState, phase, "from now on the provider has %s", faultScriptWords(faults))
	}
}

// When implements faultsim.Triggers: a record written a status, or a
// worker's request answered.
func (w *runWorld) When(c faultsim.Call, fire func() bool) {
	inv, _ := w.sc.invocation(c.Worker)
	f := func() {
		if fire() {
			format, args := triggerWords(inv, w.run.Entry)
			w.env.RecordStep("", world.LaneClock, world.KindState, phase, format, args...)
		}
	}
	if inv.When.Status != "" {
		w.env.WhenStatus(inv.RequestID, inv.When.Status, f)
	} else {
		w.env.WhenAnswered(inv.When.Answered, f)
	}
}

// Invoke implements faultsim.World.
func (w *runWorld) Invoke(ctx context.Context, p *faultsim.Worker, entry any, c faultsim.Call) string {
	ww := w.worker(p)
	f, err := entryOf(entry)
	if err != nil {
		panic(err.Error())
	}
	end := &callEnd{}
	w.mu.Lock()
	w.ends[p] = end
	w.mu.Unlock()
	// The record as the call left it, before any other actor takes a
	// step: this goroutine still holds the step its last call began. A
	// panic leaves one too; a crash (Goexit) does not.
	defer func() {
		if v := recover(); v != nil {
			end.atEnd, end.hadAtEnd = w.env.Store().Lookup(c.Subject)
			panic(v)
		}
	}()
	out, callErr := f(world.WithWorker(ctx, ww), c.Subject)
	// The error's text is the submission's code (its Error method): read
	// it here, inside the run, on the worker's own goroutine, where a
	// method that never returns is a call that never ends, caught by the
	// run's limits, and never later while the report is built.
	end.outcome, end.err, end.errText = out, callErr, errorText(callErr)
	end.atEnd, end.hadAtEnd = w.env.Store().Lookup(c.Subject)
	if callErr != nil {
		return strconv.Quote(string(out)) + ", error: " + end.errText
	}
	return strconv.Quote(string(out))
}

// ResultParts implements faultsim.Reporter.
func (w *runWorld) ResultParts(iv *faultsim.Invocation) (outcome, err string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e := w.ends[iv.Worker]; e != nil && iv.Ended == faultsim.EndReturned {
		return string(e.outcome), e.errText
	}
	return "", ""
}

// EndState implements faultsim.World: the refund report shows the trace,
// not a summary.
func (w *runWorld) EndState() []string { return nil }

func entryOf(entry any) (Entry, error) {
	if f, ok := entry.(Entry); ok {
		return f, nil
	}
	v := reflect.ValueOf(entry)
	t := reflect.TypeOf(Entry(nil))
	if v.IsValid() && v.Type().ConvertibleTo(t) {
		return v.Convert(t).Interface().(Entry), nil
	}
	return nil, fmt.Errorf("refund: the entry point is a %T, want %s", entry, entryWant)
}

// errorText is an error for the report, capped. It runs the error's
// Error method: call it only inside the run (see Invoke).
func errorText(err error) (text string) {
	if err == nil {
		return ""
	}
	defer func() {
		if v := recover(); v != nil {
			text = fmt.Sprintf("(its Error method panicked: %v)", v)
		}
	}()
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// triggerWords says in the trace why a triggered call starts now, as a
// format and plain arguments, so the line is made only if the trace is read.
func triggerWords(inv Invocation, entry string) (format string, args []any) {
	format, args = "%s has just been written %s", []any{inv.RequestID, inv.When.Status}
	if inv.When.Answered != "" {
		format, args = "a request of %s has just got its answer", []any{inv.When.Answered}
	}
	if inv.At > 0 {
		return format + ": %s calls %s(%s) %s from now", append(args, inv.Worker, entry, inv.RequestID, inv.At.Round(time.Millisecond))
	}
	return format + ": %s calls %s(%s) now", append(args, inv.Worker, entry, inv.RequestID)
}

// faultScriptWords says in plain words what a phase's fault script does.
func faultScriptWords(faults []world.Fault) string {
	if len(faults) == 0 {
		return "no faults"
	}
	var parts []string
	for _, f := range faults {
		which := "every request"
		if f.Request > 0 {
			which = fmt.Sprintf("request %d of this phase", f.Request)
		}
		parts = append(parts, which+": "+f.Describe())
	}
	return strings.Join(parts, "; ")
}

// Grade grades prog against scenarios and returns the report the server
// renders: a program that does not load is a report too (status error);
// the error is for the grader breaking.
func Grade(ctx context.Context, prog faultsim.Program, scenarios []faultsim.Scenario, b faultsim.Bubble, opt faultsim.Options) (*gradewire.Report, error) {
	rep, err := faultsim.Grade(ctx, Kit{}, scenarios, prog, b, opt)
	if err != nil {
		return nil, err
	}
	return rep.Wire(opt.FirstSeed), nil
}

// Harness implements faultsim.Kit: refundkit's functions bound to the
// calling worker, whatever context the submission passes them (a call
// with context.Background() still reaches its own worker), and time's
// Sleep, After and Now as the worker's.
func (Kit) Harness() faultsim.Harness {
	key := faultsim.SymbolKey(HarnessPath)
	kit := make(map[string]reflect.Value, len(Symbols[key]))
	for k, v := range Symbols[key] {
		kit[k] = v
	}
	kit["GetRecord"] = reflect.ValueOf(func(ctx context.Context, id string) (*refundkit.Record, error) { return calling().GetRecord(ctx, id) })
	kit["Claim"] = reflect.ValueOf(func(ctx context.Context, id string, lease time.Duration) (bool, error) {
		return calling().Claim(ctx, id, lease)
	})
	kit["MarkProcessing"] = reflect.ValueOf(func(ctx context.Context, id string) error { return calling().MarkProcessing(ctx, id) })
	kit["MarkDone"] = reflect.ValueOf(func(ctx context.Context, id string) error { return calling().MarkDone(ctx, id) })
	kit["MarkFailed"] = reflect.ValueOf(func(ctx context.Context, id, reason string) error { return calling().MarkFailed(ctx, id, reason) })
	kit["MarkNeedsCheck"] = reflect.ValueOf(func(ctx context.Context, id, reason string) error {
		return calling().MarkNeedsCheck(ctx, id, reason)
	})
	kit["CreateRefund"] = reflect.ValueOf(func(ctx context.Context, p refundkit.RefundParams) (*refundkit.ProviderRefund, error) {
		return calling().CreateRefund(ctx, p)
	})
	kit["ListRefunds"] = reflect.ValueOf(func(ctx context.Context, charge string) ([]refundkit.ProviderRefund, error) {
		return calling().ListRefunds(ctx, charge)
	})
	kit["Logf"] = reflect.ValueOf(func(ctx context.Context, format string, args ...any) { calling().Logf(ctx, format, args...) })
	return faultsim.Harness{Path: HarnessPath, Symbols: map[string]map[string]reflect.Value{
		key: kit,
		faultsim.SymbolKey("time"): {
			"Sleep": reflect.ValueOf(func(d time.Duration) { calling().Sleep(d) }),
			"After": reflect.ValueOf(func(d time.Duration) <-chan time.Time { return calling().After(d) }),
			"Now":   reflect.ValueOf(now),
			"Since": reflect.ValueOf(func(t time.Time) time.Duration { return now().Sub(t) }),
			"Until": reflect.ValueOf(func(t time.Time) time.Duration { return t.Sub(now()) }),
		},
	}}
}

// now is the calling worker's reading of the clock. Every run's bubble
// clock starts at the same instant, and the workers of a run start
// together, so time.Now would read the same nanosecond in every process:
// a random source seeded from it (the common
// rand.NewSource(time.Now().UnixNano())) would then draw the same numbers
// in every worker, which separate processes never do. Each worker's clock
// reads up to a microsecond late, by an amount that comes from its seed;
// Since and Until read the same clock, so durations stay exact.
func now() time.Time {
	var seed int64
	if p := faultsim.CallingWorker(); p != nil {
		seed = p.Seed()
	}
	late := time.Duration(1 + uint64(seed)*2654435761%999)
	return time.Now().Add(late)
}

// calling is the fakes' worker of the calling goroutine's worker. Code
// that runs outside any run's world (package initialisers while the
// interpreter loads) gets a worker of a world of its own, which no run
// sees.
func calling() *world.Worker {
	p := faultsim.CallingWorker()
	if p != nil {
		if w, ok := p.World().(*runWorld); ok {
			return w.worker(p)
		}
	}
	id := "loading"
	if p != nil {
		id = p.ID
	}
	return world.NewEnv(openGate{}, world.DefaultNetwork).NewWorker(id, world.CrashPoint{})
}

// openGate lets every step through at once: for code outside any run.
type openGate struct{}

func (openGate) Pass(string) bool      { return true }
func (openGate) Go(_ string, f func()) { go f() }
