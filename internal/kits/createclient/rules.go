package createclient

import (
	"slices"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

// Rule is one statement the problem page makes about how the store, the
// queue or the vendor behave, under the id the page's bullet carries. The
// fakes execute these rules: every answer they give is decided by one
// entry of the tables below and cites its id in the trace, and a scenario
// may script only what the rules allow (see the lint in scenario.go).
type Rule struct {
	ID string
	// Text is the page's bullet, word for word (TestRulesAreOnThePage).
	Text string
}

// rules is the page's list, in its order.
var rules = []Rule{
	{"S1", "`Get(ctx, id)` returns the `Operation`: its fields, its `Status` (pending until settled), and its `Plan`, nil until one was saved."},
	{"S2", "`Claim(ctx, id, lease)` takes the operation for this worker for `lease`; false while another worker's lease runs. A worker restarted under the same name gets its claim back. Other workers may try to claim the operation at any time (a deploy starts new ones): once a lease has run out, one of them may take it."},
	{"S3", "`SavePlan(ctx, id, req)` stores `req` as the operation's plan if it has none yet, and returns the plan it has now, which is the one saved first. The plan is the exact request to send, key and reference included, with the time it was saved."},
	{"S4", "`Finish(ctx, id, status, paymentID, note)` records `Created` (with the vendor's payment id), `Failed` or `Unknown`."},
	{"S5", "Any of these calls may fail, as a database that times out does: it returns an error and has read or written nothing."},
	{"Q1", "When a call of `CreatePayment` returns an error, the queue hands the operation to another worker 15 minutes after that call returned, and once more 15 minutes after that worker's call returned, if it returns an error too. After a call that returns no error the queue hands nothing on. A lease of more than 15 minutes keeps the operation from those workers; within that bound the lease is yours to choose, so make it outlast your slowest call."},
	{"V1", "`Features()` says what it offers: `IdempotencyKeys` with `KeyLifetime` and `ReplaysErrors`; `References` with `SearchLag`; and `LandsWithin`, the longest time after sending at which the vendor may still carry out a request."},
	{"V2", "`Create(ctx, req)` returns the `Payment`, or an error: `*ConnectError` (the connection was never made: nothing was sent), `*TimeoutError` (sent, no answer within the client's timeout) or `*HTTPError` (`Status`, `Code`, `RetryAfter`, and `Replayed` when a keyed vendor answered with a response it saved earlier)."},
	{"V3", "`Search(ctx, reference)` lists the payments carrying that reference, each visible at most `SearchLag` after it was created; `ErrNoSearch` at a vendor without references. A search may fail with an error, having looked nothing up."},
	{"V4", "With keys, the first request under a key that the vendor runs is remembered for `KeyLifetime` (a day here)."},
	{"V5", "A repeat with the same body gets the first answer back (the payment, or with `ReplaysErrors` a saved 5xx)."},
	{"V6", "A repeat while the first is still running gets 409 `idempotency_key_in_use`."},
	{"V7", "A repeat with a different body gets 400."},
	{"V8", "After the lifetime the key is forgotten and a repeat runs as a new payment."},
	{"V9", "408 and 429 mean the vendor did nothing and wants you back after `RetryAfter`."},
	{"V10", "400 and 422 mean it read the request and refused it without running it; nothing is remembered under its key."},
	{"V11", "A 5xx means it tried; the payment may exist. A vendor without `ReplaysErrors` saves no 5xx: a repeat gets the payment if the try created one, and runs afresh if not."},
	{"V12", "Every statement above holds for every kind of vendor except where it names keys or references."},
}

// ruleText is the page's words for rule id; an id the table lacks is a
// bug of this package (TestRuleTablesCiteKnownRules).
func ruleText(id string) string {
	i := slices.IndexFunc(rules, func(r Rule) bool { return r.ID == id })
	if i < 0 {
		panic("createclient: no rule " + id)
	}
	return rules[i].Text
}

// Rules returns the page's rules, in its order.
func Rules() []Rule { return slices.Clone(rules) }

// redeliveryDelay is Q1's 15 minutes, and redeliveries how many times the
// queue hands an operation on.
const (
	redeliveryDelay = 15 * time.Minute
	redeliveries    = 2
)

// exchange is one create request as the vendor handles it: what the
// tables below decide from and write to.
type exchange struct {
	w     *world
	rq    *request
	f     *FaultSpec
	key   string    // the request's key at a vendor with keys, else ""
	k     *keyEntry // what the vendor remembers of key, nil if nothing
	a     answer    // the answer decided
	words string    // the trace's account of the decision
	args  []any
}

// step is one rule as the vendor executes it: when says whether the rule
// decides this request; do carries it out. A step that answers sets
// x.a and returns true; one that returns false lets the next step decide.
type step struct {
	rule string
	when func(x *exchange) bool
	do   func(x *exchange) bool
}

// scriptedStatus is the status the scenario scripts for the request, 0
// for none.
func (x *exchange) scriptedStatus() int {
	if x.f != nil && x.f.Kind == FaultStatus {
		return x.f.Status
	}
	return 0
}

func (x *exchange) say(format string, args ...any) { x.words, x.args = format, args }

// reception decides, in order, what the vendor does with a request that
// reached it: answer it without running anything, or (the last steps)
// run it. A script's answer applies only where the key's rules leave the
// request to be read afresh.
var reception = []step{
	{rule: "V8", when: func(x *exchange) bool {
		return x.k != nil && time.Since(x.k.first) >= x.w.v.KeyLifetime
	}, do: func(x *exchange) bool {
		x.w.run.Trace.AddRule("V8", "vendor", "vendor", "has forgotten %s: it was first used %s ago", x.w.names.key(x.key), time.Since(x.k.first))
		delete(x.w.keys, x.key)
		x.k = nil
		return false
	}},
	{rule: "V7", when: func(x *exchange) bool { return x.k != nil && x.k.body != bodyOf(x.rq.req) }, do: func(x *exchange) bool {
		x.a.err = &createapi.HTTPError{Status: 400, Code: "idempotency_key_reused_with_other_parameters"}
		x.say("refuses request %d with 400: %s was first used with %s", x.rq.n, x.w.names.key(x.key), x.w.names.body(x.k.body))
		return true
	}},
	{rule: "V6", when: func(x *exchange) bool { return x.k != nil && x.k.inFlight }, do: func(x *exchange) bool {
		x.a.err = &createapi.HTTPError{Status: 409, Code: "idempotency_key_in_use"}
		x.say("answers request %d with 409: a request under %s is still running", x.rq.n, x.w.names.key(x.key))
		return true
	}},
	{rule: "V5", when: func(x *exchange) bool { return x.k != nil && x.k.saved != nil }, do: func(x *exchange) bool {
		x.a = *x.k.saved
		if x.a.err != nil {
			e := *x.a.err
			e.Replayed = true
			x.a.err = &e
			x.say("replays the saved %d for %s to request %d; it runs nothing", e.Status, x.w.names.key(x.key), x.rq.n)
		} else {
			x.say("replays %s for %s to request %d; it runs nothing", x.a.pay.ID, x.w.names.key(x.key), x.rq.n)
		}
		return true
	}},
	{rule: "V9", when: func(x *exchange) bool { s := x.scriptedStatus(); return s == 408 || s == 429 }, do: func(x *exchange) bool {
		x.a.err = scripted(x.f)
		x.say("answers request %d with %s; it did nothing", x.rq.n, x.a.err.Error())
		return true
	}},
	{rule: "V10", when: func(x *exchange) bool { s := x.scriptedStatus(); return s == 400 || s == 422 }, do: func(x *exchange) bool {
		x.a.err = scripted(x.f)
		x.say("reads request %d and refuses it with %s without running it", x.rq.n, x.a.err.Error())
		return true
	}},
	{rule: "V4", when: func(x *exchange) bool { return x.key != "" }, do: func(x *exchange) bool {
		x.k = &keyEntry{first: time.Now(), body: bodyOf(x.rq.req), inFlight: true}
		x.w.keys[x.key] = x.k
		x.w.run.Trace.AddRule("V4", "vendor", "vendor", "runs request %d, the first under %s, and remembers the key", x.rq.n, x.w.names.key(x.key))
		return false
	}},
}

// outcome decides, in order, how a request the vendor ran ends.
var outcome = []step{
	{rule: "V11", when: func(x *exchange) bool { return x.scriptedStatus() >= 500 }, do: func(x *exchange) bool {
		x.a.err = scripted(x.f)
		if x.f.Lands {
			p := x.w.create(x.rq.op, x.rq.n, x.rq.req, time.Now())
			x.a.pay = p
			x.say("creates %s for request %d, then fails: %s", p.ID, x.rq.n, x.a.err.Error())
		} else {
			x.say("fails request %d: %s; nothing was created", x.rq.n, x.a.err.Error())
		}
		return true
	}},
	{rule: "V2", when: func(*exchange) bool { return true }, do: func(x *exchange) bool {
		x.a.pay = x.w.create(x.rq.op, x.rq.n, x.rq.req, time.Now())
		x.say("creates %s for request %d", x.a.pay.ID, x.rq.n)
		return true
	}},
}

// keep is what the vendor remembers under the key of a request it ran,
// once it has its answer.
var keep = []step{
	{rule: "V5", when: func(x *exchange) bool { return x.a.err == nil || x.w.v.ReplaysErrors }, do: func(x *exchange) bool {
		a := x.a
		if a.err != nil {
			a.pay = nil
		}
		x.k.inFlight, x.k.saved = false, &a
		return true
	}},
	{rule: "V11", when: func(x *exchange) bool { return x.a.pay != nil }, do: func(x *exchange) bool {
		// The 5xx is not saved; the payment the try created is.
		x.k.inFlight, x.k.saved = false, &answer{pay: x.a.pay}
		return true
	}},
	{rule: "V11", when: func(*exchange) bool { return true }, do: func(x *exchange) bool {
		delete(x.w.keys, x.key)
		return true
	}},
}

// decide runs table on x: the first step whose when holds and whose do
// answers decides; its rule is returned, "" if none did.
func decide(table []step, x *exchange) string {
	for _, s := range table {
		if s.when(x) && s.do(x) {
			return s.rule
		}
	}
	return ""
}

// cite names a rule of the page for evidence whose words already say
// what the rule does: "(rule Q1)".
func cite(id string) string {
	ruleText(id) // an id the table lacks is a bug, found here
	return "(rule " + id + ")"
}
