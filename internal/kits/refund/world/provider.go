package world

import (
	"context"
	"fmt"
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
	// BeforeKeys: an http-error answered by a layer in front of the
	// idempotency layer (as the rate limiter is for every 429), so the key
	// is neither looked up nor saved: the answer says nothing about earlier
	// requests under the same key.
	BeforeKeys bool `yaml:"before_keys,omitempty" json:"before_keys,omitempty"`
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
		if f.BeforeKeys {
			s += " in front of the idempotency layer"
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

// Validate reports a fault that cannot be run.
func (f Fault) Validate() error {
	switch f.Kind {
	case FaultConnection, FaultLostRequest, FaultLostReply:
		if f.BeforeKeys {
			return fmt.Errorf("refundkit: before_keys applies to an %q fault only, not %q", FaultHTTPError, f.Kind)
		}
	case FaultHTTPError:
		if f.Status < 400 || f.Status > 599 {
			return fmt.Errorf("refundkit: fault %q needs an HTTP error status (400-599), got %d", f.Kind, f.Status)
		}
	case FaultSlow:
		if f.Processing <= 0 {
			return fmt.Errorf("refundkit: fault %q needs a processing time", f.Kind)
		}
		if f.Then != nil && f.Then.Kind != FaultHTTPError {
			return fmt.Errorf("refundkit: a slow request can only end in success or an http-error, not %q", f.Then.Kind)
		}
		if f.BeforeKeys || (f.Then != nil && f.Then.BeforeKeys) {
			return fmt.Errorf("refundkit: a slow request ran past the idempotency layer: before_keys does not apply")
		}
		if f.Then != nil {
			return f.Then.Validate()
		}
	default:
		return fmt.Errorf("refundkit: unknown fault kind %q (want %s)", f.Kind,
			strings.Join([]string{FaultConnection, FaultLostRequest, FaultLostReply, FaultHTTPError, FaultSlow}, ", "))
	}
	return nil
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
	Seq          int           // its place in the run's order of steps (see Change.Seq)
	Seen         bool          // it reached the provider
	Applied      bool
	RefundID     string
	Replayed     bool
	Answer       string // what the provider answered, "" if it never saw it
	Delivered    bool   // the caller got the provider's answer
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
		if amount > ch.amount-ch.refunded {
			// Others refunded meanwhile: it fails as any request would.
			if k != nil {
				k.inFlight = false
				k.err = &refundkit.APIError{Status: 400, Type: "invalid_request_error", Param: "amount", Message: "refund amount is greater than what is left to refund"}
			}
			p.env.Record("provider", KindState, "the request sent before the run is refused: %d is more than what is left on %s", amount, chargeID)
			return
		}
		r := p.apply(ch, amount, reference, time.Now())
		p.ledger = append(p.ledger, Applied{Refund: r, Key: key, Preexisting: true, ForRequest: forRequest})
		if k != nil {
			rc := r
			k.inFlight, k.refund = false, &rc
		}
		p.env.Record("provider", KindState, "the request sent before the run lands: refund %s of %d applied to %s (%d of %d now refunded)", r.ID, amount, chargeID, ch.refunded, ch.amount)
	})
	return nil
}

// AddFault scripts a fault.
func (p *Provider) AddFault(f Fault) { p.faults = append(p.faults, f) }

// AddLookupFault scripts a fault of ListRefunds calls.
func (p *Provider) AddLookupFault(f Fault) { p.lookupFaults = append(p.lookupFaults, f) }

// ValidateLookupFault reports a look-up fault that cannot be run.
func ValidateLookupFault(f Fault) error {
	switch f.Kind {
	case FaultConnection:
	case FaultHTTPError:
		if f.Status < 400 || f.Status > 599 {
			return fmt.Errorf("refundkit: look-up fault %q needs an HTTP error status (400-599), got %d", f.Kind, f.Status)
		}
	case FaultSlow:
		if f.Processing <= 0 || f.Then != nil {
			return fmt.Errorf("refundkit: a slow look-up needs a processing time and no then")
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
	p.requests = append(p.requests, req)
	f := p.faultFor(req.N)
	if f.Kind != faultNone {
		req.Fault = f.Describe()
	}
	keyText := "key " + req.Key
	if req.KeyGenerated {
		keyText = "no key (the client made " + req.Key + ")"
	}
	ref := ""
	if params.Reference != "" {
		ref = ", reference " + params.Reference
	}
	e.Record(w.ID, KindCall, "CreateRefund #%d(charge %s, amount %d, %s%s)", req.N, params.Charge, params.Amount, keyText, ref)
	req.Seq = e.TraceLen()

	if err := ctx.Err(); err != nil {
		req.Result, req.AnsweredAt = "connection", req.SentAt
		e.Record(w.ID, KindReply, "CreateRefund #%d -> ConnectionError: %v (never sent)", req.N, err)
		return nil, &refundkit.ConnectionError{Cause: err.Error()}
	}
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
		req.Result, req.AnsweredAt = "connection", req.SentAt
		e.Record(w.ID, KindReply, "CreateRefund #%d -> ConnectionError: %s (never sent)", req.N, defaultConnFailure)
		return nil, &refundkit.ConnectionError{Cause: defaultConnFailure}
	case FaultLostRequest:
		e.Record("provider", KindDrop, "request #%d is lost on the way: the provider never sees it", req.N)
	default:
		replies := make(chan reply, 1)
		e.gate.Go(providerActor(req.N), func() { p.serve(req, w, f, sent, deadline, replies) })
		timer := time.NewTimer(wait)
		select {
		case r := <-replies:
			timer.Stop()
			w.pass("CreateRefund reply")
			req.AnsweredAt = time.Since(e.start)
			e.Record(w.ID, KindReply, "CreateRefund #%d -> %s", req.N, req.Answer)
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
	req.Result, req.AnsweredAt = "timeout", time.Since(e.start)
	e.Record(w.ID, KindReply, "CreateRefund #%d -> TimeoutError: no reply after %s", req.N, wait.Round(time.Millisecond))
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
	req.Result, req.AnsweredAt = "timeout", time.Since(e.start)
	waited := time.Since(sent).Round(time.Millisecond)
	e.Record(w.ID, KindReply, "CreateRefund #%d -> TimeoutError: the caller's context ended after %s (%v); the request may still land", req.N, FormatDuration(waited), ctx.Err())
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
		e.Record("provider", KindDrop, "the reply to request #%d (%s) is lost", req.N, text)
	case w.Died != "":
		e.Record("provider", KindDrop, "the reply to request #%d (%s) comes back to a dead process: %s crashed", req.N, text, req.Worker)
	case !time.Now().Before(deadline):
		e.Record("provider", KindDrop, "the reply to request #%d (%s) arrives after %s stopped waiting", req.N, text, req.Worker)
	default:
		req.Delivered = true
		replies <- ans
	}
}

func (p *Provider) answer(req *Request, status int, typ, code, param, msg string) reply {
	return reply{err: &refundkit.APIError{Status: status, Type: typ, Code: code, Param: param, Message: msg}}
}

// arrive is the request reaching the provider: the rate limiter, the
// idempotency layer and validation. executing is true when the request
// started executing (its key is now saved, in flight).
func (p *Provider) arrive(req *Request, f Fault, params refundkit.RefundParams) (reply, bool) {
	e := p.env
	now := time.Now()
	if len(req.Key) > MaxKeyLength {
		// Checked before anything else looks at the key: nothing is saved.
		r := p.answer(req, 400, "invalid_request_error", "", "idempotency_key", fmt.Sprintf("idempotency keys are at most %d characters; this one has %d", MaxKeyLength, len(req.Key)))
		e.Record("provider", KindState, "request #%d: rejected (%s): the key is longer than %d characters, nothing saved", req.N, r.String(), MaxKeyLength)
		return r, false
	}
	if f.Kind == FaultHTTPError && f.Status == 401 {
		// Authentication runs before the idempotency layer: nothing saved,
		// and a retry with the same key runs afresh.
		r := reply{err: &refundkit.APIError{Status: 401, Type: orDefault(f.Type, "invalid_request_error"), Code: f.Code, Message: orDefault(f.Message, "invalid API key")}}
		e.Record("provider", KindState, "request #%d: not authenticated (%s), nothing saved under the key", req.N, r.String())
		return r, false
	}
	if f.Kind == FaultHTTPError && f.Status == 429 {
		// The rate limiter runs before the idempotency layer: nothing saved.
		r := reply{err: &refundkit.APIError{Status: 429, Type: orDefault(f.Type, "rate_limit_error"), Code: f.Code, Message: orDefault(f.Message, "too many requests"), RetryAfter: f.RetryAfter}}
		e.Record("provider", KindState, "request #%d: rate limited (%s), nothing saved under the key", req.N, r.String())
		return r, false
	}
	if f.Kind == FaultHTTPError && f.BeforeKeys {
		r := reply{err: &refundkit.APIError{Status: f.Status, Type: orDefault(f.Type, "invalid_request_error"), Code: f.Code, Message: orDefault(f.Message, "refused"), RetryAfter: f.RetryAfter}}
		e.Record("provider", KindState, "request #%d: refused in front of the idempotency layer (%s): key %s not looked up, nothing saved", req.N, r.String(), req.Key)
		return r, false
	}
	if k := p.keys[req.Key]; k != nil {
		age := now.Sub(k.created)
		switch {
		case age >= e.net.KeyTTL:
			delete(p.keys, req.Key)
			e.Record("provider", KindState, "request #%d: key %s was created %s ago and has expired: it runs as a new request", req.N, req.Key, age.Round(time.Millisecond))
		case !sameParams(k.params, params):
			r := p.answer(req, 400, "idempotency_error", "", "", "keys can only be used with the same parameters they were first used with")
			e.Record("provider", KindState, "request #%d: key %s was first used with other parameters: %s", req.N, req.Key, r.String())
			return r, false
		case k.inFlight:
			r := p.answer(req, 409, "idempotency_error", "idempotency_key_in_use", "", "a request with this key is still being processed")
			e.Record("provider", KindState, "request #%d: key %s is in use by a request still in flight: %s", req.N, req.Key, r.String())
			return r, false
		default:
			req.Replayed = true
			var r reply
			if k.err != nil {
				c := *k.err
				c.Replayed = true
				r.err = &c
			} else {
				c := *k.refund
				c.Replayed = true
				r.refund = &c
			}
			e.Record("provider", KindState, "request #%d: replays the answer saved under key %s: %s", req.N, req.Key, r.String())
			return r, false
		}
	}
	if params.Amount <= 0 {
		r := p.answer(req, 400, "invalid_request_error", "", "amount", "amount must be a positive integer")
		e.Record("provider", KindState, "request #%d: rejected by validation (%s), nothing saved", req.N, r.String())
		return r, false
	}
	if f.Kind == FaultHTTPError && f.Status == 400 && f.Code == "" && (f.Type == "" || f.Type == "invalid_request_error") {
		r := p.answer(req, 400, "invalid_request_error", "", "", orDefault(f.Message, "invalid request"))
		e.Record("provider", KindState, "request #%d: rejected by validation (%s), nothing saved", req.N, r.String())
		return r, false
	}
	p.keys[req.Key] = &keyEntry{params: params, created: now, inFlight: true}
	e.Record("provider", KindState, "request #%d: starts executing under key %s", req.N, req.Key)
	return reply{}, true
}

// complete is the end of execution: the refund applies or an error is
// decided, and the answer is saved under the key.
func (p *Provider) complete(req *Request, f Fault, params refundkit.RefundParams) reply {
	e := p.env
	k := p.keys[req.Key]
	final := f
	if f.Kind == FaultSlow {
		final = Fault{}
		if f.Then != nil {
			final = *f.Then
		}
	}
	ch := p.charges[params.Charge]
	var r reply
	save := true
	switch {
	case final.Kind == FaultHTTPError:
		r = reply{err: &refundkit.APIError{Status: final.Status, Type: orDefault(final.Type, "api_error"), Code: final.Code, Message: orDefault(final.Message, "the provider failed"), RetryAfter: final.RetryAfter}}
	case ch == nil:
		r = p.answer(req, 404, "invalid_request_error", "resource_missing", "charge", "no such charge: "+params.Charge)
	case ch.refunded >= ch.amount:
		r = p.answer(req, 400, "invalid_request_error", "charge_already_refunded", "", "charge "+ch.id+" has already been refunded")
	case params.Amount > ch.amount-ch.refunded:
		r = p.answer(req, 400, "invalid_request_error", "", "amount", fmt.Sprintf("refund amount %d is greater than what is left to refund (%d)", params.Amount, ch.amount-ch.refunded))
		save = false
	default:
		ref := p.apply(ch, params.Amount, params.Reference, time.Now())
		p.ledger = append(p.ledger, Applied{Refund: ref, Key: req.Key, Worker: req.Worker, Request: req.N})
		req.Applied, req.RefundID = true, ref.ID
		r = reply{refund: &ref}
		e.Record("provider", KindState, "request #%d: refund %s of %d applied to %s (%d of %d now refunded)", req.N, ref.ID, ref.Amount, ch.id, ch.refunded, ch.amount)
	}
	if !save {
		delete(p.keys, req.Key)
		e.Record("provider", KindState, "request #%d: %s, nothing saved under the key", req.N, r.String())
		return r
	}
	if k != nil {
		k.inFlight = false
		k.refund, k.err = r.refund, r.err
	}
	if r.err != nil {
		e.Record("provider", KindState, "request #%d: answers %s, saved under key %s", req.N, r.String(), req.Key)
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
		if lf.Request == 0 {
			f = lf
		}
	}
	e.Record(w.ID, KindCall, "ListRefunds(%s)", chargeID)
	sent := time.Now()
	failed := func(err error) ([]refundkit.ProviderRefund, error) {
		p.lookups = append(p.lookups, Lookup{Worker: w.ID, SentAt: sent.Sub(e.start), At: time.Since(e.start), Charge: chargeID, Failed: true})
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		e.Record(w.ID, KindReply, "ListRefunds(%s) -> ConnectionError: %v (never sent)", chargeID, err)
		return failed(&refundkit.ConnectionError{Cause: err.Error()})
	}
	if f.Kind == FaultConnection {
		e.Record(w.ID, KindReply, "ListRefunds(%s) -> ConnectionError: %s (never sent)", chargeID, defaultConnFailure)
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
			e.Record(w.ID, KindReply, "ListRefunds(%s) -> TimeoutError: the caller's context ended (%v)", chargeID, ctx.Err())
			return failed(&refundkit.TimeoutError{After: time.Since(sent), Cause: ctx.Err().Error()})
		}
		// A deadline, which wait already counts: its instant is now.
	}
	if took > wait {
		w.pass("ListRefunds reply")
		e.Record(w.ID, KindReply, "ListRefunds(%s) -> TimeoutError: no reply after %s", chargeID, wait.Round(time.Millisecond))
		return failed(&refundkit.TimeoutError{After: wait, Cause: cause})
	}
	w.pass("ListRefunds reply")
	if f.Kind == FaultHTTPError {
		err := &refundkit.APIError{Status: f.Status, Type: orDefault(f.Type, "api_error"), Code: f.Code, Message: orDefault(f.Message, "the provider failed")}
		e.Record(w.ID, KindReply, "ListRefunds(%s) -> %s", chargeID, describeAPIError(err))
		return failed(err)
	}
	ch := p.charges[chargeID]
	if ch == nil {
		err := &refundkit.APIError{Status: 404, Type: "invalid_request_error", Code: "resource_missing", Param: "charge", Message: "no such charge: " + chargeID}
		e.Record(w.ID, KindReply, "ListRefunds(%s) -> %s", chargeID, describeAPIError(err))
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
		e.Record(w.ID, KindReply, "ListRefunds(%s) -> no refunds", chargeID)
	} else {
		e.Record(w.ID, KindReply, "ListRefunds(%s) -> %s", chargeID, strings.Join(parts, "; "))
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
