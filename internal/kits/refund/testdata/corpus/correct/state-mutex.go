// Style: package state: the reference with a package-level sync.Mutex
// guarding a count of the requests this process sent.
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

const (
	// maxAttempts bounds the refund requests of one run.
	maxAttempts = 5

	// The wait after attempt n is baseDelay doubled n-1 times, capped at
	// maxDelay, of which a random 50-100% is kept: many workers that failed
	// together (a provider outage) then do not all come back at once.
	baseDelay = 500 * time.Millisecond
	maxDelay  = 30 * time.Second

	// maxRetryAfter is the longest wait an answer's Retry-After may ask of
	// one run; a longer one ends the run and leaves the request to a later
	// run. Four waits this long are what make the worst run long.
	maxRetryAfter = 30 * time.Second

	// claimLease outlasts the worst run: 5 attempts and 4 look-ups of up to
	// 10 s each, 4 waits of up to maxRetryAfter (the backoff stays below it)
	// and 2 between look-ups of up to 0.5 s: 211 s, about 3.5 minutes. The
	// rest of the 5 minutes is margin, and a dead worker's claim is free then.
	claimLease = 5 * time.Minute

	// lookupAttempts bounds each reconciliation look-up (ListRefunds): with
	// one before sending and one after, a run makes at most 2+5+2 requests.
	lookupAttempts = 2
)

// sent counts the waits this process made, for its logs.
var (
	sentMu sync.Mutex
	sent   int
)

// RefundMoney refunds the stored request requestID through the provider and
// records the result. A missing record is an error; every other result is
// an Outcome that matches the record's status when it returns.
func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("refund %s: no refund request with this id: %w", requestID, err)
	}
	if err != nil {
		return "", fmt.Errorf("refund %s: load record: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}

	// The status check above is only a shortcut: two workers can both pass
	// it. The atomic claim is what lets exactly one of them go on.
	claimed, err := refundkit.Claim(ctx, requestID, claimLease)
	if err != nil {
		return "", fmt.Errorf("refund %s: claim: %w", requestID, err)
	}
	if !claimed {
		return currentOutcome(ctx, requestID)
	}

	run := &refundRun{ctx: ctx, rec: rec, key: idempotencyKey(requestID)}
	// From here on we hold the claim. If anything below panics, or fails to
	// record a result, the record must not stay in processing: the refund
	// may have been sent, so it becomes needs_check and the panic (or the
	// error) carries on to our caller.
	defer run.releaseUnsettled()

	// A record left in needs_check or processing by an earlier run may
	// already be refunded, and that run's key may have expired at the
	// provider (kept 24 hours at least, then pruned), so a blind resend
	// could refund twice. Look first.
	if rec.Status == refundkit.StatusNeedsCheck || rec.Status == refundkit.StatusProcessing {
		run.ambiguous = true
		found, err := run.findRefund()
		if err != nil {
			return run.finish(refundkit.StatusNeedsCheck, "an earlier run's outcome is unknown and the provider could not be asked: "+err.Error())
		}
		if found != nil {
			refundkit.Logf(ctx, "refund %s: an earlier run's refund %s was found at the provider", requestID, found.ID)
			return run.settleFound(found)
		}
	}
	return run.send()
}

// idempotencyKey names the operation, not the attempt: every attempt and
// every run for one request sends the same key, so the provider applies the
// refund once and replays its answer to the repeats.
func idempotencyKey(requestID string) string {
	return "refund-" + requestID
}

// currentOutcome reports what the record says after our claim was refused:
// another worker holds it, or finished it between our read and our claim.
func currentOutcome(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		return "", fmt.Errorf("refund %s: reload record: %w", requestID, err)
	}
	switch rec.Status {
	case refundkit.StatusDone:
		return refundkit.OutcomeDone, nil
	case refundkit.StatusFailed:
		return refundkit.OutcomeFailed, nil
	case refundkit.StatusNeedsCheck:
		return refundkit.OutcomeUnknown, nil
	}
	return refundkit.OutcomeInProgress, nil
}

// refundRun is one claimed run of RefundMoney.
type refundRun struct {
	ctx context.Context
	rec *refundkit.Record
	key string

	// ambiguous is set once a request may have reached the provider without
	// a definite answer (or an earlier run left the outcome unknown). From
	// then on the refund can no longer be recorded as failed.
	ambiguous bool

	// settled is set once a final status is recorded.
	settled bool
}

// failureKind is what a failed refund request tells us.
type failureKind int

const (
	notSent         failureKind = iota // never reached the provider: resend
	rateLimited                        // refused before it ran: wait, then resend
	mayHaveApplied                     // timeout, 5xx, 409 in flight, unknown: resend under the same key only
	alreadyRefunded                    // the charge is refunded already
	rejected                           // a definitive 4xx: resending cannot help
	keyConflict                        // our key was first used with other parameters
)

// failure is one classified error from CreateRefund.
type failure struct {
	kind       failureKind
	retryAfter time.Duration
	replayed   bool // the provider replayed an answer saved under our key
}

func classify(err error) failure {
	var connErr *refundkit.ConnectionError
	if errors.As(err, &connErr) {
		return failure{kind: notSent}
	}
	f := failure{kind: mayHaveApplied}
	var apiErr *refundkit.APIError
	if errors.As(err, &apiErr) {
		f.retryAfter = apiErr.RetryAfter
		f.replayed = apiErr.Replayed
	}
	switch {
	case errors.Is(err, refundkit.ErrIdempotencyKeyInUse):
		// Checked first: a 409 may also carry the type idempotency_error.
		f.kind = mayHaveApplied
	case errors.Is(err, refundkit.ErrAlreadyRefunded):
		f.kind = alreadyRefunded
	case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
		f.kind = keyConflict
	case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing):
		f.kind = rejected
	case errors.Is(err, refundkit.ErrRateLimited):
		f.kind = rateLimited
	}
	// Everything else stays mayHaveApplied: a timeout after sending, a 5xx
	// (the provider may have run part of the request), a 409 for a request
	// with our key still in flight (it may yet land), and any error we do
	// not recognise. Unsure means "may have happened", never "failed".
	return f
}

// send makes up to maxAttempts refund requests and records the result.
func (r *refundRun) send() (refundkit.Outcome, error) {
	id := r.rec.RequestID
	params := refundkit.RefundParams{
		Charge:         r.rec.ChargeID,
		Amount:         r.rec.Amount,
		IdempotencyKey: r.key,
		Reference:      id, // lets a later run find this refund with ListRefunds
	}
	why := ""
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		_, err := refundkit.CreateRefund(r.ctx, params)
		if err == nil {
			return r.finish(refundkit.StatusDone, "")
		}
		f := classify(err)
		refundkit.Logf(r.ctx, "refund %s: attempt %d of %d (key %s) failed: %v", id, attempt, maxAttempts, r.key, err)
		why = fmt.Sprintf("attempt %d: %v", attempt, err)

		switch f.kind {
		case alreadyRefunded:
			return r.finish(refundkit.StatusDone, "")
		case rejected:
			if r.ambiguous {
				// By the rules (P7, P2) a refusal under our key proves that
				// no request under it ran, but a key older than a day proves
				// nothing (P9): needs_check is the cautious reading of both.
				return r.finish(refundkit.StatusNeedsCheck, "refused after an earlier attempt with no answer: "+err.Error())
			}
			return r.finish(refundkit.StatusFailed, err.Error())
		case keyConflict:
			// Something already ran under our key with other parameters
			// (the record changed since?). Failing it would invite a
			// rerun that refunds again once the key expires: a person
			// must look.
			return r.finish(refundkit.StatusNeedsCheck, err.Error())
		case mayHaveApplied:
			r.ambiguous = true
		}

		if f.kind == mayHaveApplied && f.replayed {
			// The provider saved this answer under our key and replays it
			// to every resend while it keeps the key (24 hours at least):
			// resending tells us nothing new. Ask what it holds instead.
			break
		}
		if attempt == maxAttempts {
			break
		}
		wait := backoff(attempt)
		if f.retryAfter > maxRetryAfter {
			why = fmt.Sprintf("attempt %d: rate limited for %s", attempt, f.retryAfter)
			break
		}
		if f.retryAfter > wait {
			wait = f.retryAfter
		}
		if err := sleep(r.ctx, wait); err != nil {
			outcome, ferr := r.giveUp("stopped: " + err.Error() + "; last " + why)
			if ferr != nil {
				return outcome, ferr
			}
			return outcome, fmt.Errorf("refund %s: %w", id, err)
		}
	}
	return r.giveUp(why)
}

// giveUp records the result of a run that got no definite answer.
func (r *refundRun) giveUp(why string) (refundkit.Outcome, error) {
	if !r.ambiguous {
		// Every attempt was refused before it ran (connection errors,
		// 429s): the refund certainly did not happen. Failed says exactly
		// that, and a later run may claim it again under the same key.
		return r.finish(refundkit.StatusFailed, "gave up: "+why)
	}
	found, err := r.findRefund()
	if err == nil && found != nil {
		return r.settleFound(found)
	}
	// The refund may or may not have happened, and a look-up that finds
	// nothing proves little while a request with our key may still be in
	// flight. Leave it to a reconciler; never call it failed.
	return r.finish(refundkit.StatusNeedsCheck, "outcome unknown: "+why)
}

// findRefund asks the provider for a refund carrying this request's
// reference; nil when it holds none.
func (r *refundRun) findRefund() (*refundkit.ProviderRefund, error) {
	var lastErr error
	for try := 1; try <= lookupAttempts; try++ {
		refunds, err := refundkit.ListRefunds(r.ctx, r.rec.ChargeID)
		if err == nil {
			for _, pr := range refunds {
				if pr.Reference == r.rec.RequestID && pr.Status != "failed" && pr.Status != "canceled" {
					found := pr
					return &found, nil
				}
			}
			return nil, nil
		}
		lastErr = err
		refundkit.Logf(r.ctx, "refund %s: look-up %d of %d failed: %v", r.rec.RequestID, try, lookupAttempts, err)
		if try < lookupAttempts {
			if err := sleep(r.ctx, backoff(try)); err != nil {
				return nil, err
			}
		}
	}
	return nil, lastErr
}

// settleFound records a refund the look-up found: done when it is the
// amount the record asks for; anything else is for a person to judge, not
// a reason to send more money.
func (r *refundRun) settleFound(found *refundkit.ProviderRefund) (refundkit.Outcome, error) {
	if found.Amount == r.rec.Amount {
		return r.finish(refundkit.StatusDone, "")
	}
	return r.finish(refundkit.StatusNeedsCheck, fmt.Sprintf("the provider holds refund %s of %d for this request, the record asks for %d", found.ID, found.Amount, r.rec.Amount))
}

// finish records the final status and returns the matching outcome.
func (r *refundRun) finish(status refundkit.Status, reason string) (refundkit.Outcome, error) {
	// Record the result even when our caller has stopped waiting: what
	// happened to the money must not be lost with the request.
	ctx := context.WithoutCancel(r.ctx)
	id := r.rec.RequestID
	var err error
	var outcome refundkit.Outcome
	switch status {
	case refundkit.StatusDone:
		err = refundkit.MarkDone(ctx, id)
		outcome = refundkit.OutcomeDone
	case refundkit.StatusFailed:
		err = refundkit.MarkFailed(ctx, id, reason)
		outcome = refundkit.OutcomeFailed
	default:
		err = refundkit.MarkNeedsCheck(ctx, id, reason)
		outcome = refundkit.OutcomeUnknown
	}
	if err != nil {
		return "", fmt.Errorf("refund %s: record %s: %w", id, status, err)
	}
	r.settled = true
	if status != refundkit.StatusDone {
		refundkit.Logf(r.ctx, "refund %s: recorded %s: %s", id, status, reason)
	}
	return outcome, nil
}

// releaseUnsettled is deferred once the claim is ours: a run that panics or
// cannot record its result leaves needs_check, never a stuck processing.
func (r *refundRun) releaseUnsettled() {
	if r.settled {
		return
	}
	id := r.rec.RequestID
	reason := "the run stopped before recording a result; a refund may have been sent"
	if err := refundkit.MarkNeedsCheck(context.WithoutCancel(r.ctx), id, reason); err != nil {
		refundkit.Logf(r.ctx, "refund %s: could not release the claim: %v", id, err)
		return
	}
	refundkit.Logf(r.ctx, "refund %s: recorded needs_check: %s", id, reason)
}

// backoff is the wait after the given failed attempt (1-based): exponential,
// capped, with jitter.
func backoff(attempt int) time.Duration {
	sentMu.Lock()
	sent++
	sentMu.Unlock()
	d := baseDelay
	for i := 1; i < attempt && d < maxDelay; i++ {
		d *= 2
	}
	if d > maxDelay {
		d = maxDelay
	}
	half := d / 2
	return half + time.Duration(rand.Int63n(int64(half)+1))
}

// sleep waits for d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
