package world

import (
	"context"
	"fmt"
	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"strconv"
	"strings"
	"time"
)

// MaxKeyLength is the longest idempotency key the provider accepts, as
// Stripe's API v1 documents it.
const MaxKeyLength = 255

// Fault kinds a scenario scripts for a provider request.
const (
	FaultConnection    = "connection-error"    // the request never leaves the client
	FaultLostRequest   = "timeout-before-send" // lost on the way: the provider never sees it, the caller times out
	FaultLostReply     = "lost-reply"          // the provider handles it, the reply is dropped, the caller times out
	FaultHTTPError     = "http-error"          // the provider answers with an HTTP error
	FaultSlow          = "slow"                // processing outlasts the client's wait, then Then happens
	faultNone          = ""
	defaultConnFailure = "connection refused"
)

// Fault is the scripted behaviour of one provider request. Request is the
// 1-based ordinal of CreateRefund requests in the run (all workers
// together); 0 applies to every request no other fault names.
type Fault struct {
	Request    int           `yaml:"request,omitempty" json:"request,omitempty"`
	Kind       string        `yaml:"kind" json:"kind"`
	Status     int           `yaml:"status,omitempty" json:"status,omitempty"`
	Type       string        `yaml:"type,omitempty" json:"type,omitempty"`
	Code       string        `yaml:"code,omitempty" json:"code,omitempty"`
	Message    string        `yaml:"message,omitempty" json:"message,omitempty"`
	RetryAfter time.Duration `yaml:"retry_after,omitempty" json:"retry_after,omitempty"`
	Processing time.Duration `yaml:"processing,omitempty" json:"processing,omitempty"` // slow: how long the provider works
	Then       *Fault        `yaml:"then,omitempty" json:"then,omitempty"`             // slow: the final outcome (nil: success)
	// BeforeKeys is refused by Validate: which layer answers is the
	// rules' to say (429 and 401 in front of the idempotency layer, all
	// else behind it). The field is kept so a file that sets it gets that
	// reason rather than "unknown field".
	BeforeKeys bool `yaml:"before_keys,omitempty" json:"before_keys,omitempty"`
	// Unmet says why a correct solution may never meet the fault
	// (faultsim.FaultRef.Unmet): the provider does not read it.
	Unmet string `yaml:"unmet,omitempty" json:"unmet,omitempty"`
	// Ref names the fault in its scenario for the engine (Env.OnFault),
	// where the kit scripts it; "" for none.
	Ref string `yaml:"-" json:"-"`
}

// Describe says in plain words what the fault does.
func (f Fault) Describe() string {
	switch f.Kind {
	case FaultConnection:
		return "connection error (never sent)"
	case FaultLostRequest:
		return "lost before it reached the provider"
	case FaultLostReply:
		return "handled, but the reply is lost"
	case FaultHTTPError:
		s := fmt.Sprintf("answered %d %s", f.Status, f.Type)
		if f.Code != "" {
			s += " (" + f.Code + ")"
		}
		if f.RetryAfter > 0 {
			s += ", Retry-After " + FormatDuration(f.RetryAfter)
		}
		return s
	case FaultSlow:
		s := "processed for " + FormatDuration(f.Processing)
		if f.Then != nil {
			s += ", then " + f.Then.Describe()
		} else {
			s += ", then succeeds"
		}
		return s
	}
	return "no fault"
}

// Validate reports a fault that cannot be run, or that would need an
// answer the page's rules exclude (see Rules): a scenario scripts the
// network, the provider's load and its failures, never an answer the
// idempotency layer or the charge's ledger decides.
func (f Fault) Validate() error {
	if f.BeforeKeys {
		return fmt.Errorf("refundkit: before_keys scripts an answer the rules exclude: only the rate limiter (429, rule P13) and authentication (401, rule P3) answer in front of the idempotency layer, and they always do; any other answer comes after the key is looked up, so a request under a key still running gets 409 (rule P7) and one under a key with a saved answer gets that answer (rule P2)")
	}
	if f.RetryAfter != 0 && !(f.Kind == FaultHTTPError && f.Status == 429) {
		return fmt.Errorf("refundkit: retry_after comes only with a 429 (rule P13), not with %s", f.Describe())
	}
	switch f.Kind {
	case FaultConnection, FaultLostRequest, FaultLostReply:
	case FaultHTTPError:
		if err := scriptedStatus(f, false); err != nil {
			return err
		}
	case FaultSlow:
		if f.Processing <= 0 {
			return fmt.Errorf("refundkit: fault %q needs a processing time", f.Kind)
		}
		if f.Processing > MaxProcessing {
			return fmt.Errorf("refundkit: a slow request takes at most %s at the provider (rule P14), not %s", FormatDuration(MaxProcessing), FormatDuration(f.Processing))
		}
		if f.Then != nil && f.Then.Kind != FaultHTTPError {
			return fmt.Errorf("refundkit: a slow request can only end in success or an http-error, not %q", f.Then.Kind)
		}
		if f.Then != nil {
			if err := f.Then.Validate(); err != nil {
				return err
			}
			return scriptedStatus(*f.Then, true)
		}
	default:
		return fmt.Errorf("refundkit: unknown fault kind %q (want %s)", f.Kind,
			strings.Join([]string{FaultConnection, FaultLostRequest, FaultLostReply, FaultHTTPError, FaultSlow}, ", "))
	}
	return nil
}

// scriptedStatus reports an http-error a scenario may not script: the
// rules give a scenario 429 (P13), 401 and a validation 400 (P3) before
// execution and a 5xx during it (P14); every other status is decided by
// the key or the charge (409 by P7, idempotency_error by P6, 404 by P12,
// charge_already_refunded by P10, an amount too large by P11).
func scriptedStatus(f Fault, executing bool) error {
	switch {
	case f.Status < 400 || f.Status > 599:
		return fmt.Errorf("refundkit: fault %q needs an HTTP error status (400-599), got %d", f.Kind, f.Status)
	case f.Status >= 500:
		return nil
	case executing:
		return fmt.Errorf("refundkit: a slow request has started executing, so it can only end in success or a 5xx (rule P14); a %d is answered before execution", f.Status)
	case f.Status == 409:
		return fmt.Errorf("refundkit: a 409 is the provider's answer to a key still in use (rule P7), not a fault to script: script a slow request and a second one under its key")
	case f.Status == 404:
		return fmt.Errorf("refundkit: a 404 comes from an unknown charge (rule P12): name a charge the provider does not hold instead of scripting it")
	case f.Type == "idempotency_error":
		return fmt.Errorf("refundkit: idempotency_error is the provider's answer to a key reused with other parameters (rule P6), not a fault to script")
	case f.Code == "charge_already_refunded" || f.Code == "idempotency_key_in_use" || f.Code == "resource_missing":
		return fmt.Errorf("refundkit: code %s is decided by the charge and the key (rules P10, P7, P12), not scripted", f.Code)
	case f.Status == 400, f.Status == 401, f.Status == 429:
		return nil
	}
	return fmt.Errorf("refundkit: no rule of the page answers %d: script a 400 (validation, rule P3), 401 (rule P3), 429 (rule P13) or a 5xx (rule P14)", f.Status)
}

// Applied is a refund in the provider's ledger.
type Applied struct {
	Refund      refundkit.ProviderRefund
	Key         string
	Worker      string // "" for a refund made before the run
	Request     int    // ordinal of the request that made it; 0 before the run
	Preexisting bool
	// ForRequest is, for a refund made before the run, the refund request
	// it was made for ("" when it belongs to none of the run's requests).
	ForRequest string
}

// Request is one CreateRefund request as the provider's log keeps it.
type Request struct {
	N            int
	Worker       string
	Params       refundkit.RefundParams
	Key          string // the key used, the generated one when Params had none
	KeyGenerated bool
	Fault        string        // plain words, "" when none
	SentAt       time.Duration // since the run started
	// Deadline is the deadline of the context it was sent with, since the
	// run started; 0 when that context had none.
	Deadline time.Duration
	Seq      int  // its place in the run's order of steps (see Change.Seq)
	Seen     bool // it reached the provider
	Applied  bool
	RefundID string
	Replayed bool
	Answer   string // what the provider answered, "" if it never saw it
	// Rule is the id of the page's rule (see Rules) behind what the
	// caller got: the provider's answer, or the client's error.
	Rule      string
	Delivered bool // the caller got the provider's answer
	// What the caller got, and when.
	Result     string // "ok", "connection", "timeout", "api"
	APIErr     *refundkit.APIError
	AnsweredAt time.Duration
}

// Lookup is one ListRefunds call.
type Lookup struct {
	Worker string
	SentAt time.Duration // since the run started
	At     time.Duration // when the answer (or the error) came back
	Charge string
	// Failed: the caller got an error, not a list (References is empty).
	Failed     bool
	References []string
	RefundIDs  []string
}

type charge struct {
	id       string
	amount   int64
	refunded int64
	refunds  []refundkit.ProviderRefund
}

type keyEntry struct {
	params   refundkit.RefundParams
	created  time.Time
	inFlight bool
	refund   *refundkit.ProviderRefund
	err      *refundkit.APIError
}

// Provider is the fake payment provider: charges, refunds, an idempotency
// layer as Stripe's API v1 documents it, and a network with scripted faults.
type Provider struct {
	env     *Env
	charges map[string]*charge
	keys    map[string]*keyEntry
	faults  []Fault
	// lookupFaults script ListRefunds calls, by their ordinal in the run
	// (Fault.Request; 0 for every call no other fault names): a
	// connection error, an http-error, or a slow answer (Processing).
	lookupFaults []Fault
	lookupN      int
	ledger       []Applied
	requests     []*Request
	lookups      []Lookup
	refundN      int
	keyN         int
	// faultBase is how many requests were made before the current fault
	// script began: its ordinals count from there.
	faultBase int
}

// AddCharge creates a charge before the run.
func (p *Provider) AddCharge(id string, amount int64) {
	p.charges[id] = &charge{id: id, amount: amount}
}

// AddRefund records a refund made before the run, age ago, under key
// (empty: none kept), for the refund request forRequest ("" for none). It
// fails when the charge does not exist or has too little left.
func (p *Provider) AddRefund(chargeID string, amount int64, reference, key string, age time.Duration, forRequest string) error {
	ch := p.charges[chargeID]
	if ch == nil {
		return fmt.Errorf("refundkit: refund before the run names unknown charge %q", chargeID)
	}
	if amount <= 0 || amount > ch.amount-ch.refunded {
		return fmt.Errorf("refundkit: refund before the run of %d on %s exceeds what is left (%d)", amount, chargeID, ch.amount-ch.refunded)
	}
	created := p.env.start.Add(-age)
	r := p.apply(ch, amount, reference, created)
	p.ledger = append(p.ledger, Applied{Refund: r, Key: key, Preexisting: true, ForRequest: forRequest})
	if key != "" {
		rc := r
		p.keys[key] = &keyEntry{params: refundkit.RefundParams{Charge: chargeID, Amount: amount, IdempotencyKey: key, Reference: reference}, created: created, refund: &rc}
	}
	return nil
}

// AddInFlight records a refund request sent before the run, age ago, under
// key, that the provider is still executing: it lands landsIn into the
// run (a dead worker's slow request, for one). Until then its key is in
// flight (a request under it gets 409); from then on it holds the refund.
func (p *Provider) AddInFlight(chargeID string, amount int64, reference, key string, age, landsIn time.Duration, forRequest string) error {
	ch := p.charges[chargeID]
	if ch == nil {
		return fmt.Errorf("refundkit: a request in flight before the run names unknown charge %q", chargeID)
	}
	if amount <= 0 || amount > ch.amount-ch.refunded || landsIn <= 0 {
		return fmt.Errorf("refundkit: a request in flight of %d on %s must fit what is left (%d) and land after the run starts", amount, chargeID, ch.amount-ch.refunded)
	}
	params := refundkit.RefundParams{Charge: chargeID, Amount: amount, IdempotencyKey: key, Reference: reference}
	var k *keyEntry
	if key != "" {
		k = &keyEntry{params: params, created: p.env.start.Add(-age), inFlight: true}
		p.keys[key] = k
	}
	p.env.gate.Go("provider/in-flight", func() {
		time.Sleep(landsIn)
		if !p.env.gate.Pass("provider/in-flight") {
			return
		}
		// It ends as any request's execution does: the completion table
		// decides, whether the answer is saved under its key included.
		d := &decision{p: p, req: &Request{Key: key, Params: params}, params: params, now: time.Now()}
		r, v := d.run(completion)
		if r.refund != nil {
			a := &p.ledger[len(p.ledger)-1]
			a.Preexisting, a.ForRequest = true, forRequest
		}
		if k != nil && v == saved {
			k.inFlight = false
			k.refund, k.err = r.refund, r.err
		}
	})
	return nil
}

// AddFault scripts a fault.
func (p *Provider) AddFault(f Fault) { p.faults = append(p.faults, f) }

// AddLookupFault scripts a fault of ListRefunds calls.
func (p *Provider) AddLookupFault(f Fault) { p.lookupFaults = append(p.lookupFaults, f) }

// ValidateLookupFault reports a look-up fault that cannot be run, or
// that the rules exclude: a look-up fails with a connection error, a
// timeout or a 5xx (rule P15); a 404 comes only from an unknown charge
// (rule P12).
func ValidateLookupFault(f Fault) error {
	if f.BeforeKeys || f.RetryAfter != 0 {
		return fmt.Errorf("refundkit: a look-up fault takes no before_keys or retry_after: reads ignore keys (rule P1)")
	}
	switch f.Kind {
	case FaultConnection:
	case FaultHTTPError:
		if f.Status < 500 || f.Status > 599 {
			return fmt.Errorf("refundkit: a look-up fails with a 5xx (rule P15), not %d", f.Status)
		}
	case FaultSlow:
		if f.Processing <= 0 || f.Then != nil {
			return fmt.Errorf("refundkit: a slow look-up needs a processing time and no then")
		}
		if f.Processing > MaxProcessing {
			return fmt.Errorf("refundkit: a slow look-up takes at most %s (rule P14), not %s", FormatDuration(MaxProcessing), FormatDuration(f.Processing))
		}
	default:
		return fmt.Errorf("refundkit: look-up fault kind %q (want %s, %s or %s)", f.Kind, FaultConnection, FaultHTTPError, FaultSlow)
	}
	return nil
}

// ScriptFaults replaces the fault script from the next request on, its
// ordinals counting from there (request 1 is the next request): a later
// phase of a scenario meets a provider that behaves differently, e.g. an
// outage that has ended. No faults means every request behaves.
func (p *Provider) ScriptFaults(faults []Fault) {
	p.faults = append([]Fault(nil), faults...)
	p.faultBase = len(p.requests)
}

// Ledger returns every applied refund, oldest first.
func (p *Provider) Ledger() []Applied { return append([]Applied(nil), p.ledger...) }

// Requests returns the request log.
func (p *Provider) Requests() []Request {
	out := make([]Request, len(p.requests))
	for i, r := range p.requests {
		out[i] = *r
	}
	return out
}

// Lookups returns the ListRefunds log.
func (p *Provider) Lookups() []Lookup { return append([]Lookup(nil), p.lookups...) }

func (p *Provider) faultFor(n int) Fault {
	n -= p.faultBase
	var every Fault
	for _, f := range p.faults {
		if f.Request == n {
			return f
		}
		if f.Request == 0 {
			every = f
		}
	}
	if !p.env.may(every.Ref) {
		// A smaller version of the outage (a minimal run's): it has hit
		// as many requests as it may.
		return Fault{}
	}
	return every
}

func (p *Provider) apply(ch *charge, amount int64, reference string, at time.Time) refundkit.ProviderRefund {
	p.refundN++
	r := refundkit.ProviderRefund{ID: "re_" + strconv.Itoa(p.refundN), Charge: ch.id, Amount: amount, Reference: reference, Status: "succeeded", Created: at}
	ch.refunded += amount
	ch.refunds = append(ch.refunds, r)
	return r
}

type reply struct {
	refund *refundkit.ProviderRefund
	err    *refundkit.APIError
	rule   string // the rule of the page that gave this answer
}

func (r reply) String() string {
	if r.err != nil {
		return describeAPIError(r.err)
	}
	s := "200 refund " + r.refund.ID + " of " + strconv.FormatInt(r.refund.Amount, 10)
	if r.refund.Replayed {
		s += " [replayed]"
	}
	return s
}

func describeAPIError(e *refundkit.APIError) string {
	s := strconv.Itoa(e.Status) + " " + e.Type
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	if e.Param != "" {
		s += " param " + e.Param
	}
	if e.RetryAfter > 0 {
		s += ", Retry-After " + FormatDuration(e.RetryAfter)
	}
	if e.Replayed {
		s += " [replayed]"
	}
	return s
}

func (p *Provider) createRefund(ctx context.Context, w *Worker, params refundkit.RefundParams) (*refundkit.ProviderRefund, error) {
	e := p.env
	now := time.Now()
	req := &Request{N: len(p.requests) + 1, Worker: w.ID, Params: params, Key: params.IdempotencyKey, SentAt: now.Sub(e.start)}
	if req.Key == "" {
		// What Stripe's clients do: a fresh key per call.
		p.keyN++
		req.Key = strconv.FormatInt(now.UnixNano(), 10) + "_" + strconv.Itoa(p.keyN)
		req.KeyGenerated = true
	}
	if dl, ok := ctx.Deadline(); ok {
		req.Deadline = dl.Sub(e.start)
	}
	p.requests = append(p.requests, req)
	f := p.faultFor(req.N)
	if f.Kind != faultNone {
		req.Fault = f.Describe()
	}
	keyText, keyLabel := "key "+req.Key, "key "+req.Key
	if req.KeyGenerated {
		keyText, keyLabel = "no key (the client made "+req.Key+")", "no key"
	}
	ref := ""
	if params.Reference != "" {
		ref = ", reference " + params.Reference
	}
	// The arrow keeps what tells two requests apart, the number and the
	// key; the text keeps the rest.
	e.RecordStep("", w.ID, KindCall, faultsim.Step{Peer: LaneProvider, Message: "CreateRefund #%d, %s", Args: []any{req.N, keyLabel}},
		"CreateRefund #%d(charge %s, amount %d, %s%s)", req.N, params.Charge, params.Amount, keyText, ref)
	req.Seq = e.TraceLen()

	if err := ctx.Err(); err != nil {
		req.Result, req.AnsweredAt, req.Rule = "connection", req.SentAt, "N3"
		e.RecordStep(req.Rule, w.ID, KindReply, neverSent, "CreateRefund #%d -> ConnectionError: %v (never sent)", req.N, err)
		return nil, &refundkit.ConnectionError{Cause: err.Error()}
	}
	e.fired(f.Ref)
	wait := e.net.ClientTimeout
	cause := "read timeout"
	if dl, ok := ctx.Deadline(); ok && dl.Sub(now) < wait {
		wait, cause = dl.Sub(now), "context deadline exceeded"
	}
	deadline := now.Add(wait)
	sent := params
	sent.IdempotencyKey = req.Key

	switch f.Kind {
	case FaultConnection:
		req.Result, req.AnsweredAt, req.Rule = "connection", req.SentAt, "N1"
		e.RecordStep(req.Rule, w.ID, KindReply, neverSent, "CreateRefund #%d -> ConnectionError: %s (never sent)", req.N, defaultConnFailure)
		return nil, &refundkit.ConnectionError{Cause: defaultConnFailure}
	case FaultLostRequest:
		e.RecordStep("N2", LaneProvider, KindDrop, faultsim.Step{Peer: req.Worker, Back: true, Outcome: faultsim.OutcomeLost},
			"request #%d is lost on the way: the provider never sees it", req.N)
	default:
		replies := make(chan reply, 1)
		e.gate.Go(providerActor(req.N), func() { p.serve(req, w, f, sent, deadline, replies) })
		timer := time.NewTimer(wait)
		select {
		case r := <-replies:
			timer.Stop()
			w.pass("CreateRefund reply")
			req.AnsweredAt = time.Since(e.start)
			req.Rule = r.rule
			e.RecordStep(req.Rule, w.ID, KindReply, fromProvider(r.err == nil), "CreateRefund #%d -> %s", req.N, req.Answer)
			e.answered(w.ID)
			if r.err != nil {
				req.Result, req.APIErr = "api", r.err
				c := *r.err
				return nil, &c
			}
			req.Result = "ok"
			c := *r.refund
			return &c, nil
		case <-timer.C:
		case <-ctx.Done():
			if _, ok := ctx.Deadline(); !ok || ctx.Err() == context.Canceled {
				timer.Stop()
				return p.abandoned(ctx, w, req, now)
			}
			// A deadline: the timer, set to it, fires at the same instant.
			<-timer.C
		}
	}
	if f.Kind == FaultLostRequest {
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return p.abandoned(ctx, w, req, now)
		}
	}
	w.pass("CreateRefund reply")
	req.Result, req.AnsweredAt, req.Rule = "timeout", time.Since(e.start), "N2"
	e.RecordStep(req.Rule, w.ID, KindReply,
		faultsim.Step{Outcome: faultsim.OutcomeTimeout, Message: "#%d timed out: no reply after %s", Args: []any{req.N, wait.Round(time.Millisecond)}},
		"CreateRefund #%d -> TimeoutError: no reply after %s", req.N, wait.Round(time.Millisecond))
	e.answered(w.ID)
	return nil, &refundkit.TimeoutError{After: wait, Cause: cause}
}

// abandoned ends a request whose caller's context was cancelled while it
// was in flight: the client stops waiting at once, as an HTTP client does,
// and the request may still land at the provider (its reply, if one comes,
// is dropped).
func (p *Provider) abandoned(ctx context.Context, w *Worker, req *Request, sent time.Time) (*refundkit.ProviderRefund, error) {
	e := p.env
	w.pass("CreateRefund reply")
	req.Result, req.AnsweredAt, req.Rule = "timeout", time.Since(e.start), "N2"
	waited := time.Since(sent).Round(time.Millisecond)
	e.RecordStep(req.Rule, w.ID, KindReply,
		faultsim.Step{Outcome: faultsim.OutcomeTimeout, Message: "#%d timed out: the caller's context ended after %s (%v); the request may still land",
			Args: []any{req.N, FormatDuration(waited), ctx.Err()}},
		"CreateRefund #%d -> TimeoutError: the caller's context ended after %s (%v); the request may still land", req.N, FormatDuration(waited), ctx.Err())
	return nil, &refundkit.TimeoutError{After: waited, Cause: ctx.Err().Error()}
}

// serve is the provider's side of one request, run as its own actor so it
// can outlive a caller that gave up.
func (p *Provider) serve(req *Request, w *Worker, f Fault, params refundkit.RefundParams, deadline time.Time, replies chan<- reply) {
	e := p.env
	actor := providerActor(req.N)
	time.Sleep(e.net.Latency)
	if !e.gate.Pass(actor) {
		return
	}
	req.Seen = true
	ans, executing := p.arrive(req, f, params)
	if executing {
		processing := e.net.Processing
		if f.Kind == FaultSlow {
			processing = f.Processing
		}
		time.Sleep(processing)
		if !e.gate.Pass(actor) {
			return
		}
		ans = p.complete(req, f, params)
	}
	text := ans.String()
	req.Answer = text
	time.Sleep(e.net.Latency)
	if !e.gate.Pass(actor) {
		return
	}
	switch {
	case f.Kind == FaultLostReply:
		e.RecordStep("N2", LaneProvider, KindDrop, faultsim.Step{Peer: req.Worker, Outcome: faultsim.OutcomeLost, Message: "the reply to #%d is lost", Args: []any{req.N}},
			"the reply to request #%d (%s) is lost", req.N, text)
	case w.Died != "":
		e.RecordStep("", LaneProvider, KindDrop, faultsim.Step{Peer: req.Worker, Outcome: faultsim.OutcomeLost},
			"the reply to request #%d (%s) comes back to a dead process: %s crashed", req.N, text, req.Worker)
	case !time.Now().Before(deadline):
		e.RecordStep("N2", LaneProvider, KindDrop, faultsim.Step{Peer: req.Worker, Outcome: faultsim.OutcomeLost},
			"the reply to request #%d (%s) arrives after %s stopped waiting", req.N, text, req.Worker)
	default:
		req.Delivered = true
		replies <- ans
	}
}

// arrive is the request reaching the provider: the table arrival (the
// key's length, the rate limiter and authentication, the idempotency
// layer, validation). executing is true when the request started
// executing (its key is now saved, in flight).
func (p *Provider) arrive(req *Request, f Fault, params refundkit.RefundParams) (reply, bool) {
	d := &decision{p: p, req: req, fault: f, params: params, now: time.Now(), key: p.keys[req.Key]}
	r, v := d.run(arrival)
	return r, v == executing
}

// complete is the end of execution: the table completion decides the
// answer, and whether it is saved under the key.
func (p *Provider) complete(req *Request, f Fault, params refundkit.RefundParams) reply {
	final := f
	if f.Kind == FaultSlow {
		final = Fault{}
		if f.Then != nil {
			final = *f.Then
		}
	}
	d := &decision{p: p, req: req, fault: f, final: final, params: params, now: time.Now()}
	r, v := d.run(completion)
	if k := p.keys[req.Key]; k != nil && v == saved {
		k.inFlight = false
		k.refund, k.err = r.refund, r.err
	}
	return r
}

func (p *Provider) listRefunds(ctx context.Context, w *Worker, chargeID string) ([]refundkit.ProviderRefund, error) {
	e := p.env
	p.lookupN++
	var f Fault
	for _, lf := range p.lookupFaults {
		if lf.Request == p.lookupN {
			f = lf
			break
		}
		if lf.Request == 0 && e.may(lf.Ref) {
			f = lf
		}
	}
	e.RecordStep("", w.ID, KindCall, faultsim.Step{Peer: LaneProvider}, "ListRefunds(%s)", chargeID)
	sent := time.Now()
	failed := func(err error) ([]refundkit.ProviderRefund, error) {
		p.lookups = append(p.lookups, Lookup{Worker: w.ID, SentAt: sent.Sub(e.start), At: time.Since(e.start), Charge: chargeID, Failed: true})
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		e.RecordStep("N3", w.ID, KindReply, neverSent, "ListRefunds(%s) -> ConnectionError: %v (never sent)", chargeID, err)
		return failed(&refundkit.ConnectionError{Cause: err.Error()})
	}
	e.fired(f.Ref)
	if f.Kind == FaultConnection {
		e.RecordStep("N1", w.ID, KindReply, neverSent, "ListRefunds(%s) -> ConnectionError: %s (never sent)", chargeID, defaultConnFailure)
		return failed(&refundkit.ConnectionError{Cause: defaultConnFailure})
	}
	took := 2 * e.net.Latency
	if f.Kind == FaultSlow {
		took += f.Processing
	}
	wait, cause := e.net.ClientTimeout, "read timeout"
	if dl, ok := ctx.Deadline(); ok && dl.Sub(sent) < wait {
		wait, cause = dl.Sub(sent), "context deadline exceeded"
	}
	timer := time.NewTimer(min(took, wait))
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
		if ctx.Err() == context.Canceled {
			w.pass("ListRefunds reply")
			e.recordTimeout("N2", w.ID, "ListRefunds(%s) -> TimeoutError: the caller's context ended (%v)", chargeID, ctx.Err())
			return failed(&refundkit.TimeoutError{After: time.Since(sent), Cause: ctx.Err().Error()})
		}
		// A deadline, which wait already counts: its instant is now.
	}
	if took > wait {
		w.pass("ListRefunds reply")
		e.recordTimeout("N2", w.ID, "ListRefunds(%s) -> TimeoutError: no reply after %s", chargeID, wait.Round(time.Millisecond))
		return failed(&refundkit.TimeoutError{After: wait, Cause: cause})
	}
	w.pass("ListRefunds reply")
	if f.Kind == FaultHTTPError {
		err := &refundkit.APIError{Status: f.Status, Type: orDefault(f.Type, "api_error"), Code: f.Code, Message: orDefault(f.Message, "the provider failed")}
		e.RecordStep("P15", w.ID, KindReply, fromProvider(false), "ListRefunds(%s) -> %s", chargeID, describeAPIError(err))
		return failed(err)
	}
	ch := p.charges[chargeID]
	if ch == nil {
		err := &refundkit.APIError{Status: 404, Type: "invalid_request_error", Code: "resource_missing", Param: "charge", Message: "no such charge: " + chargeID}
		e.RecordStep("P12", w.ID, KindReply, fromProvider(false), "ListRefunds(%s) -> %s", chargeID, describeAPIError(err))
		return failed(err)
	}
	out := append([]refundkit.ProviderRefund(nil), ch.refunds...)
	l := Lookup{Worker: w.ID, SentAt: sent.Sub(e.start), At: time.Since(e.start), Charge: chargeID}
	var parts []string
	for _, r := range out {
		l.References = append(l.References, r.Reference)
		l.RefundIDs = append(l.RefundIDs, r.ID)
		parts = append(parts, r.ID+" "+strconv.FormatInt(r.Amount, 10)+" ref "+strconv.Quote(r.Reference))
	}
	p.lookups = append(p.lookups, l)
	if len(parts) == 0 {
		e.RecordStep("P15", w.ID, KindReply, fromProvider(true), "ListRefunds(%s) -> no refunds", chargeID)
	} else {
		e.RecordStep("P15", w.ID, KindReply, fromProvider(true), "ListRefunds(%s) -> %s", chargeID, strings.Join(parts, "; "))
	}
	return out, nil
}

// providerActor names the provider's actor serving request n, as
// "provider/%04d" would.
func providerActor(n int) string {
	d := strconv.Itoa(n)
	if len(d) < 4 {
		d = "0000"[len(d):] + d
	}
	return "provider/" + d
}

func sameParams(a, b refundkit.RefundParams) bool {
	return a.Charge == b.Charge && a.Amount == b.Amount && a.Reference == b.Reference
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Steps of the provider's answers in a run's sequence diagram.
var (
	// neverSent is a request the client could not send: its arrow breaks
	// off on the way to the provider.
	neverSent = faultsim.Step{Peer: LaneProvider, Outcome: faultsim.OutcomeUnsent}
)

// recordTimeout records a call whose caller stopped waiting: a clock on
// the worker's lane, labelled with the whole line.
func (e *Env) recordTimeout(rule, actor, format string, args ...any) {
	e.RecordStep(rule, actor, KindReply, faultsim.Step{Outcome: faultsim.OutcomeTimeout, Message: format, Args: args}, format, args...)
}

// fromProvider is the step of an answer that came back from the provider.
func fromProvider(ok bool) faultsim.Step {
	if ok {
		return faultsim.Step{Peer: LaneProvider, Back: true, Outcome: faultsim.OutcomeOK}
	}
	return faultsim.Step{Peer: LaneProvider, Back: true, Outcome: faultsim.OutcomeError}
}
