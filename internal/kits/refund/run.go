package refund

import (
	"fmt"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// How an invocation ended (the engine's words).
const (
	endReturned     = faultsim.EndReturned
	endPanicked     = faultsim.EndPanicked
	endCrashed      = faultsim.EndCrashed
	endDidNotReturn = faultsim.EndDidNotReturn
	endNotLoaded    = faultsim.EndNotLoaded
)

// Why a run was cut short, in the invariants' words.
const (
	stoppedTime       = "time"
	stoppedSteps      = "steps"       // maxStepsAtInstant at one virtual instant
	stoppedTotalSteps = "total-steps" // maxSteps in all
	stoppedCut        = "cut"         // cut after its first events (a minimal run's prefix)
)

// The engine's step limits (faultsim's scheduler), as the evidence names
// them.
const (
	maxStepsAtInstant = 5000
	maxSteps          = 50000
)

// invocation is what one call of RefundMoney did in a run, as the
// invariants read it: the engine's Invocation with what the world kept.
type invocation struct {
	Invocation
	phase     int
	worker    *faultsim.Worker
	ended     string
	startedAt time.Duration
	endedAt   time.Duration
	// endSeq is the length of the trace when the call returned, panicked
	// or its process died: it orders ends that share a virtual instant.
	endSeq int
	// ctxEndsAt is when the call's context ends (since the run started),
	// ctxEnds how ("cancelled", "past its deadline"); "" when it never does.
	ctxEndsAt time.Duration
	ctxEnds   string
	outcome   refundkit.Outcome
	err       error
	errText   string
	panicMsg  string
	loadErr   string
	// The record when the invocation returned (or panicked).
	atEnd    refundkit.Record
	hadAtEnd bool
	output   *faultsim.OutputBuffer
}

// run is one finished run as the invariants read it.
type run struct {
	seed     int64
	crash    faultsim.CrashPoint
	crashFor string
	env      *world.Env
	invs     []*invocation
	stopped  string
	deadlock string
	// leftover: goroutines stayed blocked after every call had ended (a
	// dead process's, or ones a call left behind): goroutines-end judges
	// it when no process died.
	leftover  string
	stoppedAt time.Duration
	byID      map[string]*runFacts
	ids       []string // requestIDs' answer, made on first use
}

// adapt is the engine's run as the invariants read it, made once per run;
// nil for a run whose world was never made.
func adapt(fr *faultsim.Run) (*run, *Scenario) {
	w, ok := fr.World.(*runWorld)
	if !ok {
		return nil, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if r := w.adapted[fr]; r != nil {
		return r, w.sc
	}
	r := &run{seed: fr.Seed, crash: fr.Crash, crashFor: fr.CrashWorker, env: w.env, deadlock: fr.Deadlock, leftover: fr.Leftover,
		stoppedAt: fr.EndedAt, byID: map[string]*runFacts{}}
	switch fr.Stopped {
	case faultsim.StopTime:
		r.stopped = stoppedTime
	case faultsim.StopSpin:
		r.stopped = stoppedSteps
	case faultsim.StopSteps:
		r.stopped = stoppedTotalSteps
	case faultsim.StopCut:
		r.stopped = stoppedCut
	}
	for _, fi := range fr.Calls {
		inv, phase := w.sc.invocation(fi.Call.Worker)
		iv := &invocation{Invocation: inv, phase: phase, worker: fi.Worker, ended: fi.Ended, startedAt: fi.StartedAt, endedAt: fi.EndedAt,
			endSeq: fi.EndSeq, ctxEndsAt: fi.ContextEndsAt, ctxEnds: fi.ContextEnds, panicMsg: fi.Panic, loadErr: fi.LoadError,
			output: fi.Output()}
		if e := w.ends[fi.Worker]; e != nil {
			iv.atEnd, iv.hadAtEnd = e.atEnd, e.hadAtEnd
			if fi.Ended == endReturned {
				iv.outcome, iv.err, iv.errText = e.outcome, e.err, e.errText
			}
		}
		r.invs = append(r.invs, iv)
	}
	if w.adapted == nil {
		w.adapted = map[*faultsim.Run]*run{}
	}
	w.adapted[fr] = r
	return r, w.sc
}

// facts gathers what the invariants look at for request id, once.
func (r *run) facts(sc *Scenario, id string) *runFacts {
	f := r.byID[id]
	if f == nil {
		f = gather(sc, r, id)
		r.byID[id] = f
	}
	return f
}

// sentParams is the idempotency key and reference a submission sent.
type sentParams struct {
	key, reference string
}

// seedWorld puts the scenario's initial state into the fakes. A refund an
// earlier run of the submission made carries what the submission sends
// (learned), so the world's history is spelled as the code under test
// spells it.
func seedWorld(env *world.Env, sc *Scenario, learned map[string]sentParams) error {
	start := env.Start()
	for _, rec := range sc.Records {
		r := refundkit.Record{RequestID: rec.RequestID, ChargeID: rec.ChargeID, Amount: rec.Amount, Currency: rec.Currency,
			Status: rec.Status, Owner: rec.Owner, Reason: rec.Reason, UpdatedAt: start}
		if rec.LeaseLeft != 0 {
			r.LeaseUntil = start.Add(rec.LeaseLeft)
		}
		env.Store().Put(r)
	}
	for _, ch := range sc.Charges {
		env.Provider().AddCharge(ch.ID, ch.Amount)
		for _, rf := range ch.Refunds {
			key, ref, by := rf.Key, rf.Reference, "made outside this code"
			if rf.BySubmission {
				by = "an earlier run of this code"
				if p, ok := learned[rf.ForRequest]; ok {
					key = p.key
					if !rf.KeyOnly {
						ref = p.reference
					}
				}
			}
			keyWords := "no key kept"
			if key != "" {
				keyWords = "key " + key
			}
			if rf.LandsIn > 0 {
				if err := env.Provider().AddInFlight(ch.ID, rf.Amount, ref, key, rf.Age, rf.LandsIn, rf.ForRequest); err != nil {
					return fmt.Errorf("refund: scenario %s: %w", sc.Name, err)
				}
				env.Record("provider", world.KindState, "before the run: a request to refund %d on %s, sent %s ago, %s, reference %q (%s), is still being executed; it lands at %s",
					rf.Amount, ch.ID, world.FormatDuration(rf.Age), keyWords, ref, by, at(rf.LandsIn))
				continue
			}
			if err := env.Provider().AddRefund(ch.ID, rf.Amount, ref, key, rf.Age, rf.ForRequest); err != nil {
				return fmt.Errorf("refund: scenario %s: %w", sc.Name, err)
			}
			env.Record("provider", world.KindState, "before the run: a refund of %d on %s, %s ago, %s, reference %q (%s)",
				rf.Amount, ch.ID, world.FormatDuration(rf.Age), keyWords, ref, by)
		}
	}
	for _, f := range sc.scripted("faults", sc.Faults) {
		env.Provider().AddFault(f)
	}
	for _, f := range sc.scripted("lookup_faults", sc.LookupFaults) {
		env.Provider().AddLookupFault(f)
	}
	for _, p := range sc.scriptedPanics() {
		env.AddPanic(p)
	}
	return nil
}

// learnSubmission finds, for each request whose history the scenario says
// the submission made (RefundSeed.BySubmission), the key and reference the
// submission sends for it: one run in a quiet world (the record pending,
// the charge without refunds, no faults, one worker per request). A
// submission that sends nothing there learns nothing, and the seeds' own
// Key and Reference stand.
func learnSubmission(sc *Scenario, quiet func(faultsim.Scenario) (*faultsim.Run, error)) (map[string]sentParams, error) {
	need := map[string]bool{}
	for _, ch := range sc.Charges {
		for _, rf := range ch.Refunds {
			if rf.BySubmission {
				need[rf.ForRequest] = true
			}
		}
	}
	if len(need) == 0 {
		return nil, nil
	}
	q := &Scenario{Name: sc.Name + " (learning what the code sends)"}
	for _, ch := range sc.Charges {
		q.Charges = append(q.Charges, ChargeSeed{ID: ch.ID, Amount: ch.Amount})
	}
	var invs []Invocation
	for _, rec := range sc.Records {
		if need[rec.RequestID] {
			qr := rec
			qr.Status, qr.Reason, qr.Owner, qr.OwnerAlive, qr.LeaseLeft = refundkit.StatusPending, "", "", false, 0
			q.Records = append(q.Records, qr)
			invs = append(invs, Invocation{Worker: fmt.Sprintf("worker-%d", len(invs)+1), RequestID: rec.RequestID})
		}
	}
	q.Phases = []Phase{{Name: "run", Invocations: invs}}
	r, err := quiet(q)
	if err != nil {
		return nil, err
	}
	learned := map[string]sentParams{}
	w, ok := r.World.(*runWorld)
	if !ok {
		return learned, nil
	}
	for _, req := range w.env.Provider().Requests() {
		for _, iv := range invs {
			if _, done := learned[iv.RequestID]; done || iv.Worker != req.Worker {
				continue
			}
			p := sentParams{reference: req.Params.Reference}
			if !req.KeyGenerated {
				p.key = req.Key
			}
			learned[iv.RequestID] = p
		}
	}
	return learned, nil
}
