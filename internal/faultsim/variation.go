package faultsim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// A run's choices are its seed's scheduling picks, its crash point and the
// faults its scenario scripts (see gradewire's variation.go). The run
// records each: Run.Choices numbers the picks the scheduler made among
// actors ready at once, Run.Fired the faults that took effect, as the
// world reports them (Fire), and the worker's death its crash point. A
// Variation makes a run again with some of them changed; the same seed and
// Variation make the same run, event for event.

// Variation is a run made again with some of its choices changed.
type Variation = gradewire.Variation

// FaultRef is one fault a scenario scripts, as its kit numbers it.
type FaultRef struct {
	// ID names it within the scenario; Class is one of gradewire's
	// fault classes; Text says what it is, to follow "without".
	ID, Class, Text string
	// Unmet, when set, is the scenario author's word for why a correct
	// solution may never meet the fault: it is there for code that goes
	// where the reference does not (a look-up after a refusal, more
	// attempts than it makes). Lint does not warn of it unfired against
	// the reference.
	Unmet string
	// Splits says the fault may take effect many times (every request, a
	// span of them), and the kit's worlds ask Run.MayFire before each:
	// a Variation's Limits can make it smaller.
	Splits bool
}

// FaultScript is a Kit whose scenarios' faults the engine may list and
// switch off: what shrinking a failing run, what-if replays and fault
// coverage need. Its worlds call Run.Fire when a fault takes effect.
type FaultScript interface {
	// Faults lists the faults sc scripts, in the scenario's order.
	Faults(sc Scenario) []FaultRef
	// Without is sc with the faults of those ids left out, and nothing
	// else changed: a request a dropped fault named behaves as one no
	// fault names. sc itself is not changed.
	Without(sc Scenario, drop []string) Scenario
}

// Firing is a fault of the scenario taking effect in a run.
type Firing struct {
	Fault string // FaultRef.ID
	At    time.Duration
	Seq   int // the trace's length then
}

// Fire records that the scripted fault id took effect now. A world calls
// it holding the gate, where the fault changes what happens (a reply
// dropped, an error answered), and only then: a fault whose request never
// comes never fires.
func (r *Run) Fire(id string) {
	f := Firing{Fault: id}
	if r.Trace != nil {
		f.At, f.Seq = r.Trace.Since(), r.Trace.Len()
	}
	r.mu.Lock()
	r.fired = append(r.fired, f)
	r.mu.Unlock()
}

// MayFire says the scripted fault id may take effect once more in this
// run: false once it has as many times as its Variation limits it to
// (Variation.Limits). A world asks it, holding the gate, before a fault
// whose FaultRef Splits takes effect, and treats a request it may not
// hit as one no fault names.
func (r *Run) MayFire(id string) bool {
	if r.Vary == nil || len(r.Vary.Limits) == 0 {
		return true
	}
	i := slices.IndexFunc(r.Vary.Limits, func(l gradewire.FaultLimit) bool { return l.ID == id })
	if i < 0 {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, f := range r.fired {
		if f.Fault == id {
			n++
		}
	}
	return n < r.Vary.Limits[i].Times
}

// Fired is the firings of the run's faults, in order.
func (r *Run) Fired() []Firing {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.fired)
}

// Choice is one pick of the run's scheduler among more than one actor
// ready at the same moment: the Nth (from 1), when, the trace's length
// then, the actors ready (in the scheduler's order; nil past the first
// few hundred picks) and the one picked.
type Choice struct {
	N      int
	At     time.Duration
	Seq    int
	Ready  []string
	Picked string
	Nth    int // which of Picked's steps ready then, by arrival (from 0)
}

// Choices is the picks of the run's scheduler.
func (r *Run) Choices() []Choice {
	if r.sched == nil {
		return nil
	}
	out := make([]Choice, len(r.sched.choices))
	for i, c := range r.sched.choices {
		out[i] = Choice{N: i + 1, Seq: c.seq, Ready: c.ready, Picked: c.actor, Nth: c.nth}
		if r.Trace != nil {
			out[i].At = c.at.Sub(r.Trace.Start())
		}
	}
	return out
}

// Ref names the run in a Variation.
func (r *Run) Ref() gradewire.RunRef {
	ref := gradewire.RunRef{Seed: r.Seed}
	if r.Crash.Call != 0 {
		ref.CrashWorker, ref.CrashCall, ref.CrashBefore = r.CrashWorker, r.Crash.Call, r.Crash.Before
	}
	return ref
}

// Varied is the run of sc (the scenario as the grade explores it, after a
// Learner's learning) that v describes: its seed and crash point, v's
// faults left out, picks forced. It is not made yet. Dropping faults needs
// a kit with a FaultScript.
func Varied(k Kit, sc Scenario, v Variation) (*Run, error) {
	if len(v.Limits) > 0 {
		fs, ok := k.(FaultScript)
		if !ok {
			return nil, fmt.Errorf("faultsim: kit %s cannot limit a scenario's faults", k.Name())
		}
		splits := map[string]bool{}
		for _, f := range fs.Faults(sc) {
			splits[f.ID] = f.Splits
		}
		for _, l := range v.Limits {
			if !splits[l.ID] || l.Times < 1 {
				return nil, fmt.Errorf("faultsim: scenario %s scripts no fault %q that may be limited to %d times", sc.Plan().Name, l.ID, l.Times)
			}
		}
	}
	if len(v.Drop) > 0 {
		fs, ok := k.(FaultScript)
		if !ok {
			return nil, fmt.Errorf("faultsim: kit %s cannot switch a scenario's faults off", k.Name())
		}
		known := map[string]bool{}
		for _, f := range fs.Faults(sc) {
			known[f.ID] = true
		}
		for _, id := range v.Drop {
			if !known[id] {
				return nil, fmt.Errorf("faultsim: scenario %s scripts no fault %q", sc.Plan().Name, id)
			}
		}
		sc = fs.Without(sc, v.Drop)
	}
	if v.StopAfter < 0 {
		return nil, fmt.Errorf("faultsim: a variation stops its run after %d events", v.StopAfter)
	}
	switch v.Rest {
	case gradewire.RestSeeded, gradewire.RestFirst:
	default:
		return nil, fmt.Errorf("faultsim: a variation's other picks are %q, or %q, not %q", gradewire.RestSeeded, gradewire.RestFirst, v.Rest)
	}
	r := &Run{Seed: v.Run.Seed, Plan: sc.Plan(), Scenario: sc, Vary: &v}
	if len(v.Skip) > 0 {
		var calls []Call
		for _, c := range r.Plan.Calls {
			if !slices.Contains(v.Skip, c.Worker) {
				calls = append(calls, c)
			}
		}
		if len(calls) != len(r.Plan.Calls)-len(v.Skip) {
			return nil, fmt.Errorf("faultsim: a variation skips %v, not all of them workers of scenario %s", v.Skip, r.Plan.Name)
		}
		r.Plan.Calls = calls
		if slices.Contains(v.Skip, v.Run.CrashWorker) {
			v.NoCrash = true
		}
	}
	if v.Run.CrashWorker != "" && !v.NoCrash {
		if !slices.Contains(r.Plan.Crash, v.Run.CrashWorker) || v.Run.CrashCall < 1 {
			return nil, fmt.Errorf("faultsim: scenario %s explores no crash point %d of %q", r.Plan.Name, v.Run.CrashCall, v.Run.CrashWorker)
		}
		r.CrashWorker, r.Crash = v.Run.CrashWorker, CrashPoint{Call: v.Run.CrashCall, Before: v.Run.CrashBefore}
	}
	return r, nil
}

// holdPatience is how long, on the run's clock, a hold waits with every
// actor ready held and no other coming before it gives way.
const holdPatience = 10 * time.Minute

// schedVariation is a Variation as the scheduler applies it.
type schedVariation struct {
	run   *Run
	picks map[int]gradewire.Pick // by N
	first bool
	holds []gradewire.Hold
	gone  []bool // holds that gave way
	// stopAfter, above 0, stops the run once its trace holds that many
	// events (Variation.StopAfter).
	stopAfter int
}

func newSchedVariation(r *Run, v *Variation) *schedVariation {
	sv := &schedVariation{run: r, picks: map[int]gradewire.Pick{}, first: v.Rest == gradewire.RestFirst, holds: v.Holds, gone: make([]bool, len(v.Holds)),
		stopAfter: v.StopAfter}
	for _, p := range v.Picks {
		sv.picks[p.N] = p
	}
	return sv
}

// pick is the index among s.parked the Nth pick takes, given the seed's
// (seeded). Hold s.mu.
func (v *schedVariation) pick(s *Scheduler, seeded int) int {
	n := len(s.choices) + 1
	if pk, ok := v.picks[n]; ok {
		if pk.Actor == "" {
			return 0
		}
		if i := slices.IndexFunc(s.parked, func(p *parked) bool { return p.actor == pk.Actor }); i >= 0 {
			if j := i + pk.Nth; j < len(s.parked) && s.parked[j].actor == pk.Actor {
				return j
			}
			return i
		}
	}
	free := make([]int, 0, len(s.parked))
	for i, p := range s.parked {
		if v.held(p.actor) < 0 {
			free = append(free, i)
		}
	}
	switch {
	case len(free) == 0:
		return seeded // every one held: holding let it through
	case v.first:
		return free[0]
	case len(free) < len(s.parked):
		return free[seeded%len(free)]
	}
	return seeded
}

// holding says every actor parked is held. Hold s.mu.
func (v *schedVariation) holding(s *Scheduler) bool {
	if len(v.holds) == 0 {
		return false
	}
	for _, p := range s.parked {
		if v.held(p.actor) < 0 {
			return false
		}
	}
	return true
}

// held is the index of the hold that keeps actor waiting now, -1 if none.
func (v *schedVariation) held(actor string) int {
	for i, h := range v.holds {
		if v.gone[i] || !(actor == h.Actor || strings.HasSuffix(actor, "/"+h.Actor) || strings.HasPrefix(actor, h.Actor+"/")) {
			continue
		}
		if !v.run.callEnded(h.Until) {
			return i
		}
	}
	return -1
}

// giveWay ends the holds that keep every parked actor waiting, and says so
// in the trace. Hold s.mu; the whole run is waiting on the scheduler.
func (v *schedVariation) giveWay(s *Scheduler) {
	for _, p := range s.parked {
		if i := v.held(p.actor); i >= 0 {
			v.gone[i] = true
			h := v.holds[i]
			v.run.Trace.Add("engine", KindState, "%s stops waiting for %s's call to end: nothing else moved for %s", h.Actor, h.Until, holdPatience)
		}
	}
}

// callEnded says a call of worker has ended and none of it is running.
func (r *Run) callEnded(worker string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ended := false
	for _, iv := range r.Calls {
		if iv.Call.Worker != worker {
			continue
		}
		switch iv.Ended {
		case EndReturned, EndPanicked, EndCrashed, EndNotLoaded:
			ended = true
		default:
			if iv.Worker != nil && iv.Worker.Died != "" {
				ended = true
				continue
			}
			return false
		}
	}
	return ended
}
