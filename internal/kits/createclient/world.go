package createclient

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

// world is one run's fakes: the operation store and the vendor, with the
// record of everything sent and found that the invariants judge.
type world struct {
	run   *faultsim.Run
	sc    *Scenario
	v     VendorSpec
	start time.Time
	ops   map[string]*createapi.Operation
	order []string
	// claims: operation id -> holder and lease end.
	claims   map[string]claim
	payments []*payment
	keys     map[string]*keyEntry
	requests []*request // every create, in the order sent; earlier ones first
	searches []*search
	finishes []finish
	returns  []*callRecord
	calls    map[string]int // per call name, for call faults
	leases   []leaseAsked   // every claim asked for
	// errs counts, per operation, the calls that returned an error;
	// redeliver holds the queue's redeliveries waiting for them (Q1).
	errs      map[string]int
	redeliver map[string]func(from string)
	sent      int
	names     *namer
}

// leaseAsked is one Claim call: the lease asked for.
type leaseAsked struct {
	op, worker string
	lease, at  time.Duration
}

type claim struct {
	worker string
	until  time.Time
}

type payment struct {
	createapi.Payment
	op      string
	request int // 0: made before the run
}

// keyEntry is what the vendor remembers of an idempotency key.
type keyEntry struct {
	first    time.Time
	body     body
	inFlight bool
	saved    *answer // nil until the first request under it ends
}

// body is the part of a request that must not change under one key.
type body struct {
	Amount                int64
	Currency, Payee, Memo string
}

func bodyOf(r createapi.Request) body { return body{r.Amount, r.Currency, r.Payee, r.Memo} }

// answer is the vendor's reply to one request.
type answer struct {
	pay *payment
	err *createapi.HTTPError
}

// delivery carries an answer back to the worker that waits for it.
type delivery struct {
	ready chan struct{} // closed once a is set
	a     answer
	rule  string // the rule that decided a
}

// request is one create a worker sent (or tried to).
type request struct {
	n       int // 1, 2, ... in the run; 0 for a request made before it
	op      string
	worker  string
	at      time.Duration
	req     createapi.Request
	plan    *createapi.Plan // the operation's plan when it was sent
	fault   *FaultSpec
	outcome string // connect, answered, lost
	status  int    // the answer's status (201 for a payment)
	retry   time.Duration
	// ambiguous: sent, and no answer that says what happened reached the
	// client (lost, a 5xx, a cancelled wait).
	ambiguous  bool
	answeredAt time.Duration
	// holder is the worker whose claim on the operation was the latest
	// when the request was sent, "" if none was taken.
	holder   string
	replayed bool // the answer was an error the vendor saved under the key
}

// finish is one Finish call that changed an operation.
type finish struct {
	op, worker     string
	holder         string // the latest claim's worker then, "" if none
	at             time.Duration
	from, to       createapi.Status
	fromPay, toPay string
}

type search struct {
	op, worker, ref string
	at              time.Duration
	found           int
	failed          bool // the search index failed it: it found nothing, and proved nothing
}

// emptySearch reports whether a search for ref that answered, and found
// nothing, was made from virtual time from to virtual time to.
func (w *world) emptySearch(ref string, from, to time.Duration) bool {
	return slices.ContainsFunc(w.searches, func(s *search) bool {
		return !s.failed && s.ref == ref && s.found == 0 && s.at >= from && s.at <= to
	})
}

// recordedAt is when op was first recorded with status s, or the end of
// time if it never was.
func (w *world) recordedAt(op string, s createapi.Status) time.Duration {
	for _, f := range w.finishes {
		if f.op == op && f.to == s {
			return f.at
		}
	}
	return time.Duration(math.MaxInt64)
}

// failedSearches counts the searches for ref the index failed from
// virtual time from to virtual time to.
func (w *world) failedSearches(ref string, from, to time.Duration) int {
	n := 0
	for _, s := range w.searches {
		if s.failed && s.ref == ref && s.at >= from && s.at <= to {
			n++
		}
	}
	return n
}

// newWorld builds a run's fakes from the scenario.
func newWorld(sc *Scenario, r *faultsim.Run) *world {
	w := &world{run: r, sc: sc, v: sc.Vendor.withDefaults(), start: r.Trace.Start(), ops: map[string]*createapi.Operation{},
		claims: map[string]claim{}, keys: map[string]*keyEntry{}, names: newNamer(), calls: map[string]int{},
		errs: map[string]int{}, redeliver: map[string]func(string){}}
	for _, o := range sc.Operations {
		op := &createapi.Operation{ID: o.ID, Amount: o.Amount, Currency: o.Currency, Payee: o.Payee, Memo: o.Memo, Status: createapi.Pending}
		w.ops[o.ID], w.order = op, append(w.order, o.ID)
		e := o.Earlier
		if e == nil {
			continue
		}
		req := createapi.Request{Amount: o.Amount, Currency: o.Currency, Payee: o.Payee, Memo: o.Memo, IdempotencyKey: e.Key, Reference: e.Reference}
		if !w.v.Keys {
			req.IdempotencyKey = ""
		}
		if !w.v.References {
			req.Reference = ""
		}
		at := w.start.Add(-e.sentAgo())
		op.Plan = &createapi.Plan{Request: req, SavedAt: w.start.Add(-e.Ago)}
		what := "saved a plan and died before sending it"
		if e.Sent {
			plan := *op.Plan
			w.requests = append(w.requests, &request{op: o.ID, worker: "an earlier process", at: -e.sentAgo(), req: req, plan: &plan,
				outcome: "lost", ambiguous: true})
			what = "sent it and lost the answer; the vendor did not create it"
			if e.SentAgo > 0 {
				what = fmt.Sprintf("sent it %s ago and lost the answer; the vendor did not create it", e.SentAgo)
			}
		}
		if e.Landed {
			p := w.create(o.ID, 0, req, at)
			what = "sent it and lost the answer; the vendor created " + p.ID
			if e.SentAgo > 0 {
				what = fmt.Sprintf("sent it %s ago and lost the answer; the vendor created %s", e.SentAgo, p.ID)
			}
			if w.v.Keys {
				w.keys[req.IdempotencyKey] = &keyEntry{first: at, body: bodyOf(req), saved: &answer{pay: p}}
			}
		}
		r.Trace.Add("store", faultsim.KindState, "before the run: %s ago an earlier process planned %s (%s) and %s",
			e.Ago, o.ID, w.names.request(req), what)
	}
	return w
}

// create makes a payment at the vendor.
func (w *world) create(op string, n int, req createapi.Request, at time.Time) *payment {
	p := &payment{Payment: createapi.Payment{ID: "pay_" + strconv.Itoa(len(w.payments)+1), Amount: req.Amount, Currency: req.Currency,
		Payee: req.Payee, Memo: req.Memo, CreatedAt: at}, op: op, request: n}
	if w.v.References {
		p.Reference = req.Reference
	}
	w.payments = append(w.payments, p)
	return p
}

func (w *world) since() time.Duration { return w.run.Trace.Since() }

// fault is what the scenario scripts for request n, sent now.
func (w *world) fault(n int) *FaultSpec {
	for k := range w.sc.Faults {
		f := &w.sc.Faults[k]
		id := fmt.Sprintf("faults[%d]", k)
		if w.sc.dropped[id] {
			continue
		}
		if f.Request == n || f.Until > 0 && n > f.Request && w.since() < f.Until {
			if f.Until > 0 && !w.run.MayFire(id) {
				continue // a smaller version of the span (a minimal run's)
			}
			w.run.Fire(id)
			return f
		}
	}
	return nil
}

// When implements faultsim.Triggers: a redelivery waits for an error
// returned by a call of its operation (Q1).
func (w *world) When(c faultsim.Call, fire func() bool) {
	w.redeliver[c.When] = func(from string) {
		if fire() {
			// The queue is no lane: its hand-over is a rule across them all.
			w.run.Trace.AddStep("Q1", "queue", faultsim.KindState, faultsim.Step{Outcome: faultsim.OutcomePhase},
				"%s's call of %s returned an error: the queue hands %s to %s %s from now",
				from, c.Subject, c.Subject, c.Worker, c.At)
		}
	}
}

// errored counts an error returned by worker's call of op, and starts the
// redelivery that waits for it, if the scenario has one.
func (w *world) errored(op, worker string) {
	w.errs[op]++
	event := redeliveryEvent(op, w.errs[op])
	if f := w.redeliver[event]; f != nil {
		delete(w.redeliver, event)
		f(worker)
	}
}

// Invoke implements faultsim.World.
func (w *world) Invoke(ctx context.Context, wk *faultsim.Worker, entry any, c faultsim.Call) string {
	f := entry.(func(context.Context, createapi.Store, createapi.Vendor, string) (createapi.Status, error))
	rec := &callRecord{op: c.Subject, worker: wk.ID}
	st, err := f(ctx, &storeHandle{w, wk, rec}, &vendorHandle{w, wk, c.Subject}, c.Subject)
	// This goroutine still holds the step its last harness call took:
	// reading the store here sees what the call left.
	rec.returned, rec.failed, rec.at = st, err != nil, w.since()
	if op := w.ops[c.Subject]; op != nil {
		rec.stored = op.Status
	}
	w.returns = append(w.returns, rec)
	if err != nil {
		w.errored(c.Subject, wk.ID)
		return string(st) + ", error: " + errorText(err)
	}
	return string(st) + ", nil"
}

// errorText is the submission's error as text. Error is the submission's
// code: it runs here, on the worker's goroutine, inside the run's limits.
func errorText(err error) (s string) {
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprintf("(its Error method panicked: %v)", v)
		}
	}()
	s = err.Error()
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// EndState implements faultsim.World.
func (w *world) EndState() []string {
	var out []string
	for _, id := range w.order {
		op := w.ops[id]
		line := fmt.Sprintf("%s is %s", id, op.Status)
		if op.PaymentID != "" {
			line += " (" + op.PaymentID + ")"
		}
		if op.Note != "" {
			line += fmt.Sprintf(": %q", op.Note)
		}
		out = append(out, line)
	}
	for _, p := range w.payments {
		out = append(out, fmt.Sprintf("the vendor holds %s for %s (%d %s to %s)", p.ID, p.op, p.Amount, p.Currency, p.Payee))
	}
	if len(w.payments) == 0 {
		out = append(out, "the vendor holds no payment")
	}
	return out
}

// failing counts a call and reports whether the scenario makes it fail,
// writing the failure to the trace. Call it holding the gate.
func (w *world) failing(wk *faultsim.Worker, name string) error {
	w.calls[name]++
	for k, f := range w.sc.CallFaults {
		id := fmt.Sprintf("call_faults[%d]", k)
		if w.sc.dropped[id] {
			continue
		}
		if f.fails(name, w.calls[name], w.since()) {
			if f.Until > 0 && !w.run.MayFire(id) {
				continue // a smaller version of the outage (a minimal run's)
			}
			w.run.Fire(id)
			if name == "Search" {
				wk.Trace().AddStep("V3", wk.ID, "reply", faultsim.Step{Peer: laneVendor, Outcome: faultsim.OutcomeError, Message: "Search", Answer: "timed out"},
					"Search fails: the search index timed out (nothing was looked up)")
			} else {
				wk.Trace().AddStep("S5", wk.ID, "store", faultsim.Step{Peer: laneStore, Outcome: faultsim.OutcomeError, Message: "%s", Args: []any{name}, Answer: "timed out"},
					"%s fails: the database timed out (nothing was read or written)", name)
			}
			return fmt.Errorf("%s: timed out", strings.ToLower(name))
		}
	}
	return nil
}

// storeHandle is the store as one call sees it.
type storeHandle struct {
	w    *world
	wk   *faultsim.Worker
	call *callRecord
}

// callRecord is how one call of CreatePayment ended, against the store.
type callRecord struct {
	op, worker string
	at         time.Duration
	recorded   bool // the call recorded a status (Finish)
	// storeFailed names the store call that failed last, "" if none did
	// since the call last recorded a status; refused: a claim was refused.
	storeFailed string
	refused     bool
	returned    createapi.Status
	failed      bool // it returned an error
	stored      createapi.Status
}

func (s *storeHandle) op(id string) (*createapi.Operation, error) {
	op := s.w.ops[id]
	if op == nil {
		return nil, fmt.Errorf("%w: %q", createapi.ErrNoOperation, id)
	}
	return op, nil
}

func copyOp(op *createapi.Operation) createapi.Operation {
	c := *op
	if op.Plan != nil {
		p := *op.Plan
		c.Plan = &p
	}
	return c
}

func (s *storeHandle) Get(ctx context.Context, id string) (createapi.Operation, error) {
	s.wk.Enter("Get")
	defer s.wk.Leave()
	if err := s.w.failing(s.wk, "Get"); err != nil {
		s.call.storeFailed = "Get"
		return createapi.Operation{}, err
	}
	op, err := s.op(id)
	if err != nil {
		return createapi.Operation{}, err
	}
	plan := "no plan"
	if op.Plan != nil {
		plan = "plan " + s.w.names.request(op.Plan.Request)
	}
	s.wk.Trace().AddStep("S1", s.wk.ID, "store", faultsim.Step{Peer: laneStore, Outcome: faultsim.OutcomeOK, Message: "reads %s", Args: []any{id}, Answer: "%s, %s", AnswerArgs: []any{op.Status, plan}},
		"reads %s: %s, %s", id, op.Status, plan)
	return copyOp(op), nil
}

func (s *storeHandle) Claim(ctx context.Context, id string, lease time.Duration) (bool, error) {
	s.wk.Enter("Claim")
	defer s.wk.Leave()
	if err := s.w.failing(s.wk, "Claim"); err != nil {
		s.call.storeFailed = "Claim"
		return false, err
	}
	if _, err := s.op(id); err != nil {
		return false, err
	}
	now := time.Now()
	c, held := s.w.claims[id]
	s.w.leases = append(s.w.leases, leaseAsked{op: id, worker: s.wk.ID, lease: lease, at: s.w.since()})
	if held && c.worker != s.wk.ID && now.Before(c.until) {
		s.call.refused = true
		held := c.until.Sub(s.w.start)
		s.wk.Trace().AddStep("S2", s.wk.ID, "store", faultsim.Step{Peer: laneStore, Outcome: faultsim.OutcomeError, Message: "claims %s", Args: []any{id},
			Answer: "refused, %s holds it until t+%s", AnswerArgs: []any{c.worker, held}}, "claims %s: refused, %s holds it until t+%s", id, c.worker, held)
		return false, nil
	}
	s.w.claims[id] = claim{worker: s.wk.ID, until: now.Add(lease)}
	s.wk.Trace().AddStep("S2", s.wk.ID, "store", toStore(faultsim.OutcomeOK), "claims %s for %s", id, lease)
	return true, nil
}

func (s *storeHandle) SavePlan(ctx context.Context, id string, req createapi.Request) (createapi.Plan, error) {
	s.wk.Enter("SavePlan")
	defer s.wk.Leave()
	if err := s.w.failing(s.wk, "SavePlan"); err != nil {
		s.call.storeFailed = "SavePlan"
		return createapi.Plan{}, err
	}
	op, err := s.op(id)
	if err != nil {
		return createapi.Plan{}, err
	}
	if op.Plan != nil {
		asked, kept := s.w.names.request(req), s.w.names.request(op.Plan.Request)
		s.wk.Trace().AddStep("S3", s.wk.ID, "store", faultsim.Step{Peer: laneStore, Outcome: faultsim.OutcomeOK, Message: "saves a plan for %s", Args: []any{id},
			Answer: "kept the plan already saved"}, "saves plan %s for %s: kept the plan already saved, %s", asked, id, kept)
		return *op.Plan, nil
	}
	op.Plan = &createapi.Plan{Request: req, SavedAt: time.Now()}
	s.wk.Trace().AddStep("S3", s.wk.ID, "store", faultsim.Step{Peer: laneStore, Outcome: faultsim.OutcomeOK, Message: "saves a plan for %s", Args: []any{id}},
		"saves plan %s for %s", s.w.names.request(req), id)
	return *op.Plan, nil
}

func (s *storeHandle) Finish(ctx context.Context, id string, status createapi.Status, paymentID, note string) error {
	s.wk.Enter("Finish")
	defer s.wk.Leave()
	if err := s.w.failing(s.wk, "Finish"); err != nil {
		s.call.storeFailed = "Finish"
		return err
	}
	op, err := s.op(id)
	if err != nil {
		return err
	}
	if !slices.Contains(statuses, string(status)) {
		s.wk.Trace().AddStep("S4", s.wk.ID, "store", toStore(faultsim.OutcomeError), "refuses to record %s as %q: not a status", id, status)
		return fmt.Errorf("store: %q is not a status", status)
	}
	s.call.recorded, s.call.storeFailed = true, ""
	s.w.finishes = append(s.w.finishes, finish{op: id, worker: s.wk.ID, holder: s.w.claims[id].worker, at: s.w.since(), from: op.Status, to: status, fromPay: op.PaymentID, toPay: paymentID})
	op.Status, op.PaymentID, op.Note = status, paymentID, note
	// Plain values, so the line is made only if the trace is read.
	format, args := "records %s as %s", []any{id, status}
	if paymentID != "" {
		format, args = format+" with %s", append(args, paymentID)
	}
	if note != "" {
		format, args = format+": %q", append(args, note)
	}
	s.wk.Trace().AddStep("S4", s.wk.ID, "store", toStore(faultsim.OutcomeOK), format, args...)
	return nil
}

// vendorHandle is the vendor as one worker sees it, for the operation its
// call is about.
type vendorHandle struct {
	w  *world
	wk *faultsim.Worker
	op string
}

func (v *vendorHandle) Name() string { return v.w.v.Name }

func (v *vendorHandle) Features() createapi.Features {
	s := v.w.v
	return createapi.Features{IdempotencyKeys: s.Keys, KeyLifetime: s.KeyLifetime, ReplaysErrors: s.ReplaysErrors,
		References: s.References, SearchLag: s.SearchLag, LandsWithin: s.LandsWithin}
}

func (v *vendorHandle) Create(ctx context.Context, req createapi.Request) (createapi.Payment, error) {
	w, wk := v.w, v.wk
	wk.Enter("Create")
	defer wk.Leave()
	w.sent++
	rq := &request{n: w.sent, op: v.op, worker: wk.ID, at: w.since(), req: req, fault: w.fault(w.sent), holder: w.claims[v.op].worker}
	if p := w.ops[v.op].Plan; p != nil {
		c := *p
		rq.plan = &c
	}
	w.requests = append(w.requests, rq)
	wk.Trace().AddStep("", wk.ID, "send", faultsim.Step{Peer: laneVendor, Message: "create request %d for %s", Args: []any{rq.n, v.op}},
		"sends create request %d for %s: %s", rq.n, v.op, w.names.request(req))
	if rq.fault != nil && rq.fault.Kind == FaultConnect {
		time.Sleep(w.v.Latency)
		wk.Step()
		rq.outcome = "connect"
		wk.Trace().AddStep("V2", wk.ID, "reply", faultsim.Step{Peer: laneVendor, Outcome: faultsim.OutcomeUnsent}, "request %d: the connection fails; nothing was sent", rq.n)
		return createapi.Payment{}, &createapi.ConnectError{Reason: "connection refused"}
	}
	rq.outcome, rq.ambiguous = "lost", true
	reply := &delivery{ready: make(chan struct{})}
	wk.Gate().Go(vendorActor(rq.n), func() { w.serve(rq, reply) })
	timer := time.NewTimer(w.v.Timeout)
	defer timer.Stop()
	select {
	case <-reply.ready:
	case <-timer.C:
	case <-ctx.Done():
	}
	wk.Step()
	// Under the gate, an answer that arrived at this very instant wins:
	// whether the timer or the answer woke the worker is the runtime's
	// choice, not the seed's.
	select {
	case <-reply.ready:
		a := reply.a
		rq.answeredAt = w.since()
		rq.outcome = "answered"
		if a.err == nil {
			rq.status, rq.ambiguous = 201, false
			wk.Trace().AddStep(reply.rule, wk.ID, "reply", fromVendor(faultsim.OutcomeOK), "request %d: 201, %s", rq.n, a.pay.ID)
			return a.pay.Payment, nil
		}
		e := *a.err
		rq.status, rq.retry, rq.replayed = e.Status, e.RetryAfter, e.Replayed
		// A replayed 5xx ran nothing (V5): it says what this request
		// did, and leaves the doubt to the request whose answer it
		// repeats.
		rq.ambiguous = e.Status >= 500 && !e.Replayed
		wk.Trace().AddStep(reply.rule, wk.ID, "reply", fromVendor(faultsim.OutcomeError), "request %d: %s", rq.n, e.Error())
		return createapi.Payment{}, &e
	default:
	}
	if err := ctx.Err(); err != nil {
		wk.Trace().AddStep("", wk.ID, "reply", faultsim.Step{Outcome: faultsim.OutcomeTimeout}, "request %d: the caller stopped waiting (%v)", rq.n, err)
		return createapi.Payment{}, err
	}
	wk.Trace().AddStep("V2", wk.ID, "reply", faultsim.Step{Outcome: faultsim.OutcomeTimeout}, "request %d: no answer within %s", rq.n, w.v.Timeout)
	return createapi.Payment{}, &createapi.TimeoutError{After: w.v.Timeout}
}

// serve is the vendor's side of one request: it travels, is read under
// the rules of reception, runs if they let it, and its answer travels
// back (unless lost). Each decision is a step of the tables in rules.go,
// and the trace cites it.
func (w *world) serve(rq *request, reply *delivery) {
	gate, actor := w.run.Gate(), vendorActor(rq.n)
	tr := w.run.Trace
	f := rq.fault
	if f != nil && f.Kind == FaultTimeout && !f.Lands {
		return // lost on the way: the vendor never sees it
	}
	travel := w.v.Latency
	if f != nil && f.Kind == FaultTimeout && f.LandsAfter > 0 {
		// Held up on the way: it reaches the vendor that late (V1).
		travel = f.LandsAfter
	}
	time.Sleep(travel)
	if !gate.Pass(actor) {
		return
	}
	respond := func(a answer, rule string) {
		if f != nil && f.Kind == FaultTimeout {
			tr.AddStep("V2", laneVendor, "vendor", faultsim.Step{Peer: rq.worker, Outcome: faultsim.OutcomeLost}, "the answer to request %d is lost on the way back", rq.n)
			return
		}
		time.Sleep(w.v.Latency)
		if gate.Pass(actor) {
			reply.a, reply.rule = a, rule
			close(reply.ready)
		}
	}
	x := &exchange{w: w, rq: rq, f: f}
	if w.v.Keys && rq.req.IdempotencyKey != "" {
		x.key = rq.req.IdempotencyKey
		x.k = w.keys[x.key]
	}
	if r := decide(reception, x); r != "" {
		tr.AddRule(r, "vendor", "vendor", x.words, x.args...)
		respond(x.a, r)
		return
	}
	run := w.v.Processing
	if f != nil && f.Kind == FaultSlow {
		run = max(f.LandsAfter-w.v.Latency, 0)
	}
	time.Sleep(run)
	if !gate.Pass(actor) {
		return
	}
	r := decide(outcome, x)
	var ran faultsim.Step
	if x.a.pay != nil {
		ran.Outcome = faultsim.OutcomeEffect // a payment created: the money the scenario counts
	}
	tr.AddStep(r, laneVendor, "vendor", ran, x.words, x.args...)
	if x.k != nil {
		decide(keep, x)
	}
	respond(x.a, r)
}

func scripted(f *FaultSpec) *createapi.HTTPError {
	codes := map[int]string{400: "invalid_request", 408: "request_timeout", 409: "conflict", 422: "unprocessable",
		429: "rate_limited", 500: "internal_error", 502: "bad_gateway", 503: "unavailable"}
	return &createapi.HTTPError{Status: f.Status, Code: codes[f.Status], RetryAfter: f.RetryAfter}
}

func (v *vendorHandle) Search(ctx context.Context, reference string) ([]createapi.Payment, error) {
	w, wk := v.w, v.wk
	wk.Enter("Search")
	defer wk.Leave()
	if !w.v.References {
		wk.Trace().AddStep("V3", wk.ID, "send", faultsim.Step{Outcome: faultsim.OutcomeError}, "searches by reference: this vendor keeps none")
		return nil, createapi.ErrNoSearch
	}
	time.Sleep(2 * w.v.Latency)
	wk.Step()
	if err := w.failing(wk, "Search"); err != nil {
		w.searches = append(w.searches, &search{op: v.op, worker: wk.ID, ref: reference, at: w.since(), failed: true})
		return nil, err
	}
	var found []createapi.Payment
	for _, p := range w.payments {
		if p.Reference == reference && !time.Now().Before(p.CreatedAt.Add(w.v.SearchLag)) {
			found = append(found, p.Payment)
		}
	}
	w.searches = append(w.searches, &search{op: v.op, worker: wk.ID, ref: reference, at: w.since(), found: len(found)})
	var ids []string
	for _, p := range found {
		ids = append(ids, p.ID)
	}
	what := "nothing"
	if len(ids) > 0 {
		what = strings.Join(ids, ", ")
	}
	ref := w.names.ref(reference)
	wk.Trace().AddStep("V3", wk.ID, "reply", faultsim.Step{Peer: laneVendor, Outcome: faultsim.OutcomeOK, Message: "searches for %s", Args: []any{ref}, Answer: "finds %s", AnswerArgs: []any{what}},
		"searches for %s: finds %s", ref, what)
	return found, nil
}

// namer gives keys, references and bodies short stable names for the
// trace: a key's spelling is the submission's choice (and random), its
// identity is what matters.
type namer struct {
	keys, refs map[string]string
	bodies     map[body]string
}

func newNamer() *namer {
	return &namer{keys: map[string]string{}, refs: map[string]string{}, bodies: map[body]string{}}
}

func (n *namer) key(k string) string {
	if k == "" {
		return "no key"
	}
	if _, ok := n.keys[k]; !ok {
		n.keys[k] = "key#" + strconv.Itoa(len(n.keys)+1)
	}
	return n.keys[k]
}

func (n *namer) ref(r string) string {
	if r == "" {
		return "no reference"
	}
	if _, ok := n.refs[r]; !ok {
		n.refs[r] = "ref#" + strconv.Itoa(len(n.refs)+1)
	}
	return n.refs[r]
}

func (n *namer) body(b body) string {
	if name, ok := n.bodies[b]; ok {
		return name
	}
	name := "body#" + strconv.Itoa(len(n.bodies)+1)
	n.bodies[b] = name
	return name + " (" + strconv.FormatInt(b.Amount, 10) + " " + b.Currency + " to " + b.Payee + ", memo " + strconv.Quote(b.Memo) + ")"
}

// request names r's parts (body, key, reference) in the order fmt would
// evaluate them, so the names are given in the same order.
func (n *namer) request(r createapi.Request) string {
	b := n.body(bodyOf(r))
	k := n.key(r.IdempotencyKey)
	return b + ", " + k + ", " + n.ref(r.Reference)
}

// toStore is the step of a store call whose answer the text says.
func toStore(outcome string) faultsim.Step {
	return faultsim.Step{Peer: laneStore, Outcome: outcome}
}

// fromVendor is the step of the vendor's answer to a request.
func fromVendor(outcome string) faultsim.Step {
	return faultsim.Step{Peer: laneVendor, Back: true, Outcome: outcome}
}

// vendorActor names the vendor's actor serving request n, as
// "vendor/%03d" would.
func vendorActor(n int) string {
	d := strconv.Itoa(n)
	if len(d) < 3 {
		d = "000"[len(d):] + d
	}
	return "vendor/" + d
}
