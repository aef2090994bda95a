package createclient

import (
	"fmt"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

// Invariant ids, as scenarios' checks and the corpus's defect lines name
// them.
const (
	InvNoDuplicate      = "no-duplicate"
	InvUnknownNotFailed = "unknown-not-failed"
	InvOneKey           = "one-key"
	InvPlanBeforeSend   = "plan-before-send"
	InvSameBody         = "same-body"
	InvNoBlindResend    = "no-blind-resend"
	InvSearchSettled    = "search-before-resend"
	InvRetryAfter       = "retry-after"
	InvStopOnRefusal    = "stop-on-refusal"
	InvNoReplayLoop     = "no-replay-loop"
	InvSettles          = "settles"
	InvSettledStays     = "settled-stays"
	InvReturnsRecorded  = "returns-recorded"
	InvErrorsReturned   = "store-errors-returned"
	InvLeaseBound       = "lease-bound"
	InvClaimHeld        = "claim-held"
)

// catalogue is the family's invariants: each judges a property the
// problem page states, never how the reference happens to reach it (its
// key spelling, its backoff, its number of attempts). Prefix marks those
// whose violation, once seen in a run's first events, no later event
// undoes (what was sent, created, claimed or recorded then): not those
// of how the run ends, nor those that read a request's doubt, which
// its answer may still clear (unknown-not-failed, no-blind-resend,
// search-before-resend).
var catalogue = []faultsim.Invariant{
	{ID: InvNoDuplicate, Title: "No operation is created twice",
		Why:    "Two payments for one decision is money sent twice, and getting it back is a support case per customer.",
		Defect: "a resend the vendor cannot recognise as a repeat: a new key per attempt, an expired key, a search that had not caught up, two workers without a claim",
		Check:  checkNoDuplicate, Prefix: true},
	{ID: InvUnknownNotFailed, Title: "An operation is failed only when nothing it sent may have landed and the vendor holds no payment for it",
		Why:    "Failed invites a rerun with a fresh key; if the lost attempt landed, that rerun is the duplicate.",
		Defect: "marking the operation failed after a timeout, a 5xx, a 409, or a refusal that followed one of them",
		Check:  checkUnknownNotFailed},
	{ID: InvOneKey, Title: "Every request for an operation carries the same key (or reference, at a vendor without keys), and no two operations share one",
		Why:    "The vendor recognises a repeat only by its key (or reference): a new one per attempt has the shape of idempotency and none of its effect.",
		Defect: "generating the key inside the retry loop, after a restart, or from the payment's contents",
		Check:  checkOneKey, Prefix: true},
	{ID: InvPlanBeforeSend, Title: "Every request sent is the operation's saved plan, saved before it was sent",
		Why:    "A process that dies after sending must leave its successor the exact request it sent, or the successor cannot repeat it.",
		Defect: "sending before saving the plan, or sending something other than the saved plan",
		Check:  checkPlanBeforeSend, Prefix: true},
	{ID: InvSameBody, Title: "Requests under one key, or for one operation, carry the same body",
		Why:    "A vendor refuses a key reused with other parameters, and a body that drifts between attempts is a different payment.",
		Defect: "rebuilding the body per attempt (an attempt number, a timestamp, a re-read amount)",
		Check:  checkSameBody, Prefix: true},
	{ID: InvNoBlindResend, Title: "Nothing is resent after an uncertain attempt to a vendor with neither keys nor references",
		Why:    "Such a vendor cannot tell a repeat from a new payment, and nothing can show the first attempt did not land.",
		Defect: "retrying a timed-out create at a vendor with neither keys nor references",
		Check:  checkNoBlindResend},
	{ID: InvSearchSettled, Title: "At a vendor with references only, a resend after an uncertain attempt follows an empty search made once that attempt could have landed and shown",
		Why:    "Without keys, an empty search proves absence only once the lost attempt could have landed and the index could show it.",
		Defect: "searching straight after the timeout and creating on a miss, or taking a search that failed for one that found nothing",
		Check:  checkSearchSettled},
	{ID: InvRetryAfter, Title: "After a 408 or 429, the next request for the operation waits at least Retry-After",
		Why:    "Coming back sooner than the vendor asked is refused again and makes the overload worse.",
		Defect: "a fixed short backoff that ignores Retry-After",
		Check:  checkRetryAfter, Prefix: true},
	{ID: InvStopOnRefusal, Title: "After a 400 or 422, the same body is not sent again",
		Why:    "The vendor read the request and said no; the same body gets the same no.",
		Defect: "retrying every error alike",
		Check:  checkStopOnRefusal, Prefix: true},
	{ID: InvNoReplayLoop, Title: "After the vendor replays a saved 5xx, nothing more is sent under that key",
		Why:    "The vendor answers every repeat of the key with the error it saved: resending only replays it, for as long as the key lives, and the doubt stays.",
		Defect: "treating a replayed 5xx as a fresh one and resending until the attempts run out",
		Check:  checkNoReplayLoop, Prefix: true},
	{ID: InvSettledStays, Title: "An operation recorded created or failed is never recorded otherwise afterwards",
		Why:    "Created and failed are what callers and finance act on; rewriting one later (a restart that finds the plan and doubts it again) turns a known payment into a question, or a question into a false answer.",
		Defect: "not checking the operation's status before working on it",
		Check:  checkSettledStays, Prefix: true},
	{ID: InvReturnsRecorded, Title: "A call that returns no error returns the status the store holds: what it recorded, or pending only if it recorded nothing",
		Why:    "The caller acts on the return value: created returned for a payment recorded unknown, or pending for one recorded failed, tells it the wrong story.",
		Defect: "a return value computed apart from what was written to the store",
		Check:  checkReturnsRecorded},
	{ID: InvErrorsReturned, Title: "A call whose store call failed, and that recorded no status after it, returns an error",
		Why:    "The queue hands an operation on only after a call returns an error (rule Q1): a failure swallowed leaves the operation pending, and nothing will ever pick it up again.",
		Defect: "a store error ignored or swallowed: a failed Get, Claim, SavePlan or Finish that the call does not return",
		Check:  checkErrorsReturned},
	{ID: InvLeaseBound, Title: "No claim is taken for more than 15 minutes",
		Why:    "The queue hands a failed call's operation to another worker 15 minutes after it returned (rule Q1); a longer lease refuses that worker, and the operation is left pending.",
		Defect: leaseDefect,
		Check:  checkLeaseBound, Prefix: true},
	{ID: InvClaimHeld, Title: "A worker sends and records only while the claim it took is still its own: no other worker has claimed the operation since",
		Why:    "A lease that runs out while its call goes on lets another worker claim the operation (rule S2); then two workers act on one payment, and each doubt resolved twice can become two payments.",
		Defect: "a lease shorter than the call it covers, never renewed: the call goes on after another worker has taken the operation",
		Check:  checkClaimHeld, Prefix: true},
	{ID: InvSettles, Title: "Every call returns, and the operation ends as the scenario allows: created naming the vendor's payment for it, or the outcome a correct client reaches there (failed after the 422, unknown where nothing can settle the doubt)",
		Why:    "The caller and the reconciliation job act on the recorded status: created must name the payment, and each situation has the outcomes a correct client can reach.",
		Defect: "a status that does not match what happened: created with someone else's payment, failed or pending where it can be known, unknown where waiting or looking would have settled it",
		Judge:  judgeSettles},
}

// InvariantIDs lists the catalogue's ids.
func InvariantIDs() []string {
	ids := []string{faultsim.Returns}
	for _, inv := range catalogue {
		ids = append(ids, inv.ID)
	}
	return ids
}

func worldOf(r *faultsim.Run) *world {
	w, _ := r.World.(*world)
	return w
}

func (rq *request) label() string {
	if rq.n == 0 {
		return "the earlier process's request"
	}
	return fmt.Sprintf("request %d (%s, %s)", rq.n, rq.worker, faultsim.FormatAt(rq.at))
}

// sentFor is the operation's requests that left the client, in order.
func (w *world) sentFor(op string) []*request {
	var out []*request
	for _, rq := range w.requests {
		if rq.op == op && rq.outcome != "connect" {
			out = append(out, rq)
		}
	}
	return out
}

func checkNoDuplicate(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	for _, id := range w.order {
		var made []string
		for _, p := range w.payments {
			if p.op != id {
				continue
			}
			by := "before the run"
			if p.request > 0 {
				by = fmt.Sprintf("by request %d", p.request)
			}
			made = append(made, fmt.Sprintf("%s (%s, %s)", p.ID, by, faultsim.FormatAt(p.CreatedAt.Sub(w.start))))
		}
		if len(made) > 1 {
			ev = append(ev, fmt.Sprintf("%s was created %d times: %s", id, len(made), strings.Join(made, ", ")))
		}
	}
	return ev
}

func checkUnknownNotFailed(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	for _, id := range w.order {
		if w.ops[id].Status != createapi.Failed {
			continue
		}
		for _, p := range w.payments {
			if p.op == id {
				ev = append(ev, fmt.Sprintf("%s is recorded failed, but the vendor holds %s for it", id, p.ID))
			}
		}
		recorded := w.recordedAt(id, createapi.Failed)
		for _, rq := range w.sentFor(id) {
			if !rq.ambiguous {
				continue
			}
			// At a vendor with references, an empty search made once the
			// attempt would have landed and shown is the answer its
			// reply did not give.
			if w.v.References && w.emptySearch(rq.req.Reference, rq.at+w.v.LandsWithin+w.v.SearchLag, recorded) {
				continue
			}
			e := fmt.Sprintf("%s is recorded failed, but %s got no answer that says what happened %s", id, rq.label(), rq.doubtRule())
			if w.v.References {
				e += ", and no search that found nothing, made once it could have landed and shown, says so either"
			}
			ev = append(ev, e)
			break
		}
	}
	return ev
}

// identity is what the vendor recognises a repeat by: the key, or for a
// vendor without keys the reference; "" for a vendor with neither.
func (w *world) identity(req createapi.Request) (what, value string) {
	switch {
	case w.v.Keys:
		return "key", req.IdempotencyKey
	case w.v.References:
		return "reference", req.Reference
	}
	return "", ""
}

func (w *world) identityName(what, v string) string {
	if what == "key" {
		return w.names.key(v)
	}
	return w.names.ref(v)
}

func checkOneKey(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	owner := map[string]string{}
	for _, id := range w.order {
		var seen []string
		for _, rq := range w.sentFor(id) {
			what, v := w.identity(rq.req)
			if what == "" {
				break
			}
			if v == "" {
				ev = append(ev, fmt.Sprintf("%s for %s carried no %s", rq.label(), id, what))
				continue
			}
			if !slices.Contains(seen, v) {
				seen = append(seen, v)
			}
			if o, ok := owner[v]; ok && o != id {
				ev = append(ev, fmt.Sprintf("%s and %s were both sent under %s %s", o, id, what, w.identityName(what, v)))
			}
			owner[v] = id
		}
		if len(seen) > 1 {
			var names []string
			for _, v := range seen {
				names = append(names, w.identityName(w.identity(createapi.Request{IdempotencyKey: v, Reference: v})))
			}
			ev = append(ev, fmt.Sprintf("%s was sent under %d different values: %s", id, len(seen), strings.Join(names, ", ")))
		}
	}
	return ev
}

func checkPlanBeforeSend(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	for _, rq := range w.requests {
		if rq.n == 0 {
			continue
		}
		switch {
		case rq.plan == nil:
			ev = append(ev, fmt.Sprintf("%s for %s was sent before any plan was saved for it", rq.label(), rq.op))
		case rq.plan.Request != rq.req:
			ev = append(ev, fmt.Sprintf("%s for %s sent %s, but the saved plan is %s", rq.label(), rq.op,
				w.names.request(rq.req), w.names.request(rq.plan.Request)))
		}
	}
	return ev
}

func checkSameBody(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	type group struct {
		what, name string
		first      *request
	}
	groups := map[string]*group{}
	for _, rq := range w.requests {
		if rq.outcome == "connect" {
			continue
		}
		keys := []string{"op " + rq.op}
		if what, v := w.identity(rq.req); v != "" {
			keys = append(keys, what+" "+v)
		}
		for _, k := range keys {
			g := groups[k]
			if g == nil {
				groups[k] = &group{first: rq}
				continue
			}
			if bodyOf(g.first.req) != bodyOf(rq.req) {
				subject := strings.SplitN(k, " ", 2)
				label := rq.op
				if subject[0] != "op" {
					label = subject[0] + " " + w.identityName(subject[0], subject[1])
				}
				ev = append(ev, fmt.Sprintf("%s carried %s, but %s for %s carried %s", rq.label(), w.names.body(bodyOf(rq.req)),
					g.first.label(), label, w.names.body(bodyOf(g.first.req))))
			}
		}
	}
	return ev
}

func checkNoBlindResend(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil || w.v.Keys || w.v.References {
		return nil
	}
	var ev []string
	for _, id := range w.order {
		var lost *request
		for _, rq := range w.sentFor(id) {
			if lost != nil {
				ev = append(ev, fmt.Sprintf("%s resent %s after %s got no answer that says what happened", rq.label(), id, lost.label()))
				break
			}
			if rq.ambiguous {
				lost = rq
			}
		}
	}
	return ev
}

func checkSearchSettled(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil || w.v.Keys || !w.v.References {
		return nil
	}
	var ev []string
	settle := w.v.LandsWithin + w.v.SearchLag
	for _, id := range w.order {
		var lost *request
		for _, rq := range w.sentFor(id) {
			if lost != nil {
				if !w.emptySearch(rq.req.Reference, lost.at+settle, rq.at) {
					e := fmt.Sprintf("%s resent %s after %s got no answer, with no empty search for its reference from %s on (when that attempt would have landed and shown: rules V1, V3)",
						rq.label(), id, lost.label(), faultsim.FormatAt(lost.at+settle))
					switch n := w.failedSearches(rq.req.Reference, lost.at, rq.at); {
					case n == 1:
						e += "; the search made in between failed, and a failed search looked nothing up (rule V3)"
					case n > 1:
						e += fmt.Sprintf("; the %d searches made in between failed, and a failed search looked nothing up (rule V3)", n)
					}
					ev = append(ev, e)
					break
				}
			}
			if rq.ambiguous {
				lost = rq
			}
		}
	}
	return ev
}

func checkRetryAfter(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	for i, rq := range w.requests {
		if rq.status != 408 && rq.status != 429 || rq.retry <= 0 {
			continue
		}
		for _, next := range w.requests[i+1:] {
			if next.op != rq.op {
				continue
			}
			if next.at < rq.answeredAt+rq.retry {
				ev = append(ev, fmt.Sprintf("%s got %d with Retry-After %s at %s, and %s came %s later %s", rq.label(), rq.status, rq.retry,
					faultsim.FormatAt(rq.answeredAt), next.label(), next.at-rq.answeredAt, cite("V9")))
			}
			break
		}
	}
	return ev
}

func checkStopOnRefusal(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	for i, rq := range w.requests {
		if rq.status != 400 && rq.status != 422 {
			continue
		}
		for _, next := range w.requests[i+1:] {
			if next.op == rq.op && bodyOf(next.req) == bodyOf(rq.req) {
				ev = append(ev, fmt.Sprintf("%s was refused with %d, and %s sent the same body again %s", rq.label(), rq.status, next.label(), cite("V10")))
				break
			}
		}
	}
	return ev
}

func checkNoReplayLoop(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil || !w.v.Keys {
		return nil
	}
	var ev []string
	for i, rq := range w.requests {
		if !rq.replayed || rq.req.IdempotencyKey == "" {
			continue
		}
		for _, next := range w.requests[i+1:] {
			if next.op == rq.op && next.req.IdempotencyKey == rq.req.IdempotencyKey && next.at >= rq.answeredAt {
				ev = append(ev, fmt.Sprintf("%s got %d replayed from %s, and %s sent it again under that key, where it can only be replayed again %s",
					rq.label(), rq.status, w.names.key(rq.req.IdempotencyKey), next.label(), cite("V5")))
				break
			}
		}
		if len(ev) > 0 {
			break
		}
	}
	return ev
}

func checkSettles(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	for _, id := range w.order {
		op := w.ops[id]
		if want, ok := w.sc.Expect[id]; ok && !slices.Contains(want, string(op.Status)) {
			ev = append(ev, fmt.Sprintf("%s ends %s; here a correct client leaves it %s", id, op.Status, strings.Join(want, " or ")))
		}
		if op.Status != createapi.Created {
			continue
		}
		held := slices.ContainsFunc(w.payments, func(p *payment) bool { return p.ID == op.PaymentID && p.op == id })
		if !held {
			ev = append(ev, fmt.Sprintf("%s is recorded created with %q, which is not a payment the vendor holds for it", id, op.PaymentID))
		}
	}
	return ev
}

func checkSettledStays(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	for _, f := range w.finishes {
		if (f.from == createapi.Created || f.from == createapi.Failed) && (f.to != f.from || f.toPay != f.fromPay) {
			ev = append(ev, fmt.Sprintf("%s, already %s, was recorded %s by %s at %s", f.op, f.from, f.to, f.worker, faultsim.FormatAt(f.at)))
		}
	}
	return ev
}

func checkReturnsRecorded(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	for _, c := range w.returns {
		switch {
		case c.failed:
		case c.returned == createapi.Pending && c.recorded:
			ev = append(ev, fmt.Sprintf("%s's call recorded %s as %s and returned pending", c.worker, c.op, c.stored))
		case c.returned != createapi.Pending && c.returned != c.stored:
			ev = append(ev, fmt.Sprintf("%s's call returned %s while the store holds %s for %s", c.worker, c.returned, c.stored, c.op))
		}
	}
	return ev
}

func checkErrorsReturned(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	var ev []string
	for _, c := range w.returns {
		if c.failed || c.refused || c.storeFailed == "" || c.stored != createapi.Pending {
			continue
		}
		ev = append(ev, fmt.Sprintf("%s's call of %s returned %s with no error at %s, though its %s failed and it recorded nothing after: %s is still pending, and the queue hands an operation on only after an error %s",
			c.worker, c.op, c.returned, faultsim.FormatAt(c.at), c.storeFailed, c.op, cite("Q1")))
	}
	return ev
}

// redelivers reports whether the scenario has the queue hand an
// operation on (Q1), where the lease's bound decides who may work on it.
func (w *world) redelivers() bool {
	return slices.ContainsFunc(w.sc.Calls, func(c CallSpec) bool { return c.Redelivery })
}

func checkLeaseBound(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil || !w.redelivers() {
		return nil
	}
	for _, l := range w.leases {
		if l.lease > redeliveryDelay {
			return []string{fmt.Sprintf("%s claimed %s for %s at %s, more than the 15 minutes after which the queue hands a failed call's operation to another worker %s",
				l.worker, l.op, l.lease, faultsim.FormatAt(l.at), cite("Q1"))}
		}
	}
	return nil
}

// judgeSettles is checkSettles naming the lease as the defect when a
// worker the queue handed the operation to was refused its claim.
func judgeSettles(r *faultsim.Run) ([]string, string) {
	ev := checkSettles(r)
	w := worldOf(r)
	if len(ev) == 0 || w == nil || !w.redelivers() {
		return ev, ""
	}
	for _, c := range w.returns {
		if c.refused && slices.ContainsFunc(w.sc.Calls, func(s CallSpec) bool { return s.Redelivery && s.Worker == c.worker }) {
			for _, l := range w.leases {
				if l.op == c.op && l.lease > redeliveryDelay {
					return append(ev, fmt.Sprintf("%s, to whom the queue handed %s, was refused its claim: %s still held it %s",
						c.worker, c.op, l.worker, cite("Q1"))), leaseDefect
				}
			}
		}
	}
	return ev, ""
}

const leaseDefect = "a claim's lease longer than the 15 minutes after which the queue hands the operation on"

// doubtRule cites the rule that leaves an ambiguous request in doubt.
func (rq *request) doubtRule() string {
	switch {
	case rq.n == 0:
		return "(an earlier process sent it and lost the answer)"
	case rq.status >= 500:
		return cite("V11")
	}
	return cite("V2")
}

func checkClaimHeld(r *faultsim.Run) []string {
	w := worldOf(r)
	if w == nil {
		return nil
	}
	for _, rq := range w.requests {
		if rq.n > 0 && rq.holder != "" && rq.holder != rq.worker {
			return []string{fmt.Sprintf("%s was sent while %s held the claim on %s: %s's own lease had run out %s",
				rq.label(), rq.holder, rq.op, rq.worker, cite("S2"))}
		}
	}
	for _, f := range w.finishes {
		if f.holder != "" && f.holder != f.worker {
			return []string{fmt.Sprintf("%s recorded %s as %s at %s while %s held the claim on it: %s's own lease had run out %s",
				f.worker, f.op, f.to, faultsim.FormatAt(f.at), f.holder, f.worker, cite("S2"))}
		}
	}
	return nil
}
