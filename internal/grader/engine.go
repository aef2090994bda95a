package grader

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/textclip"
)

// How an invocation ended.
const (
	endReturned     = "returned"
	endPanicked     = "panicked"
	endCrashed      = "crashed"
	endDidNotReturn = "did-not-return"
	endNotLoaded    = "not-loaded"
)

// invocation is what one call of RefundMoney did in a run.
type invocation struct {
	Invocation
	phase     int
	worker    *world.Worker
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
	errText   string // err's text, read inside the run
	panicMsg  string
	loadErr   string
	// The record when the invocation returned (or panicked).
	atEnd    refundkit.Record
	hadAtEnd bool
	output   *sandbox.OutputBuffer
}

// run is one execution of a scenario: one schedule, maybe one crash point.
type run struct {
	seed     int64
	crash    world.CrashPoint
	crashFor string // the worker the crash applies to
	env      *world.Env
	invs     []*invocation
	stopped  string // why the run was cut short: stoppedTime, stoppedSteps, or ""
	deadlock string
	// leftover: goroutines stayed blocked after every call had ended (a
	// dead process's, or ones a call left behind): goroutines-end judges
	// it when no process died.
	leftover string
	internal error // the grader broke
	steps    int
	// stoppedAt is the virtual time the run ended at.
	stoppedAt time.Duration
	// learned is what the submission sends for each request id in a
	// quiet world: the key and reference of history it made itself.
	learned map[string]sentParams
}

// sentParams is the idempotency key and reference a submission sent.
type sentParams struct {
	key, reference string
}

// label names the run for the report: its seed, and its crash point.
func (r *run) label() string {
	if r.crash.Call == 0 {
		return fmt.Sprintf("seed %d", r.seed)
	}
	where := "after"
	if r.crash.Before {
		where = "before"
	}
	return fmt.Sprintf("seed %d, %s crashes %s its call %d", r.seed, r.crashFor, where, r.crash.Call)
}

// execute runs the scenario once in a new bubble.
func execute(b Bubble, sc *Scenario, prog Program, r *run) {
	defer func() {
		// synctest panics after the bubble ends when goroutines stay
		// blocked forever. Anything else is ours.
		v := recover()
		settleCrashed(r)
		if v != nil {
			msg := fmt.Sprint(v)
			switch {
			case !strings.Contains(msg, "deadlock"):
				r.internal = fmt.Errorf("grader: scenario %s (%s): %v", sc.Name, r.label(), v)
				return
			case allEnded(r):
				// Every call had returned or its process had died: what
				// stays blocked are goroutines a dead process would not
				// have (its own), or that a call left behind. Neither is
				// a call that never ends.
				r.leftover = msg
			default:
				r.deadlock = msg
			}
		}
		if obs, ok := prog.(runObserver); ok {
			for _, iv := range r.invs {
				// A worker that crashed (Goexit) or panicked unwound its
				// interpreted frames normally; one still blocked or
				// stopped mid-call when the run ended did not, so its
				// interpreter is not trusted again.
				clean := iv.ended == endReturned || iv.ended == endPanicked || iv.ended == endCrashed
				obs.Finished(iv.Worker, clean && r.deadlock == "" && r.leftover == "" && r.stopped == "")
			}
		}
	}()
	b(func() {
		sched := newScheduler(r.seed)
		env := world.NewEnv(sched, world.DefaultNetwork)
		r.env = env
		if err := seedWorld(env, sc, r.learned); err != nil {
			r.internal = err
			return
		}
		sched.Go("clock", func() { coordinate(env, sched, sc, prog, r) })
		r.stopped = sched.run(sc.budget())
		r.steps, r.stoppedAt = sched.steps, time.Since(env.Start())
	})
}

// settleCrashed marks the invocations whose process died as crashed at the
// moment it died, whichever of its goroutines met the crash and whether or
// not the invocation's own goroutine ever unwound.
func settleCrashed(r *run) {
	for _, iv := range r.invs {
		if iv.worker.Died != "" && (iv.ended == endDidNotReturn || iv.ended == endCrashed) {
			iv.ended, iv.endedAt, iv.endSeq = endCrashed, iv.worker.DiedAt, iv.worker.DiedSeq
		}
	}
}

// allEnded reports whether every invocation of the run returned, panicked
// or crashed.
func allEnded(r *run) bool {
	for _, iv := range r.invs {
		if iv.ended != endReturned && iv.ended != endPanicked && iv.ended != endCrashed && iv.ended != endNotLoaded {
			return false
		}
	}
	return true
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
					return fmt.Errorf("grader: scenario %s: %w", sc.Name, err)
				}
				env.Record("provider", world.KindState, "before the run: a request to refund %d on %s, sent %s ago, %s, reference %q (%s), is still being executed; it lands at %s",
					rf.Amount, ch.ID, world.FormatDuration(rf.Age), keyWords, ref, by, at(rf.LandsIn))
				continue
			}
			if err := env.Provider().AddRefund(ch.ID, rf.Amount, ref, key, rf.Age, rf.ForRequest); err != nil {
				return fmt.Errorf("grader: scenario %s: %w", sc.Name, err)
			}
			env.Record("provider", world.KindState, "before the run: a refund of %d on %s, %s ago, %s, reference %q (%s)",
				rf.Amount, ch.ID, world.FormatDuration(rf.Age), keyWords, ref, by)
		}
	}
	for _, f := range sc.Faults {
		env.Provider().AddFault(f)
	}
	for _, f := range sc.LookupFaults {
		env.Provider().AddLookupFault(f)
	}
	for _, p := range sc.Panics {
		env.AddPanic(p)
	}
	return nil
}

// learnSubmission finds, for each request whose history the scenario says
// the submission made (RefundSeed.BySubmission), the key and reference the
// submission sends for it: one run in a quiet world (the record pending,
// the charge without refunds, no faults, one worker). A submission that
// sends nothing there learns nothing, and the seeds' own Key and
// Reference stand.
func learnSubmission(b Bubble, sc *Scenario, prog Program, seed int64) (map[string]sentParams, error) {
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
	quiet := Scenario{Name: sc.Name + " (learning what the code sends)"}
	for _, ch := range sc.Charges {
		quiet.Charges = append(quiet.Charges, ChargeSeed{ID: ch.ID, Amount: ch.Amount})
	}
	var invs []Invocation
	for _, rec := range sc.Records {
		if need[rec.RequestID] {
			q := rec
			q.Status, q.Reason, q.Owner, q.OwnerAlive, q.LeaseLeft = refundkit.StatusPending, "", "", false, 0
			quiet.Records = append(quiet.Records, q)
			invs = append(invs, Invocation{Worker: fmt.Sprintf("worker-%d", len(invs)+1), RequestID: rec.RequestID})
		}
	}
	quiet.Phases = []Phase{{Name: "run", Invocations: invs}}
	r := &run{seed: seed}
	execute(b, &quiet, prog, r)
	if r.internal != nil {
		return nil, r.internal
	}
	learned := map[string]sentParams{}
	if r.env == nil {
		return learned, nil
	}
	for _, q := range r.env.Provider().Requests() {
		for _, iv := range invs {
			if _, done := learned[iv.RequestID]; done || iv.Worker != q.Worker {
				continue
			}
			p := sentParams{reference: q.Params.Reference}
			if !q.KeyGenerated {
				p.key = q.Key
			}
			learned[iv.RequestID] = p
		}
	}
	return learned, nil
}

// coordinate is the clock actor: it starts each phase's invocations at
// their offsets and waits for them to end before the next phase.
func coordinate(env *world.Env, sched *scheduler, sc *Scenario, prog Program, r *run) {
	for pi, ph := range sc.Phases {
		if ph.After > 0 {
			time.Sleep(ph.After)
		}
		if !sched.Pass("clock") {
			return
		}
		if len(sc.Phases) > 1 {
			env.Record("clock", world.KindState, "%s begins", ph.Name)
		}
		if ph.ResetFaults || len(ph.Faults) > 0 {
			env.Provider().ScriptFaults(ph.Faults)
			env.Record("clock", world.KindState, "from now on the provider has %s", faultScriptWords(ph.Faults))
		}
		// A triggered call starts inside another actor's step; mu orders
		// its start with coordinate's reading of ends.
		var mu sync.Mutex
		var ends []ending
		over := false
		start := func(inv Invocation) {
			crash := world.CrashPoint{}
			if inv.Worker == r.crashFor {
				crash = r.crash
			}
			iv := &invocation{Invocation: inv, phase: pi, worker: env.NewWorker(inv.Worker, crash),
				output: &sandbox.OutputBuffer{Limit: sandbox.OutputLimit / 4}}
			r.invs = append(r.invs, iv)
			end := make(chan struct{})
			seed := r.seed*1000 + int64(len(r.invs))
			release := sched.goActor(func() {
				defer close(end)
				invoke(env, prog, iv, seed)
			})
			ends = append(ends, ending{end, iv.worker.Crashed(), release})
		}
		for _, inv := range ph.Invocations {
			if inv.When == nil {
				mu.Lock()
				start(inv)
				mu.Unlock()
				continue
			}
			fire := func() {
				mu.Lock()
				defer mu.Unlock()
				if over {
					return // the phase it belongs to is over
				}
				env.Record("clock", world.KindState, "%s", triggerWords(inv))
				start(inv)
			}
			if inv.When.Status != "" {
				env.WhenStatus(inv.RequestID, inv.When.Status, fire)
			} else {
				env.WhenAnswered(inv.When.Answered, fire)
			}
		}
		// Every call that has started keeps the phase open; one that
		// starts meanwhile joins the list, so the loop waits for it too.
		for k := 0; ; k++ {
			mu.Lock()
			if k == len(ends) {
				over = true
				mu.Unlock()
				break
			}
			e := ends[k]
			mu.Unlock()
			select {
			case <-e.returned:
			case <-e.crashed:
				// The process is dead, every goroutine of it: the run
				// stops waiting for the call, whose goroutine may be
				// blocked where no crash can reach it.
				e.release()
			}
		}
	}
}

// triggerWords says in the trace why a triggered call starts now.
func triggerWords(inv Invocation) string {
	why := fmt.Sprintf("%s has just been written %s", inv.RequestID, inv.When.Status)
	if inv.When.Answered != "" {
		why = "a request of " + inv.When.Answered + " has just got its answer"
	}
	if inv.At > 0 {
		return fmt.Sprintf("%s: %s calls RefundMoney(%s) %s from now", why, inv.Worker, inv.RequestID, world.FormatDuration(inv.At))
	}
	return fmt.Sprintf("%s: %s calls RefundMoney(%s) now", why, inv.Worker, inv.RequestID)
}

// ending is how coordinate learns that an invocation is over.
type ending struct {
	returned <-chan struct{}
	crashed  <-chan struct{}
	release  func()
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

// invoke is one worker's process: load the submission, call RefundMoney,
// note how it ended.
func invoke(env *world.Env, prog Program, iv *invocation, seed int64) {
	w := iv.worker
	if iv.At > 0 {
		time.Sleep(iv.At)
	}
	entry, err := prog.Load(w, seed, iv.output)
	if err != nil {
		iv.ended, iv.loadErr = endNotLoaded, err.Error()
		return
	}
	iv.ended = endDidNotReturn
	defer func() {
		// A Goexit (the run is over, or the worker's process died, which
		// settleCrashed records) runs this with nothing to recover.
		if iv.ended == endDidNotReturn && w.Died == "" {
			iv.endedAt = time.Since(env.Start())
		}
	}()
	w.Pass()
	iv.startedAt = time.Since(env.Start())
	ctx, stop := callerContext(env, iv)
	defer stop()
	outcome, callErr, panicMsg, panicked := callEntry(ctx, entry, iv.RequestID)
	stop()
	// The error's text is the submission's code (its Error method): read
	// it here, inside the run, on the worker's own goroutine, where a
	// method that never returns is a call that never ends, caught by the
	// run's limits, and never later while the report is built.
	iv.errText = errorText(callErr)
	// The record as the call left it, before any other actor takes a
	// step: this goroutine still holds the step its last call began.
	iv.atEnd, iv.hadAtEnd = env.Store().Lookup(iv.RequestID)
	iv.endedAt, iv.endSeq = time.Since(env.Start()), env.TraceLen()
	w.Pass()
	if panicked {
		iv.ended, iv.panicMsg = endPanicked, panicMsg
		env.Record(w.ID, world.KindReply, "RefundMoney(%s) panics: %s", iv.RequestID, panicMsg)
	} else {
		iv.ended, iv.outcome, iv.err = endReturned, outcome, callErr
		if callErr != nil {
			env.Record(w.ID, world.KindReply, "RefundMoney(%s) returns %q, error: %s", iv.RequestID, outcome, iv.errText)
		} else {
			env.Record(w.ID, world.KindReply, "RefundMoney(%s) returns %q", iv.RequestID, outcome)
		}
	}
}

// callerContext is the context the invocation's caller passes: one that
// ends when the scenario says the caller stops waiting (a cancel or a
// deadline), marked in the trace. It writes the call's first trace line,
// so call it holding the gate. stop says the call is over: a cancel due
// later is not made.
func callerContext(env *world.Env, iv *invocation) (context.Context, func()) {
	w := iv.worker
	ctx := world.WithWorker(context.Background(), w)
	ends, how := iv.contextEnds()
	if ends <= 0 {
		env.Record(w.ID, world.KindCall, "RefundMoney(%s) starts", iv.RequestID)
		return ctx, func() {}
	}
	iv.ctxEndsAt, iv.ctxEnds = iv.startedAt+ends, how
	var cancel context.CancelFunc
	if how == "cancelled" {
		ctx, cancel = context.WithCancel(ctx)
		env.Record(w.ID, world.KindCall, "RefundMoney(%s) starts; its caller will stop waiting and cancel the context at %s", iv.RequestID, at(iv.ctxEndsAt))
	} else {
		ctx, cancel = context.WithTimeout(ctx, ends)
		env.Record(w.ID, world.KindCall, "RefundMoney(%s) starts, with a context deadline at %s", iv.RequestID, at(iv.ctxEndsAt))
	}
	done := make(chan struct{})
	var once sync.Once
	actor := "caller/" + w.ID
	env.Gate().Go(actor, func() {
		t := time.NewTimer(ends)
		select {
		case <-done:
			t.Stop()
			return
		case <-t.C:
		}
		if !env.Gate().Pass(actor) {
			return
		}
		select {
		case <-done:
			return // the call returned at this very instant
		default:
		}
		if how != "cancelled" {
			// The context ends by itself; cancelling it here could
			// beat its own timer and end it as cancelled instead.
			if !w.Dead() {
				env.Record(actor, world.KindState, "the context of %s's call passes its deadline", w.ID)
			}
			return
		}
		if !w.Dead() {
			env.Record(actor, world.KindState, "the caller of %s stops waiting: it cancels the context", w.ID)
		}
		cancel()
	})
	// Once the call is over its caller cancels the context, as a caller's
	// deferred cancel does.
	return ctx, func() {
		once.Do(func() {
			close(done)
			cancel()
		})
	}
}

func callEntry(ctx context.Context, entry Entry, id string) (outcome refundkit.Outcome, err error, panicMsg string, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			panicked = true
			panicMsg = fmt.Sprint(v)
			if strings.Contains(panicMsg, "on zero Value") {
				// How yaegi reports using a nil pointer to a host type: say
				// what the compiled program's runtime says.
				panicMsg = "runtime error: invalid memory address or nil pointer dereference"
			}
			if strings.Contains(panicMsg, "nil pointer") {
				panicMsg = "nil pointer dereference (" + panicMsg + ")"
			}
			panicMsg = textclip.Bytes(panicMsg, 300, "...")
		}
	}()
	outcome, err = entry(ctx, id)
	return outcome, err, "", false
}

// errorText is an error for the report, capped. It runs the error's
// Error method: call it only inside the run (see invoke).
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
