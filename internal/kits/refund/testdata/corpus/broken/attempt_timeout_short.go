// From: correct/same_key_refusal.go
// Drops: the page's minimum for a timeout of its own: each try gets half a second, under the page's 1 s (a slow answer takes up to 30 s).
// defect: backoff
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type verdict int

const (
	vApplied   verdict = iota // the refund exists
	vResend                   // nothing ran: send again
	vDoubt                    // it may have run: send again under the same key
	vReplayed                 // a saved 5xx: resending only replays it
	vRefused                  // nothing under the key ran, and it never will
	vAskHuman                 // something a person must look at
	vThrottled                // 429
)

func classify(err error) verdict {
	var conn *refundkit.ConnectionError
	var tmo *refundkit.TimeoutError
	var api *refundkit.APIError
	switch {
	case err == nil, errors.Is(err, refundkit.ErrAlreadyRefunded):
		return vApplied
	case errors.As(err, &conn):
		return vResend
	case errors.As(err, &tmo), errors.Is(err, refundkit.ErrIdempotencyKeyInUse):
		return vDoubt
	case errors.Is(err, refundkit.ErrRateLimited):
		return vThrottled
	case errors.Is(err, refundkit.ErrServer):
		if errors.As(err, &api) && api.Replayed {
			return vReplayed
		}
		return vDoubt
	case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
		return vAskHuman
	case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing):
		return vRefused
	case errors.As(err, &api) && api.Status == 401:
		return vResend // nothing ran (P3); the bound on attempts stops it
	}
	return vAskHuman
}

const (
	tries     = 4
	floorWait = 100 * time.Millisecond
	baseWait  = time.Second
	leaseFor  = 4 * time.Minute
)

type job struct {
	ctx   context.Context
	rec   *refundkit.Record
	doubt bool // some request may have run without our seeing its answer
}

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	ok, err := refundkit.Claim(ctx, requestID, leaseFor)
	if err != nil {
		return "", fmt.Errorf("claiming %s: %w", requestID, err)
	}
	if !ok {
		now, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("re-reading %s: %w", requestID, err)
		}
		return outcomeFor(now.Status), nil
	}
	// A record that is not fresh may have an earlier run's request still
	// running: a look-up cannot see a refund that has not landed, so only
	// an answer under our key settles that doubt.
	j := &job{ctx: ctx, rec: rec, doubt: rec.Status != refundkit.StatusPending}
	defer func() {
		if p := recover(); p != nil {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, fmt.Sprint("panic: ", p))
			panic(p)
		}
	}()
	if rec.Status != refundkit.StatusPending {
		// An earlier run may have sent it, perhaps under a key pruned since.
		found, err := j.lookUp()
		if err != nil {
			return j.record(refundkit.StatusNeedsCheck, "look-up failed: "+err.Error())
		}
		if found != nil {
			return j.recordFound(found)
		}
	}
	return j.send()
}

func outcomeFor(s refundkit.Status) refundkit.Outcome {
	switch s {
	case refundkit.StatusDone:
		return refundkit.OutcomeDone
	case refundkit.StatusFailed:
		return refundkit.OutcomeFailed
	case refundkit.StatusNeedsCheck:
		return refundkit.OutcomeUnknown
	}
	return refundkit.OutcomeInProgress
}

func (j *job) send() (refundkit.Outcome, error) {
	params := refundkit.RefundParams{
		Charge:         j.rec.ChargeID,
		Amount:         j.rec.Amount,
		IdempotencyKey: "rf:" + j.rec.RequestID,
		Reference:      j.rec.RequestID,
	}
	for n := 0; n < tries; n++ {
		attempt, cancel := context.WithTimeout(j.ctx, 500*time.Millisecond)
		_, err := refundkit.CreateRefund(attempt, params)
		cancel()
		wait := pause(n)
		switch classify(err) {
		case vApplied:
			return j.record(refundkit.StatusDone, "")
		case vRefused:
			// Rules P2 and P7: had any request under this key run, this
			// one would have had its answer or a 409, not a refusal.
			return j.record(refundkit.StatusFailed, "refused: "+err.Error())
		case vAskHuman:
			return j.record(refundkit.StatusNeedsCheck, err.Error())
		case vReplayed:
			return j.settleByLookUp("the provider replays a saved server error")
		case vDoubt:
			j.doubt = true
		case vThrottled:
			var api *refundkit.APIError
			if errors.As(err, &api) && api.RetryAfter > wait {
				wait = api.RetryAfter + floorWait
			}
		}
		refundkit.Logf(j.ctx, "refund %s try %d: %v", j.rec.RequestID, n+1, err)
		if n == tries-1 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-j.ctx.Done():
			t.Stop()
			j.ctx = context.WithoutCancel(j.ctx)
			return j.record(refundkit.StatusNeedsCheck, "the caller stopped waiting")
		}
	}
	if j.doubt {
		return j.record(refundkit.StatusNeedsCheck, "no clear answer after every try")
	}
	return j.record(refundkit.StatusFailed, "no request reached the provider")
}

// pause is full jitter over a floor: the ceiling doubles from baseWait.
func pause(n int) time.Duration {
	ceiling := baseWait << uint(n)
	return floorWait + time.Duration(rand.Int63n(int64(ceiling)))
}

func (j *job) lookUp() (*refundkit.ProviderRefund, error) {
	list, err := refundkit.ListRefunds(j.ctx, j.rec.ChargeID)
	if err != nil {
		return nil, err
	}
	for k := range list {
		if list[k].Reference == j.rec.RequestID && list[k].Status != "failed" && list[k].Status != "canceled" {
			return &list[k], nil
		}
	}
	return nil, nil
}

func (j *job) settleByLookUp(why string) (refundkit.Outcome, error) {
	found, err := j.lookUp()
	if err == nil && found != nil {
		return j.recordFound(found)
	}
	return j.record(refundkit.StatusNeedsCheck, why)
}

func (j *job) recordFound(r *refundkit.ProviderRefund) (refundkit.Outcome, error) {
	if r.Amount != j.rec.Amount {
		return j.record(refundkit.StatusNeedsCheck, fmt.Sprintf("provider holds %s of %d, record wants %d", r.ID, r.Amount, j.rec.Amount))
	}
	return j.record(refundkit.StatusDone, "")
}

func (j *job) record(s refundkit.Status, reason string) (refundkit.Outcome, error) {
	id := j.rec.RequestID
	var err error
	switch s {
	case refundkit.StatusDone:
		err = refundkit.MarkDone(j.ctx, id)
	case refundkit.StatusFailed:
		err = refundkit.MarkFailed(j.ctx, id, reason)
	default:
		err = refundkit.MarkNeedsCheck(j.ctx, id, reason)
	}
	if err != nil {
		if s != refundkit.StatusNeedsCheck {
			refundkit.MarkNeedsCheck(j.ctx, id, "could not record "+string(s)+": "+err.Error())
		}
		return "", fmt.Errorf("recording %s for %s: %w", s, id, err)
	}
	return outcomeFor(s), nil
}
