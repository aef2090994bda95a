package world

import (
	"fmt"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

// Rule is one rule of the async-refund page about the provider, the
// client library or the store, under the id the page gives it ("P7"), so
// a trace line that cites it can be looked up on the page.
type Rule struct {
	ID    string
	Words string // the rule in the page's words, shortened
}

// Rules are the rules the page states and the fakes keep, in the page's
// order. The provider answers every request through the tables below,
// which are made of these; nothing else decides an answer.
var Rules = []Rule{
	{"P1", "a key marks a request, not a refund: up to 255 characters, and reads ignore keys"},
	{"P2", "the first answer is saved under the key, errors included; a later request with the same key and parameters gets it back, replayed, and nothing runs again"},
	{"P3", "answers not saved, so a retry with the same key runs afresh: a 400 from validation before execution, a 401, a 409, a 429"},
	{"P4", "a key longer than 255 characters is refused 400 invalid_request_error on idempotency_key; nothing is saved"},
	{"P5", "a replayed success says so (Replayed)"},
	{"P6", "the same key with different parameters is refused 400 idempotency_error"},
	{"P7", "the same key while the first request is still running is refused 409 idempotency_key_in_use"},
	{"P8", "a saved 5xx replays for as long as the key is kept"},
	{"P9", "keys are kept at least 24 hours and may be pruned after; a request under a pruned key is a new request"},
	{"P10", "refunding a charge that is already fully refunded is 400 charge_already_refunded, decided at execution and saved"},
	{"P11", "an amount larger than what is left to refund is 400 on the amount parameter, decided at execution and not saved"},
	{"P12", "an unknown charge is 404 resource_missing, decided at execution and saved"},
	{"P13", "rate limiting answers 429, in front of the idempotency layer, sometimes with Retry-After"},
	{"P14", "a request that passes the rules above executes: the refund is applied, or a server error (5xx) ends it; a normal answer takes 200 ms, a slow one up to 30 s"},
	{"P15", "ListRefunds answers with every refund the charge holds, oldest first, or fails (connection error, timeout, 5xx)"},
	{"N1", "a *ConnectionError: the request never left, nothing happened at the provider"},
	{"N2", "a *TimeoutError: sent, and no reply within the client's 10 s or before the context ended; it may have landed"},
	{"N3", "once the caller's context has ended, the client sends nothing: a *ConnectionError"},
	{"S1", "Claim moves the record to processing, owned by the caller, if it is pending, failed or needs_check, or processing with a lease that has run out; otherwise it is refused"},
	{"S2", "the Mark calls set the status they name, unconditionally"},
	{"S3", "any database call can fail with an error and change nothing, more than one in a run, and any helper can panic, before the claim as well as after"},
}

// RuleWords returns the words of rule id, "" for an id no rule has.
func RuleWords(id string) string {
	for _, r := range Rules {
		if r.ID == id {
			return r.Words
		}
	}
	return ""
}

// MaxProcessing is the longest a request takes at the provider (rule P14).
const MaxProcessing = 30 * time.Second

// decision is what the provider's tables look at for one request: the
// request, its scripted fault, the key's entry and the charge.
type decision struct {
	p      *Provider
	req    *Request
	fault  Fault
	params refundkit.RefundParams
	now    time.Time
	key    *keyEntry // the entry under the request's key, nil when none
	// final is, at completion, the fault that ends execution (a slow
	// request's Then).
	final Fault
}

// verdict is what a table entry did with a request.
type verdict int

const (
	next      verdict = iota // the rule does not answer: the next entry decides
	answered                 // answered; nothing saved under the key
	executing                // arrival: execution starts, the key is held in flight
	saved                    // completion: the answer is saved under the key
)

// step is one entry of a table: the rule it keeps, when it applies, and
// what it does then (an answer, and a line for the trace).
type step struct {
	rule    string
	applies func(d *decision) bool
	do      func(d *decision) (reply, verdict, string)
}

// arrival is the table a request meets when it reaches the provider, in
// the order the layers see it: the key's length, the layers in front of
// the idempotency layer, the idempotency layer, validation, execution.
var arrival = []step{
	{"P4", func(d *decision) bool { return len(d.req.Key) > MaxKeyLength },
		func(d *decision) (reply, verdict, string) {
			r := apiAnswer(400, "invalid_request_error", "", "idempotency_key", fmt.Sprintf("idempotency keys are at most %d characters; this one has %d", MaxKeyLength, len(d.req.Key)))
			return r, answered, fmt.Sprintf("rejected (%s): the key is longer than %d characters, nothing saved", r, MaxKeyLength)
		}},
	{"P13", func(d *decision) bool { return d.fault.Kind == FaultHTTPError && d.fault.Status == 429 },
		func(d *decision) (reply, verdict, string) {
			f := d.fault
			r := reply{err: &refundkit.APIError{Status: 429, Type: orDefault(f.Type, "rate_limit_error"), Code: f.Code, Message: orDefault(f.Message, "too many requests"), RetryAfter: f.RetryAfter}}
			return r, answered, fmt.Sprintf("rate limited (%s) in front of the idempotency layer, nothing saved under the key", r)
		}},
	{"P3", func(d *decision) bool { return d.fault.Kind == FaultHTTPError && d.fault.Status == 401 },
		func(d *decision) (reply, verdict, string) {
			f := d.fault
			r := reply{err: &refundkit.APIError{Status: 401, Type: orDefault(f.Type, "invalid_request_error"), Code: f.Code, Message: orDefault(f.Message, "invalid API key")}}
			return r, answered, fmt.Sprintf("not authenticated (%s), nothing saved under the key", r)
		}},
	{"P9", func(d *decision) bool { return d.key != nil && d.now.Sub(d.key.created) >= d.p.env.net.KeyTTL },
		func(d *decision) (reply, verdict, string) {
			age := d.now.Sub(d.key.created)
			delete(d.p.keys, d.req.Key)
			d.key = nil
			return reply{}, next, fmt.Sprintf("key %s was created %s ago and has been pruned: it runs as a new request", d.req.Key, age.Round(time.Millisecond))
		}},
	{"P6", func(d *decision) bool { return d.key != nil && !sameParams(d.key.params, d.params) },
		func(d *decision) (reply, verdict, string) {
			r := apiAnswer(400, "idempotency_error", "", "", "keys can only be used with the same parameters they were first used with")
			return r, answered, fmt.Sprintf("key %s was first used with other parameters: %s", d.req.Key, r)
		}},
	{"P7", func(d *decision) bool { return d.key != nil && d.key.inFlight },
		func(d *decision) (reply, verdict, string) {
			r := apiAnswer(409, "idempotency_error", "idempotency_key_in_use", "", "a request with this key is still being processed")
			return r, answered, fmt.Sprintf("key %s is in use by a request still running: %s", d.req.Key, r)
		}},
	{"P8", func(d *decision) bool { return d.key != nil && d.key.err != nil && d.key.err.Status >= 500 },
		func(d *decision) (reply, verdict, string) { return replay(d) }},
	{"P5", func(d *decision) bool { return d.key != nil && d.key.refund != nil },
		func(d *decision) (reply, verdict, string) { return replay(d) }},
	{"P2", func(d *decision) bool { return d.key != nil && !d.key.inFlight },
		func(d *decision) (reply, verdict, string) { return replay(d) }},
	{"P3", func(d *decision) bool {
		return d.params.Amount <= 0 || (d.fault.Kind == FaultHTTPError && d.fault.Status == 400)
	},
		func(d *decision) (reply, verdict, string) {
			r := apiAnswer(400, "invalid_request_error", "", "amount", "amount must be a positive integer")
			if d.params.Amount > 0 {
				f := d.fault
				r = reply{err: &refundkit.APIError{Status: 400, Type: orDefault(f.Type, "invalid_request_error"), Code: f.Code, Message: orDefault(f.Message, "invalid request")}}
			}
			return r, answered, fmt.Sprintf("rejected by validation before execution (%s), nothing saved", r)
		}},
	{"P14", func(*decision) bool { return true },
		func(d *decision) (reply, verdict, string) {
			d.p.keys[d.req.Key] = &keyEntry{params: d.params, created: d.now, inFlight: true}
			return reply{}, executing, "starts executing under key " + d.req.Key
		}},
}

// completion is the table that ends a request's execution: a server
// error, or the charge's ledger deciding, and the answer saved or not.
var completion = []step{
	{"P14", func(d *decision) bool { return d.final.Kind == FaultHTTPError },
		func(d *decision) (reply, verdict, string) {
			f := d.final
			r := reply{err: &refundkit.APIError{Status: f.Status, Type: orDefault(f.Type, "api_error"), Code: f.Code, Message: orDefault(f.Message, "the provider failed")}}
			return r, saved, fmt.Sprintf("fails with %s, saved under key %s (rule P2)", r, d.req.Key)
		}},
	{"P12", func(d *decision) bool { return d.p.charges[d.params.Charge] == nil },
		func(d *decision) (reply, verdict, string) {
			r := apiAnswer(404, "invalid_request_error", "resource_missing", "charge", "no such charge: "+d.params.Charge)
			return r, saved, fmt.Sprintf("answers %s, saved under key %s (rule P2)", r, d.req.Key)
		}},
	{"P10", func(d *decision) bool {
		ch := d.p.charges[d.params.Charge]
		return ch.refunded >= ch.amount
	},
		func(d *decision) (reply, verdict, string) {
			r := apiAnswer(400, "invalid_request_error", "charge_already_refunded", "", "charge "+d.params.Charge+" has already been refunded")
			return r, saved, fmt.Sprintf("answers %s, saved under key %s (rule P2)", r, d.req.Key)
		}},
	{"P11", func(d *decision) bool {
		ch := d.p.charges[d.params.Charge]
		return d.params.Amount > ch.amount-ch.refunded
	},
		func(d *decision) (reply, verdict, string) {
			ch := d.p.charges[d.params.Charge]
			r := apiAnswer(400, "invalid_request_error", "", "amount", fmt.Sprintf("refund amount %d is greater than what is left to refund (%d)", d.params.Amount, ch.amount-ch.refunded))
			delete(d.p.keys, d.req.Key)
			return r, answered, fmt.Sprintf("%s, nothing saved under the key (rule P3)", r)
		}},
	{"P14", func(*decision) bool { return true },
		func(d *decision) (reply, verdict, string) {
			ch := d.p.charges[d.params.Charge]
			ref := d.p.apply(ch, d.params.Amount, d.params.Reference, d.now)
			d.p.ledger = append(d.p.ledger, Applied{Refund: ref, Key: d.req.Key, Worker: d.req.Worker, Request: d.req.N})
			d.req.Applied, d.req.RefundID = true, ref.ID
			return reply{refund: &ref}, saved, fmt.Sprintf("refund %s of %d applied to %s (%d of %d now refunded)", ref.ID, ref.Amount, ch.id, ch.refunded, ch.amount)
		}},
}

// run executes table for d: the first entry that applies and answers
// decides. Every entry that acts writes its line to the trace, citing its
// rule; the answer carries the rule that gave it.
func (d *decision) run(table []step) (reply, verdict) {
	for _, s := range table {
		if !s.applies(d) {
			continue
		}
		r, v, text := s.do(d)
		if v != next && d.fault.Kind == FaultHTTPError && keyRules[s.rule] {
			text += fmt.Sprintf("; the scripted %s is not given: the idempotency layer answers first", d.fault.Describe())
		}
		who := fmt.Sprintf("request #%d", d.req.N)
		if d.req.N == 0 {
			who = "the request sent before the run"
		}
		d.p.env.RecordStep(s.rule, LaneProvider, KindState, d.step(r, v, text), "%s: %s", who, text)
		if v == next {
			continue
		}
		r.rule = s.rule
		return r, v
	}
	panic("refund world: a provider table ends without an answer")
}

// keyRules are the rules of the idempotency layer that answer from the
// key alone.
var keyRules = map[string]bool{"P2": true, "P5": true, "P6": true, "P7": true, "P8": true}

// replay answers with what is saved under the key (rules P2, P5, P8).
func replay(d *decision) (reply, verdict, string) {
	d.req.Replayed = true
	var r reply
	if d.key.err != nil {
		c := *d.key.err
		c.Replayed = true
		r.err = &c
	} else {
		c := *d.key.refund
		c.Replayed = true
		r.refund = &c
	}
	return r, answered, fmt.Sprintf("replays the answer saved under key %s: %s", d.req.Key, r)
}

func apiAnswer(status int, typ, code, param, msg string) reply {
	return reply{err: &refundkit.APIError{Status: status, Type: typ, Code: code, Param: param, Message: msg}}
}

// step is how the provider's decision is drawn in a run's sequence
// diagram: a refund applied is the money going out; a request starting
// to execute names its key; any other decision is a note on the
// provider's lane.
func (d *decision) step(r reply, v verdict, text string) faultsim.Step {
	n := d.req.N
	switch {
	case v == saved && r.refund != nil && n > 0:
		return faultsim.Step{Outcome: faultsim.OutcomeEffect, Message: "money out: refund %s of %d (#%d)", Args: []any{r.refund.ID, r.refund.Amount, n}}
	case v == saved && r.refund != nil:
		return faultsim.Step{Outcome: faultsim.OutcomeEffect, Message: "money out: the request sent before the run: %s", Args: []any{text}}
	case n == 0:
		return faultsim.Step{}
	case v == executing:
		return faultsim.Step{Message: "provider runs #%d, key %s", Args: []any{n, d.req.Key}}
	}
	return faultsim.Step{Message: "provider: #%d %s", Args: []any{n, text}}
}
