package refund

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// maxRequestsPerCall bounds the provider requests of one invocation.
const maxRequestsPerCall = 10

// at prints a virtual offset as the trace does: "+10.4s".
func at(d time.Duration) string { return "+" + world.FormatDuration(d) }

// runFacts is what the invariants look at for one request of one run.
type runFacts struct {
	sc       *Scenario
	r        *run
	id       string
	seed     *RecordSeed
	final    refundkit.Record
	hasFinal bool
	invs     []*invocation // the invocations for this request
	requests []world.Request
	refunds  []world.Applied // refunds that belong to this request
	changes  []world.Change
	reads    []world.Read
	lookups  []world.Lookup
	// byWorker is requestsOf's answer, per worker, made on first use: the
	// invariants ask it of every invocation, many times a run.
	byWorker map[string][]world.Request
}

func (f *runFacts) invOf(worker string) *invocation {
	for _, iv := range f.invs {
		if iv.Worker == worker {
			return iv
		}
	}
	return nil
}

// requestsOf is worker's requests, in order. Callers only read it.
func (f *runFacts) requestsOf(worker string) []world.Request {
	if out, ok := f.byWorker[worker]; ok {
		return out
	}
	var out []world.Request
	for _, q := range f.requests {
		if q.Worker == worker {
			out = append(out, q)
		}
	}
	if f.byWorker == nil {
		f.byWorker = map[string][]world.Request{}
	}
	f.byWorker[worker] = out
	return out
}

// gather collects the facts about request id from a finished run.
func gather(sc *Scenario, r *run, id string) *runFacts {
	f := &runFacts{sc: sc, r: r, id: id}
	for k := range sc.Records {
		if sc.Records[k].RequestID == id {
			f.seed = &sc.Records[k]
		}
	}
	f.final, f.hasFinal = r.env.Store().Lookup(id)
	workers := map[string]bool{}
	for _, iv := range r.invs {
		if iv.RequestID == id {
			f.invs = append(f.invs, iv)
			workers[iv.Worker] = true
		}
	}
	for _, q := range r.env.Provider().Requests() {
		if workers[q.Worker] {
			f.requests = append(f.requests, q)
		}
	}
	chargeID := ""
	if f.seed != nil {
		chargeID = f.seed.ChargeID
	}
	for _, a := range r.env.Provider().Ledger() {
		if a.Preexisting {
			if a.ForRequest == id {
				f.refunds = append(f.refunds, a)
			}
			continue
		}
		if workers[a.Worker] && (chargeID == "" || a.Refund.Charge == chargeID) {
			f.refunds = append(f.refunds, a)
		}
	}
	for _, c := range r.env.Store().Changes() {
		if c.RequestID == id {
			f.changes = append(f.changes, c)
		}
	}
	for _, rd := range r.env.Store().Reads() {
		if rd.RequestID == id {
			f.reads = append(f.reads, rd)
		}
	}
	for _, l := range r.env.Provider().Lookups() {
		if workers[l.Worker] && (chargeID == "" || l.Charge == chargeID) {
			f.lookups = append(f.lookups, l)
		}
	}
	return f
}

// requestIDs are the requests the run's calls were about, in the order
// of the calls.
func requestIDs(r *run) []string {
	if r.ids != nil {
		return r.ids
	}
	ids := []string{}
	seen := map[string]bool{}
	for _, iv := range r.invs {
		if !seen[iv.RequestID] {
			seen[iv.RequestID] = true
			ids = append(ids, iv.RequestID)
		}
	}
	r.ids = ids
	return ids
}

// judge evaluates invariant c on one run, request by request: the first
// request that breaks it gives the evidence, and the defect when the
// evidence names one better than the scenario does.
func judge(sc *Scenario, r *run, c invariant) (msg, defect string) {
	for _, id := range requestIDs(r) {
		f := r.facts(sc, id)
		msg := c.Check(f)
		if msg == "" {
			continue
		}
		if c.ID == InvNoDoubleRefund {
			defect = doubleRefundDefect(f)
		}
		// A cause the run's own facts show outranks the scenario's guess.
		if words := leaseOverBound(f); words != "" && leaseBoundMatters[c.ID] {
			return msg + ". " + words, DefectLeaseTooLong
		}
		if words := neverResent(f); words != "" && c.ID == InvExpectedEndState {
			return msg + ". " + words, DefectNeverResends
		}
		if c.ID == InvExpectedEndState && tooManyRefunds(f) && len(f.refunds) >= 2 {
			// Refunding twice: blame what no-double-refund would.
			if defect = doubleRefundDefect(f); defect == "" {
				defect = sc.defectFor(InvNoDoubleRefund)
			}
		} else if c.ID == InvExpectedEndState && sc.Defects[c.ID] == "" {
			defect = endStateDefect(f)
		} else if c.ID == InvExclusiveClaim && actedPastLease(f) != "" {
			// A run that acts once its own lease has run out had a lease
			// shorter than itself, whatever else the claim allowed.
			defect = DefectLeaseTooShort
		}
		return msg, defect
	}
	return "", ""
}

func describeApplied(a world.Applied, f *runFacts) string {
	if a.Preexisting && !a.Refund.Created.Before(f.r.env.Start()) {
		s := fmt.Sprintf("%s landed at %s from a request sent before this run", a.Refund.ID, at(a.Refund.Created.Sub(f.r.env.Start())))
		if a.Key != "" {
			s += " under key " + a.Key
		}
		return s
	}
	if a.Preexisting {
		ago := f.r.env.Start().Sub(a.Refund.Created)
		s := fmt.Sprintf("%s made %s before this run", a.Refund.ID, world.FormatDuration(ago))
		if a.Key != "" {
			s += " under key " + a.Key
		}
		return s
	}
	for _, q := range f.requests {
		if q.N == a.Request {
			return fmt.Sprintf("%s by %s's request #%d with %s at %s", a.Refund.ID, q.Worker, q.N, keyWords(q), at(q.SentAt))
		}
	}
	return a.Refund.ID
}

func keyWords(q world.Request) string {
	if q.KeyGenerated {
		return "no key (the client made " + q.Key + ")"
	}
	return "key " + q.Key
}

func checkNoDoubleRefund(f *runFacts) string {
	if len(f.refunds) < 2 {
		return ""
	}
	var parts []string
	for _, a := range f.refunds {
		parts = append(parts, describeApplied(a, f))
	}
	return fmt.Sprintf("the provider holds %d refunds for %s: %s", len(f.refunds), f.id, strings.Join(parts, "; "))
}

// doubleRefundDefect names the defect behind a double refund when the
// evidence is clear: one worker refunding twice under different keys has
// no stable idempotency key, whatever the scenario was about.
func doubleRefundDefect(f *runFacts) string {
	byWorker := map[string]string{}
	for _, a := range f.refunds {
		if a.Preexisting {
			continue
		}
		if k, ok := byWorker[a.Worker]; ok && k != a.Key {
			return DefectNoIdempotencyKey
		}
		byWorker[a.Worker] = a.Key
	}
	return ""
}

func checkDoneMeansRefunded(f *runFacts) string {
	if f.seed == nil {
		return ""
	}
	for _, c := range f.changes {
		if c.New != refundkit.StatusDone {
			continue
		}
		var wrong []string
		ok := false
		for _, a := range f.refunds {
			created := a.Refund.Created.Sub(f.r.env.Start())
			if created > c.At {
				continue
			}
			if a.Refund.Amount == f.seed.Amount {
				ok = true
			} else {
				wrong = append(wrong, fmt.Sprintf("%s of %d", a.Refund.ID, a.Refund.Amount))
			}
		}
		if ok {
			continue
		}
		if len(wrong) > 0 {
			return fmt.Sprintf("%s marked %s done at %s, but the refunds the provider held were %s, not %d", c.Worker, f.id, at(c.At), strings.Join(wrong, ", "), f.seed.Amount)
		}
		return fmt.Sprintf("%s marked %s done at %s, but the provider had applied no refund for it", c.Worker, f.id, at(c.At))
	}
	return ""
}

func checkRefundRecorded(f *runFacts) string {
	if len(f.refunds) == 0 || !f.hasFinal {
		return ""
	}
	if f.final.Status == refundkit.StatusDone || f.final.Status == refundkit.StatusNeedsCheck {
		return ""
	}
	a := f.refunds[len(f.refunds)-1]
	state := string(f.final.Status)
	if f.final.Status == refundkit.StatusProcessing {
		state += " (held by " + f.final.Owner + ")"
	}
	return fmt.Sprintf("refund %s was applied, but %s ended %s", describeApplied(a, f), f.id, state)
}

func (f *runFacts) liveOwner(owner string, now time.Time) bool {
	if iv := f.invOf(owner); iv != nil {
		return false // the scenario's invocations have all ended by the end of the run
	}
	if f.seed != nil && f.seed.Owner == owner && f.seed.OwnerAlive {
		return f.final.LeaseUntil.IsZero() || now.Before(f.final.LeaseUntil)
	}
	return false
}

func checkNoStuckProcessing(f *runFacts) string {
	for _, iv := range f.invs {
		if (iv.ended == endReturned || iv.ended == endPanicked) && iv.hadAtEnd &&
			iv.atEnd.Status == refundkit.StatusProcessing && iv.atEnd.Owner == iv.Worker {
			return fmt.Sprintf("%s %s at %s and left %s in processing, claimed by itself", iv.Worker, iv.ended, at(iv.endedAt), f.id)
		}
	}
	if !f.hasFinal || f.final.Status != refundkit.StatusProcessing {
		return ""
	}
	iv := f.invOf(f.final.Owner)
	if iv == nil {
		return ""
	}
	if iv.ended == endCrashed && f.final.LeaseUntil.IsZero() {
		return fmt.Sprintf("%s ended in processing, held with no lease by %s, whose process died (%s): no one can ever take it over", f.id, iv.Worker, iv.worker.Died)
	}
	if iv.ended == endReturned || iv.ended == endPanicked {
		return fmt.Sprintf("%s ended in processing, held by %s, which had %s", f.id, iv.Worker, iv.ended)
	}
	return ""
}

// ambiguous reports whether what the caller got leaves the refund's fate
// unknown: a timeout, a 5xx, a 409 in flight.
func ambiguous(q world.Request) bool {
	switch q.Result {
	case "timeout":
		return true
	case "api":
		return q.APIErr != nil && (q.APIErr.Status >= 500 || q.APIErr.Status == 409)
	}
	return false
}

func checkUnknownNotFailed(f *runFacts) string {
	for _, c := range f.changes {
		if c.New != refundkit.StatusFailed {
			continue
		}
		for _, a := range f.refunds {
			if a.Refund.Created.Sub(f.r.env.Start()) <= c.At {
				return fmt.Sprintf("%s marked %s failed at %s, though refund %s had been applied", c.Worker, f.id, at(c.At), describeApplied(a, f))
			}
		}
		var last *world.Request
		for k := range f.requests {
			q := f.requests[k]
			if q.Worker == c.Worker && ambiguous(q) && q.AnsweredAt <= c.At {
				last = &f.requests[k]
			}
		}
		if last == nil || settledByKey(f, *last, c.At) {
			continue
		}
		looked := false
		for _, l := range f.lookups {
			if !l.Failed && l.Worker == c.Worker && l.At >= last.AnsweredAt && l.At <= c.At {
				looked = true
			}
		}
		if !looked {
			return fmt.Sprintf("%s marked %s failed at %s after request #%d got %s at %s: the refund may have happened, so the outcome is unknown (needs_check) unless a ListRefunds look-up after it shows no refund, or a resend under the same key is refused by validation (a request under the key still running would get 409, one finished its saved answer)",
				c.Worker, f.id, at(c.At), last.N, answerWords(*last), at(last.AnsweredAt))
		}
	}
	return ""
}

// settledByKey reports whether a later request under the key of the
// ambiguous request q, answered before at, proves by the page's rules that
// no request under that key ran to a refund: it got past the idempotency
// layer to validation or to a decision of the charge (P3, P10, P11, P12),
// or got a saved error back (P2), where a request under the key still
// running would have got 409 (P7) and one that refunded its saved success
// (P5). Within the key's lifetime only (P9).
func settledByKey(f *runFacts, q world.Request, at time.Duration) bool {
	for _, r := range f.requests {
		if r.N <= q.N || r.Key != q.Key || r.Result != "api" || r.APIErr == nil || r.AnsweredAt > at {
			continue
		}
		if r.SentAt-q.SentAt >= world.DefaultNetwork.KeyTTL {
			continue
		}
		switch r.Rule {
		case "P3", "P10", "P11", "P12":
			if r.APIErr.Status != 401 {
				return true
			}
		case "P2":
			return r.APIErr.Status < 500
		}
	}
	return false
}

func answerWords(q world.Request) string {
	switch q.Result {
	case "timeout":
		return "no reply (a timeout)"
	case "connection":
		return "a connection error"
	case "api":
		e := q.APIErr
		s := fmt.Sprintf("%d %s", e.Status, e.Type)
		if e.Code != "" {
			s += " (" + e.Code + ")"
		}
		if e.Replayed {
			s += ", replayed"
		}
		return s
	}
	return "success"
}

// checkSameKey compares the keys the submission's workers sent. Keys in
// the world's history are not the submission's: a refund made before the
// run is the world's doing, whatever key it carries.
func checkSameKey(f *runFacts) string {
	distinct := map[string]bool{}
	for _, q := range f.requests {
		distinct[q.Key] = true
	}
	if len(distinct) < 2 {
		return ""
	}
	// Each key once, with the requests that carried it, so the keys that
	// differ are all in view however many requests repeat one of them.
	var order []string
	sentWith := map[string][]string{}
	for _, q := range f.requests {
		if _, ok := sentWith[q.Key]; !ok {
			order = append(order, q.Key)
		}
		sentWith[q.Key] = append(sentWith[q.Key], fmt.Sprintf("#%d by %s", q.N, q.Worker))
	}
	var parts []string
	for k, key := range order {
		if k == 6 {
			parts = append(parts, fmt.Sprintf("and %d more", len(order)-k))
			break
		}
		reqs := sentWith[key]
		if len(reqs) > 3 {
			reqs = append(reqs[:2:2], fmt.Sprintf("%d more", len(sentWith[key])-2))
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", key, strings.Join(reqs, ", ")))
	}
	return fmt.Sprintf("%s was sent under %d different keys: %s. A key marks one request (rule P1): a resend under a new key is a new refund", f.id, len(distinct), strings.Join(parts, "; "))
}

// definitive reports whether an answer is a 4xx the page calls definitive:
// one that will not change on a resend. 409 and 429 are not, and neither
// is 401: the page lets a run retry a refused API key within its bound of
// requests (nothing ran, and nothing is saved under the key), as it may
// stop at once.
func definitive(q world.Request) bool {
	return q.Result == "api" && q.APIErr != nil && q.APIErr.Status >= 400 && q.APIErr.Status < 500 &&
		q.APIErr.Status != 409 && q.APIErr.Status != 429 && q.APIErr.Status != 401
}

func checkPermanentNotRetried(f *runFacts) string {
	for _, iv := range f.invs {
		qs := f.requestsOf(iv.Worker)
		for k := 0; k+1 < len(qs); k++ {
			if definitive(qs[k]) {
				return fmt.Sprintf("request #%d got %s, a definitive answer, yet %s sent #%d at %s", qs[k].N, answerWords(qs[k]), iv.Worker, qs[k+1].N, at(qs[k+1].SentAt))
			}
		}
	}
	return ""
}

// gaps are the waits of one invocation between an answer and the next
// request; retryAfter[k] is what the answer before gap k asked for, and
// judged[k] is false when the caller sent the next request before the
// answer came back (it gave up on the request itself, with a timeout of
// its own, so the wait cannot be seen from here).
//
// Requests sent once the caller's context had ended are not judged
// either: the client refuses them before they leave, so they put no load
// on the provider however soon they follow.
func gaps(iv *invocation, qs []world.Request) (waits, retryAfter []time.Duration, judged []bool) {
	defer func() {
		if iv.ctxEnds == "" {
			return
		}
		for k := range judged {
			if qs[k+1].SentAt >= iv.ctxEndsAt {
				judged[k] = false
			}
		}
	}()
	for k := 0; k+1 < len(qs); k++ {
		waits = append(waits, qs[k+1].SentAt-qs[k].AnsweredAt)
		var ra time.Duration
		if qs[k].APIErr != nil {
			ra = qs[k].APIErr.RetryAfter
		}
		retryAfter = append(retryAfter, ra)
		judged = append(judged, qs[k].Result != "" && qs[k].AnsweredAt <= qs[k+1].SentAt)
	}
	return waits, retryAfter, judged
}

// checkBackoff judges each wait of one run on its own: positive, and never
// shorter than a Retry-After. Whether waits grow and carry jitter is a
// property of many runs: see envelopeCheck.
func checkBackoff(f *runFacts) string {
	for _, iv := range f.invs {
		qs := f.requestsOf(iv.Worker)
		waits, ras, judged := gaps(iv, qs)
		for k, w := range waits {
			if !judged[k] {
				continue
			}
			if w <= 0 {
				return fmt.Sprintf("%s sent #%d %s after #%d failed (%s): no wait at all", iv.Worker, qs[k+1].N, world.FormatDuration(w), qs[k].N, answerWords(qs[k]))
			}
			if ras[k] > 0 && w < ras[k] {
				return fmt.Sprintf("%s waited %s after #%d got %s, which asked for Retry-After %s", iv.Worker, world.FormatDuration(w), qs[k].N, answerWords(qs[k]), world.FormatDuration(ras[k]))
			}
		}
	}
	if msg := checkOwnTimeout(f); msg != "" {
		return msg
	}
	return checkLookupBackoff(f)
}

// minOwnTimeout is the page's bound on a timeout of the code's own (a
// context deadline, a select on a timer): a normal answer takes 200 ms,
// a slow one up to 30 s.
const minOwnTimeout = time.Second

// checkOwnTimeout finds a timeout of the call's own shorter than the
// page's bound, judged only where it is certain: a timeout is made no
// sooner than the call starts, so a deadline (not the caller's) less than
// the bound after the start, or a request given up (the next one sent
// before its answer came) less than the bound after the start, was
// shorter than the bound.
func checkOwnTimeout(f *runFacts) string {
	for _, iv := range f.invs {
		callers := func(t time.Duration) bool { return iv.ctxEnds != "" && t >= iv.ctxEndsAt }
		qs := f.requestsOf(iv.Worker)
		for k, q := range qs {
			if q.Result == "connection" {
				continue
			}
			if q.Deadline > 0 && !callers(q.Deadline) && q.Deadline-iv.startedAt < minOwnTimeout {
				return fmt.Sprintf("%s sent request #%d at %s with a deadline of its own at %s, %s after the call began: a timeout of your own must be at least %s (a normal answer takes 200 ms, a slow one up to 30 s)",
					iv.Worker, q.N, at(q.SentAt), at(q.Deadline), world.FormatDuration(q.Deadline-iv.startedAt), world.FormatDuration(minOwnTimeout))
			}
			if k+1 < len(qs) {
				next := qs[k+1]
				if next.SentAt < q.AnsweredAt && !callers(next.SentAt) && next.SentAt-iv.startedAt < minOwnTimeout {
					return fmt.Sprintf("%s gave up on request #%d and sent #%d at %s, %s after the call began, before #%d's answer came: a timeout of your own must be at least %s (a normal answer takes 200 ms, a slow one up to 30 s)",
						iv.Worker, q.N, next.N, at(next.SentAt), world.FormatDuration(next.SentAt-iv.startedAt), q.N, world.FormatDuration(minOwnTimeout))
				}
			}
		}
	}
	return ""
}

// checkLookupBackoff judges look-ups as checkBackoff judges refund
// requests: a look-up that failed is asked again only after a wait.
func checkLookupBackoff(f *runFacts) string {
	for _, iv := range f.invs {
		var prev *world.Lookup
		for k := range f.lookups {
			l := &f.lookups[k]
			if l.Worker != iv.Worker {
				continue
			}
			ended := iv.ctxEnds != "" && l.SentAt >= iv.ctxEndsAt
			if prev != nil && prev.Failed && !ended && l.SentAt == prev.At {
				return fmt.Sprintf("%s asked ListRefunds again at %s, the instant the look-up before it failed: no wait at all", iv.Worker, at(l.SentAt))
			}
			prev = l
		}
	}
	return ""
}

func durations(ds []time.Duration) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, world.FormatDuration(d))
	}
	return strings.Join(parts, ", ")
}

// What envelopeCheck needs to judge growth. The ceiling of a jittered wait
// is seen as the longest of many draws: with 16 draws or more, a ceiling
// that doubles is seen growing by far more than minGrowth, even for full
// jitter over three attempts (the chance that it does not is below 1 in
// 10,000), while a ceiling that stays put shows no growth at all.
const (
	envelopeProcesses = 16
	minGrowth         = 1.10
)

// envelopeCheck judges the waits of all the scenario's runs together, one
// sequence per process (a worker of a run with its own seed: crash runs
// that share a seed are one process, not several). Waits after a
// Retry-After, or that the caller measured itself, are left out.
//
//   - Jitter: when two or more processes waited, their waits must not all
//     be the same, or workers that failed together retry together.
//   - Growth: with at least envelopeProcesses processes, the longest wait
//     after the last retry most of them made must exceed the longest wait
//     after the first by minGrowth: the ceiling grows, as exponential
//     backoff's does under full, equal or decorrelated jitter alike.
func envelopeCheck(runs []*run) string {
	type process struct {
		label string
		waits []time.Duration // -1: not judged
	}
	var procs []process
	type processID struct {
		seed   int64
		worker string
	}
	seen := map[processID]bool{}
	for _, r := range runs {
		if r.env == nil {
			continue
		}
		requests := r.env.Provider().Requests()
		for _, iv := range r.invs {
			id := processID{r.seed, iv.Worker}
			if seen[id] {
				continue
			}
			var qs []world.Request
			for _, q := range requests {
				if q.Worker == iv.Worker {
					qs = append(qs, q)
				}
			}
			waits, ras, judged := gaps(iv, qs)
			if len(waits) == 0 {
				continue
			}
			seen[id] = true
			p := process{label: fmt.Sprintf("%s with seed %d", iv.Worker, r.seed)}
			for k, w := range waits {
				if ras[k] > 0 || !judged[k] {
					w = -1
				}
				p.waits = append(p.waits, w)
			}
			procs = append(procs, p)
		}
	}
	if len(procs) >= 2 {
		same := true
		for _, p := range procs[1:] {
			if durations(p.waits) != durations(procs[0].waits) {
				same = false
				break
			}
		}
		if same {
			return fmt.Sprintf("the waits were exactly the same in %d processes with different random seeds (%s, ...): %s. No jitter: workers that failed together retry together",
				len(procs), procs[0].label, durations(procs[0].waits))
		}
	}
	if len(procs) < envelopeProcesses {
		return ""
	}
	var ceiling []time.Duration
	var count []int
	for _, p := range procs {
		for k, w := range p.waits {
			for len(ceiling) <= k {
				ceiling, count = append(ceiling, -1), append(count, 0)
			}
			if w >= 0 {
				count[k]++
				if w > ceiling[k] {
					ceiling[k] = w
				}
			}
		}
	}
	first, last := -1, -1
	for k := range ceiling {
		if count[k]*2 >= len(procs) {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	if first < 0 || last == first {
		return ""
	}
	if float64(ceiling[last]) < minGrowth*float64(ceiling[first]) {
		return fmt.Sprintf("over %d processes with different random seeds, the longest wait after retry %d was %s and after retry %d %s: the ceiling of the waits does not grow (backoff is exponential: each wait's ceiling above the last)",
			len(procs), first+1, world.FormatDuration(ceiling[first]), last+1, world.FormatDuration(ceiling[last]))
	}
	return ""
}

func checkBoundedAttempts(f *runFacts) string {
	for _, iv := range f.invs {
		if n := len(f.requestsOf(iv.Worker)); n > maxRequestsPerCall {
			return fmt.Sprintf("%s sent %d refund requests in one call (at most %d)", iv.Worker, n, maxRequestsPerCall)
		}
		if iv.ended == endDidNotReturn {
			switch f.r.stopped {
			case stoppedSteps:
				return fmt.Sprintf("%s had not returned when the run had made %d harness calls at one instant, %s, without virtual time passing: a loop that never waits",
					iv.Worker, maxStepsAtInstant, at(f.r.stoppedAt))
			case stoppedTotalSteps:
				return fmt.Sprintf("%s had not returned when the run had made %d harness calls in all, over %s of virtual time: a loop that retries far too often",
					iv.Worker, maxSteps, world.FormatDuration(f.r.stoppedAt))
			}
			return fmt.Sprintf("%s had not returned when the run's budget of %s of virtual time ran out", iv.Worker, world.FormatDuration(f.sc.budget()))
		}
	}
	if f.r.deadlock != "" {
		return "the run ended with goroutines blocked forever (" + f.r.deadlock + ")"
	}
	return ""
}

func checkMissingRecordClear(f *runFacts) string {
	if f.seed != nil {
		return ""
	}
	for _, iv := range f.invs {
		switch {
		case iv.ended == endPanicked:
			return fmt.Sprintf("%s panicked on the missing record: %s", iv.Worker, iv.panicMsg)
		case iv.ended != endReturned:
			continue
		case iv.outcome == refundkit.OutcomeDone:
			return fmt.Sprintf("%s returned done for a record that does not exist", iv.Worker)
		case iv.err == nil:
			return fmt.Sprintf("%s returned %q and no error for a record that does not exist", iv.Worker, iv.outcome)
		}
		if qs := f.requestsOf(iv.Worker); len(qs) > 0 {
			return fmt.Sprintf("%s called the provider (request #%d at %s) for a record that does not exist", iv.Worker, qs[0].N, at(qs[0].SentAt))
		}
	}
	return ""
}

func checkOutcomeMatchesState(f *runFacts) string {
	for _, iv := range f.invs {
		if iv.ended == endPanicked && !f.scripted(iv.panicMsg) {
			return fmt.Sprintf("%s panicked (%s): its caller gets no outcome at all", iv.Worker, iv.panicMsg)
		}
		if iv.ended != endReturned {
			continue
		}
		if iv.outcome == "" {
			if iv.err == nil {
				return fmt.Sprintf("%s returned an empty outcome and no error", iv.Worker)
			}
			continue
		}
		st := refundkit.Status("(no record)")
		if iv.hadAtEnd {
			st = iv.atEnd.Status
		}
		// What the call last knew of the record, by its last read or
		// write: another worker may change the record between that and
		// the return (while the call logs, say), and the outcome is then
		// still the truth the call knew.
		seen, hasSeen := f.lastSeen(iv.Worker)
		is := func(want refundkit.Status) bool { return st == want || hasSeen && seen.rec.Status == want }
		heldByAnother := func(rec refundkit.Record, t time.Duration, seq int) bool {
			return rec.Status == refundkit.StatusProcessing && rec.Owner != iv.Worker && f.ownerAliveAt(rec, t, seq)
		}
		ok := false
		switch iv.outcome {
		case refundkit.OutcomeDone:
			ok = is(refundkit.StatusDone)
		case refundkit.OutcomeFailed:
			ok = is(refundkit.StatusFailed)
		case refundkit.OutcomeUnknown:
			ok = is(refundkit.StatusNeedsCheck)
		case refundkit.OutcomeInProgress:
			ok = st == refundkit.StatusProcessing && heldByAnother(iv.atEnd, iv.endedAt, iv.endSeq) ||
				hasSeen && seen.read && heldByAnother(seen.rec, seen.at, seen.seq)
			if st == refundkit.StatusProcessing && !ok {
				return fmt.Sprintf("%s returned in_progress at %s, but %s was held by %s, which is no longer working on it", iv.Worker, at(iv.endedAt), f.id, describeOwner(iv.atEnd))
			}
		default:
			return fmt.Sprintf("%s returned %q, which is none of done, failed, unknown, in_progress", iv.Worker, iv.outcome)
		}
		if !ok {
			return fmt.Sprintf("%s returned %s at %s, but %s was %s", iv.Worker, iv.outcome, at(iv.endedAt), f.id, st)
		}
	}
	return ""
}

// sighting is the record as one store call of a worker left it known to
// the worker: status and claim, when, and whether the call read it (a
// GetRecord, a refused Claim) or wrote it.
type sighting struct {
	rec  refundkit.Record
	at   time.Duration
	seq  int
	read bool
}

// lastSeen is the record as worker's last store call left it known.
func (f *runFacts) lastSeen(worker string) (sighting, bool) {
	last := sighting{seq: -1}
	for _, c := range f.changes {
		if c.Worker == worker && c.Seq > last.seq {
			last = sighting{rec: refundkit.Record{Status: c.New, Owner: c.Owner, LeaseUntil: c.Lease}, at: c.At, seq: c.Seq}
		}
	}
	for _, rd := range f.reads {
		if rd.Worker == worker && rd.Seq > last.seq {
			last = sighting{rec: refundkit.Record{Status: rd.Status, Owner: rd.Owner, LeaseUntil: rd.LeaseUntil}, at: rd.At, seq: rd.Seq, read: true}
		}
	}
	return last, last.seq >= 0
}

// scripted reports whether a panic is one the scenario injected into a
// helper (passing it on is fine; the record's state is what matters).
func (f *runFacts) scripted(panicMsg string) bool {
	for _, p := range f.sc.Panics {
		if !p.Error && strings.Contains(panicMsg, p.Message) {
			return true
		}
	}
	return false
}

func describeOwner(r refundkit.Record) string {
	if r.Owner == "" {
		return "no one"
	}
	return r.Owner
}

// ownerAliveAt reports whether the holder of rec's claim was still working
// when another call ended at offset t, at trace position seq: an
// invocation of the run that had not ended by then (an end at the same
// virtual instant but later in the trace is later), or a live owner from the
// scenario whose lease had not expired. A lease expires at its instant, as
// Claim sees it.
func (f *runFacts) ownerAliveAt(rec refundkit.Record, t time.Duration, seq int) bool {
	now := f.r.env.Start().Add(t)
	if !rec.LeaseUntil.IsZero() && !now.Before(rec.LeaseUntil) {
		return false
	}
	for _, iv := range f.r.invs {
		if iv.Worker == rec.Owner {
			if iv.ended == endDidNotReturn {
				return true
			}
			return iv.endedAt > t || iv.endedAt == t && iv.endSeq > seq
		}
	}
	return f.seed != nil && f.seed.Owner == rec.Owner && f.seed.OwnerAlive
}

type window struct {
	worker     string
	start, end time.Duration
}

func checkExclusiveClaim(f *runFacts) string {
	var ws []window
	for _, iv := range f.invs {
		qs := f.requestsOf(iv.Worker)
		if len(qs) == 0 {
			continue
		}
		w := window{worker: iv.Worker, start: qs[0].SentAt, end: iv.endedAt}
		for _, c := range f.changes {
			if c.Worker == iv.Worker && c.At >= w.start && c.New != refundkit.StatusProcessing {
				w.end = c.At
				break
			}
		}
		switch {
		case iv.ended == endDidNotReturn && f.r.stopped == stoppedCut:
			// A run cut short (a minimal run's prefix) says nothing of
			// how long the call went on: only that it was at work then.
			w.end = f.r.stoppedAt
		case iv.ended == endDidNotReturn:
			w.end = f.sc.budget()
		}
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].start < ws[j].start })
	for i := range ws {
		for j := i + 1; j < len(ws); j++ {
			a, b := ws[i], ws[j]
			if b.start < a.end {
				return fmt.Sprintf("%s and %s both sent refunds for %s while each thought it owned it: %s from %s to %s, %s from %s",
					a.worker, b.worker, f.id, a.worker, at(a.start), at(a.end), b.worker, at(b.start))
			}
		}
	}
	if msg := takenOverYetActing(f); msg != "" {
		return msg
	}
	if msg := overwroteLiveClaim(f); msg != "" {
		return msg
	}
	if msg := actedPastLease(f); msg != "" {
		return msg
	}
	if f.seed != nil && f.seed.Status == refundkit.StatusProcessing && f.seed.OwnerAlive && f.seed.LeaseLeft > 0 {
		for _, q := range f.requests {
			if q.SentAt < f.seed.LeaseLeft {
				return fmt.Sprintf("%s sent request #%d at %s while %s held a live claim on %s (lease good until %s)",
					q.Worker, q.N, at(q.SentAt), f.seed.Owner, f.id, at(f.seed.LeaseLeft))
			}
		}
	}
	return ""
}

// takenOverYetActing finds a worker that went on sending or writing the
// record after another worker had taken its claim over (its lease ran out
// while it was still at work): two workers then each believe they own
// the refund. A worker that died before the takeover is not at work.
func takenOverYetActing(f *runFacts) string {
	for _, iv := range f.invs {
		var claimedAt time.Duration
		var lease time.Time
		claimed := false
		for _, c := range f.changes {
			if c.Call != "Claim" {
				continue
			}
			if c.Worker == iv.Worker {
				claimedAt, lease, claimed = c.At, c.Lease, true
				continue
			}
			if !claimed || c.At <= claimedAt || (iv.ended == endCrashed && iv.endedAt <= c.At) {
				continue
			}
			if c.Old != refundkit.StatusProcessing {
				// It took a record iv.Worker had settled (failed or
				// needs_check): a claim of free work, not a takeover.
				continue
			}
			takenAt, takenSeq, taker := c.At, c.Seq, c.Worker
			leaseWords := "it held no lease"
			if !lease.IsZero() {
				leaseWords = "its lease had run out at " + at(lease.Sub(f.r.env.Start()))
			}
			for _, q := range f.requestsOf(iv.Worker) {
				if q.SentAt > takenAt || q.SentAt == takenAt && q.Seq > takenSeq {
					return fmt.Sprintf("%s took over %s's claim on %s at %s while %s was still at work (%s), and %s went on to send request #%d at %s: the lease must outlast the longest run",
						taker, iv.Worker, f.id, at(takenAt), iv.Worker, leaseWords, iv.Worker, q.N, at(q.SentAt))
				}
			}
			for _, w := range f.changes {
				if w.Worker == iv.Worker && w.Seq > takenSeq && w.Call != "Claim" {
					return fmt.Sprintf("%s took over %s's claim on %s at %s while %s was still at work (%s), and %s went on to write %s at %s: the lease must outlast the longest run",
						taker, iv.Worker, f.id, at(takenAt), iv.Worker, leaseWords, iv.Worker, w.New, at(w.At))
				}
			}
		}
	}
	return ""
}

// overwroteLiveClaim finds a write over another worker's live claim: a
// worker that writes the record once more after it let it go (a second
// write of its final status) can land on the claim of a run that took the
// record in between, which then works on a record that no longer says it
// is being worked on.
func overwroteLiveClaim(f *runFacts) string {
	for _, c := range f.changes {
		if c.Call == "Claim" || c.Old != refundkit.StatusProcessing || c.OldOwner == "" || c.OldOwner == c.Worker {
			continue
		}
		holder := refundkit.Record{Owner: c.OldOwner, LeaseUntil: c.OldLease}
		if !f.ownerAliveAt(holder, c.At, c.Seq) {
			continue
		}
		return fmt.Sprintf("%s wrote %s over %s's live claim on %s at %s: %s was still at work on it, and the record no longer says so",
			c.Worker, c.New, c.OldOwner, f.id, at(c.At), c.OldOwner)
	}
	return ""
}

// maxLease is the page's bound on a claim's lease: a crashed worker's
// request is run again this long after it died.
const maxLease = 10 * time.Minute

// leaseBoundMatters are the invariants a lease over the page's bound
// breaks: the worker that comes when the page says finds the record held.
var leaseBoundMatters = map[string]bool{InvRefundRecorded: true, InvOutcomeMatchesState: true, InvExpectedEndState: true, InvNoStuckProcessing: true}

// leaseOverBound finds a claim with a lease over the page's bound whose
// holder's process died while a later worker of the run was refused the
// record: the later worker came when the page says work is taken over.
func leaseOverBound(f *runFacts) string {
	start := f.r.env.Start()
	for _, c := range f.changes {
		iv := f.invOf(c.Worker)
		if c.Call != "Claim" || c.Lease.IsZero() || iv == nil || iv.ended != endCrashed {
			continue
		}
		lease := c.Lease.Sub(start) - c.At
		if lease <= maxLease {
			continue
		}
		for _, later := range f.invs {
			if later.startedAt > iv.endedAt && later.startedAt < c.Lease.Sub(start) {
				return fmt.Sprintf("%s claimed %s at %s with a lease of %s, over the page's bound of %s: its process died, and %s, which came at %s, could not take the record over",
					c.Worker, f.id, at(c.At), world.FormatDuration(lease), world.FormatDuration(maxLease), later.Worker, at(later.startedAt))
			}
		}
	}
	return ""
}

// neverResent finds a call that made one refund request, got an answer
// the page says to resend after (a connection error, a timeout, a 409, a
// 429, a 5xx that is not a replay), and returned without sending again
// while its context was still live.
func neverResent(f *runFacts) string {
	for _, iv := range f.invs {
		qs := f.requestsOf(iv.Worker)
		if len(qs) != 1 || iv.ended != endReturned || (iv.ctxEnds != "" && iv.ctxEndsAt <= iv.endedAt) {
			continue
		}
		q := qs[0]
		retry := q.Result == "timeout" || (q.Result == "connection" && q.Rule == "N1")
		if q.Result == "api" && q.APIErr != nil && !q.APIErr.Replayed {
			st := q.APIErr.Status
			retry = st == 409 || st == 429 || st >= 500
		}
		if retry {
			return fmt.Sprintf("%s sent one request, got %s (rule %s: worth resending under the same key), and returned at %s without sending again", iv.Worker, answerWords(q), q.Rule, at(iv.endedAt))
		}
	}
	return ""
}

// actedPastLease finds a worker that sent a refund request or wrote the
// record once the lease of its own claim had run out: the page asks for a
// lease longer than the longest run, because from that instant any other
// worker may take the record over, whether or not one happens to in this
// run. A lease expires at its instant, as Claim sees it.
func actedPastLease(f *runFacts) string {
	start := f.r.env.Start()
	for _, iv := range f.invs {
		var claims []world.Change
		for _, c := range f.changes {
			if c.Worker == iv.Worker && c.Call == "Claim" {
				claims = append(claims, c)
			}
		}
		for k, c := range claims {
			if c.Lease.IsZero() {
				continue
			}
			ends := c.Lease.Sub(start)
			next := int(^uint(0) >> 1)
			if k+1 < len(claims) {
				next = claims[k+1].Seq
			}
			// Made only for the claim that broke the rule.
			words := func() string {
				return fmt.Sprintf("%s's claim on %s at %s had a lease of %s, which ran out at %s", iv.Worker, f.id, at(c.At), world.FormatDuration(ends-c.At), at(ends))
			}
			for _, q := range f.requestsOf(iv.Worker) {
				if q.Seq > c.Seq && q.Seq < next && q.SentAt >= ends && q.Result != "connection" {
					return fmt.Sprintf("%s, yet it sent request #%d at %s: from then on another worker may take the record over, so the lease must outlast the longest run", words(), q.N, at(q.SentAt))
				}
			}
			for _, w := range f.changes {
				if w.Worker == iv.Worker && w.Seq > c.Seq && w.Seq < next && w.At >= ends {
					return fmt.Sprintf("%s, yet it wrote %s at %s: from then on another worker may take the record over, so the lease must outlast the longest run", words(), w.New, at(w.At))
				}
			}
		}
	}
	return ""
}

// checkStopsWhenCancelled finds a refund request that left after the
// caller's context had ended. One sent with the caller's context, or a
// context derived from it, cannot leave (the client refuses it, a
// connection error); only a context cut loose from the caller's sends.
func checkStopsWhenCancelled(f *runFacts) string {
	for _, iv := range f.invs {
		if iv.ctxEnds == "" {
			continue
		}
		for _, q := range f.requestsOf(iv.Worker) {
			if q.Result == "connection" {
				continue // refused by the client (rule N3): it never left
			}
			// At the very instant, the order of steps tells whether it left
			// before the caller's context ended or after.
			if q.SentAt > iv.ctxEndsAt || (q.SentAt == iv.ctxEndsAt && q.Seq > ctxEndSeq(f, iv)) {
				return fmt.Sprintf("%s sent request #%d at %s, after its caller's context was %s at %s: once the caller stops waiting, send nothing more",
					iv.Worker, q.N, at(q.SentAt), iv.ctxEnds, at(iv.ctxEndsAt))
			}
		}
	}
	return ""
}

// ctxEndSeq is the place in the run's order of steps at which the
// caller's context of iv ended (the caller's line in the trace), or the
// largest int when the trace has no such line (the call had returned).
func ctxEndSeq(f *runFacts, iv *invocation) int {
	for k, e := range f.r.env.Trace() {
		if e.Actor == "caller/"+iv.Worker && e.At == iv.ctxEndsAt {
			return k + 1
		}
	}
	return int(^uint(0) >> 1)
}

// checkGoroutinesEnd judges what was left once every call had returned
// and every request it sent had its answer (the run goes on until then):
// a goroutine still blocked for ever is one no reply, timer or caller can
// wake. A run in which a process died, or a call panicked (a process a
// panic would end), leaves that process's goroutines where they stood,
// which is no leak of a live worker's; a run cut short is not judged.
func checkGoroutinesEnd(f *runFacts) string {
	if f.r.leftover == "" || f.r.stopped != "" {
		return ""
	}
	for _, iv := range f.r.invs {
		if iv.ended != endReturned {
			return ""
		}
	}
	return "every call had returned and every request had its answer, yet goroutines the calls started were still blocked for ever " +
		"(on a channel no one will send to or receive from again): each such call leaks a goroutine in a worker that keeps serving requests"
}

// checkExpectedEndState compares where the request ended with the
// scenario's Expect: the refunds the provider holds for it (those made
// before the run included) and the record's status. Refunds beyond the
// expected number come first: money sent twice is the worst news.
func checkExpectedEndState(f *runFacts) string {
	want := f.sc.Expect
	if want == nil {
		return ""
	}
	if tooManyRefunds(f) {
		return refundCountWords(f)
	}
	if len(want.Status) > 0 {
		ok := false
		if f.hasFinal {
			for _, st := range want.Status {
				ok = ok || f.final.Status == st
			}
		}
		if !ok {
			got := "missing (no record)"
			if f.hasFinal {
				got = string(f.final.Status)
				if f.final.Reason != "" {
					got += fmt.Sprintf(" (reason %q)", f.final.Reason)
				}
			}
			var sts []string
			for _, st := range want.Status {
				sts = append(sts, string(st))
			}
			msg := fmt.Sprintf("%s ended %s, but in this scenario it must end %s", f.id, got, strings.Join(sts, " or "))
			if len(f.requests) == 0 && len(f.refunds) == 0 {
				msg += "; no refund request was ever sent"
			}
			return msg
		}
	}
	if want.Refunds != nil && len(f.refunds) != *want.Refunds {
		return refundCountWords(f)
	}
	if want.Outcome != "" {
		for _, iv := range f.invs {
			switch {
			case iv.ended == endPanicked:
				return fmt.Sprintf("%s panicked (%s), but in this scenario the call must return %s with no error", iv.Worker, iv.panicMsg, want.Outcome)
			case iv.ended != endReturned:
			case iv.err != nil:
				return fmt.Sprintf("%s returned %q with the error %q, but in this scenario the call must return %s with no error", iv.Worker, iv.outcome, iv.errText, want.Outcome)
			case iv.outcome != want.Outcome:
				return fmt.Sprintf("%s returned %q, but in this scenario the call must return %s", iv.Worker, iv.outcome, want.Outcome)
			}
		}
	}
	return ""
}

// tooManyRefunds reports whether the provider holds more refunds for the
// request than the scenario's Expect allows.
// endStateDefect names the seed defect a wrong end state shows when the
// scenario names none: done with no refund made is done-after-failure,
// failed where the scenario does not allow it is unknown-as-failed.
// Anything else is left to the invariant's own defect.
func endStateDefect(f *runFacts) string {
	if !f.hasFinal || f.sc.Expect == nil || tooManyRefunds(f) {
		return ""
	}
	switch {
	case f.final.Status == refundkit.StatusDone && len(f.refunds) == 0:
		return DefectDoneAfterFailure
	case f.final.Status == refundkit.StatusFailed && !slices.Contains(f.sc.Expect.Status, refundkit.StatusFailed):
		return DefectUnknownAsFailed
	}
	return ""
}

func tooManyRefunds(f *runFacts) bool {
	want := f.sc.Expect
	return want != nil && want.Refunds != nil && len(f.refunds) > *want.Refunds
}

func refundCountWords(f *runFacts) string {
	var parts []string
	for _, a := range f.refunds {
		parts = append(parts, describeApplied(a, f))
	}
	held := "none"
	if len(parts) > 0 {
		held = strings.Join(parts, "; ")
	}
	return fmt.Sprintf("the provider holds %s for %s, but in this scenario it must hold exactly %d: %s", refundsWord(len(f.refunds)), f.id, *f.sc.Expect.Refunds, held)
}

// refundsWord is "1 refund", "2 refunds".
func refundsWord(n int) string {
	if n == 1 {
		return "1 refund"
	}
	return fmt.Sprintf("%d refunds", n)
}
