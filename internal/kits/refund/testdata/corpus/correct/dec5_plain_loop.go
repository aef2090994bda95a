// Style: plain loop, one function, flags for doubt.
// Written for the strangers' round of 5 December 2026 from the page, the starter and refundkit only.
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

const (
	lease       = 5 * time.Minute
	maxAttempts = 5
	baseWait    = 500 * time.Millisecond
	capWait     = 30 * time.Second
)

func RefundMoney(ctx context.Context, requestID string) (out refundkit.Outcome, err error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("refund request %q: no such record", requestID)
	}
	if err != nil {
		return "", fmt.Errorf("reading refund request %q: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	fresh := rec.Status == refundkit.StatusPending

	ok, err := refundkit.Claim(ctx, requestID, lease)
	if err != nil {
		return "", fmt.Errorf("claiming %q: %w", requestID, err)
	}
	if !ok {
		now, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("re-reading %q: %w", requestID, err)
		}
		return outcomeOf(now.Status), nil
	}
	leaseEnd := time.Now().Add(lease - 30*time.Second)
	wctx := context.WithoutCancel(ctx)

	defer func() {
		if p := recover(); p != nil {
			refundkit.MarkNeedsCheck(wctx, requestID, fmt.Sprint("panic: ", p))
			panic(p)
		}
	}()

	if !fresh {
		found, amount, lerr := lookUp(ctx, rec.ChargeID, requestID, leaseEnd)
		if lerr != nil {
			return record(wctx, requestID, refundkit.OutcomeUnknown, "look-up failed: "+lerr.Error())
		}
		if found && amount == rec.Amount {
			return record(wctx, requestID, refundkit.OutcomeDone, "")
		}
		if found {
			return record(wctx, requestID, refundkit.OutcomeUnknown, "a refund of another amount carries our reference")
		}
	}

	params := refundkit.RefundParams{
		Charge:         rec.ChargeID,
		Amount:         rec.Amount,
		IdempotencyKey: "refund-" + requestID,
		Reference:      requestID,
	}
	doubt := !fresh // an earlier run may have sent, and its request may still land
	var wait time.Duration
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			if time.Now().Add(wait + 15*time.Second).After(leaseEnd) {
				break
			}
			if ctx.Err() != nil {
				break
			}
			time.Sleep(wait)
		}
		if ctx.Err() != nil {
			break
		}
		_, cerr := refundkit.CreateRefund(ctx, params)
		if cerr == nil {
			return record(wctx, requestID, refundkit.OutcomeDone, "")
		}
		refundkit.Logf(ctx, "attempt %d: %v", attempt+1, cerr)
		wait = backoff(attempt)
		var conn *refundkit.ConnectionError
		var tmo *refundkit.TimeoutError
		var api *refundkit.APIError
		switch {
		case errors.As(cerr, &conn):
			// never left
		case errors.As(cerr, &tmo):
			doubt = true
		case errors.Is(cerr, refundkit.ErrAlreadyRefunded):
			return record(wctx, requestID, refundkit.OutcomeDone, "")
		case errors.Is(cerr, refundkit.ErrIdempotencyKeyInUse):
			doubt = true
		case errors.Is(cerr, refundkit.ErrRateLimited):
			if errors.As(cerr, &api) && api.RetryAfter > wait {
				wait = api.RetryAfter
			}
		case errors.Is(cerr, refundkit.ErrServer):
			doubt = true
			if errors.As(cerr, &api) && api.Replayed {
				return settleByLookUp(ctx, wctx, rec, leaseEnd, "the provider replays a saved server error")
			}
		case errors.Is(cerr, refundkit.ErrIdempotencyKeyReused):
			return record(wctx, requestID, refundkit.OutcomeUnknown, "key used before with other parameters")
		case errors.Is(cerr, refundkit.ErrInvalidRequest), errors.Is(cerr, refundkit.ErrResourceMissing):
			if doubt {
				return settleByLookUp(ctx, wctx, rec, leaseEnd, "refused after an ambiguous attempt")
			}
			return record(wctx, requestID, refundkit.OutcomeFailed, cerr.Error())
		default:
			if errors.As(cerr, &api) && api.Status == 401 && !doubt {
				return record(wctx, requestID, refundkit.OutcomeFailed, cerr.Error())
			}
			return record(wctx, requestID, refundkit.OutcomeUnknown, "unrecognised answer: "+cerr.Error())
		}
	}
	if doubt {
		return record(wctx, requestID, refundkit.OutcomeUnknown, "attempts ran out after an ambiguous answer")
	}
	return record(wctx, requestID, refundkit.OutcomeFailed, "no attempt reached the provider")
}

func backoff(attempt int) time.Duration {
	d := baseWait << uint(attempt)
	if d > capWait {
		d = capWait
	}
	half := d / 2
	return half + time.Duration(rand.Int63n(int64(half)+1)) + time.Millisecond
}

// lookUp asks the provider for the refunds of the charge, twice at most, and
// reports whether one carries our reference, and its amount.
func lookUp(ctx context.Context, charge, ref string, leaseEnd time.Time) (bool, int64, error) {
	var lastErr error
	for try := 0; try < 3; try++ {
		if try > 0 {
			w := time.Duration(try) * time.Second
			if time.Now().Add(w + 15*time.Second).After(leaseEnd) {
				break
			}
			time.Sleep(w)
		}
		refunds, err := refundkit.ListRefunds(ctx, charge)
		if err != nil {
			lastErr = err
			continue
		}
		for _, r := range refunds {
			if r.Reference == ref && r.Status != "failed" && r.Status != "canceled" {
				return true, r.Amount, nil
			}
		}
		return false, 0, nil
	}
	return false, 0, lastErr
}

func settleByLookUp(ctx, wctx context.Context, rec *refundkit.Record, leaseEnd time.Time, why string) (refundkit.Outcome, error) {
	found, amount, err := lookUp(ctx, rec.ChargeID, rec.RequestID, leaseEnd)
	if err == nil && found && amount == rec.Amount {
		return record(wctx, rec.RequestID, refundkit.OutcomeDone, "")
	}
	return record(wctx, rec.RequestID, refundkit.OutcomeUnknown, why)
}

func record(ctx context.Context, id string, out refundkit.Outcome, why string) (refundkit.Outcome, error) {
	var err error
	switch out {
	case refundkit.OutcomeDone:
		err = refundkit.MarkDone(ctx, id)
		if err != nil {
			if err2 := refundkit.MarkNeedsCheck(ctx, id, "marking done failed: "+err.Error()); err2 == nil {
				return refundkit.OutcomeUnknown, nil
			}
		}
	case refundkit.OutcomeFailed:
		err = refundkit.MarkFailed(ctx, id, why)
		if err != nil {
			if err2 := refundkit.MarkNeedsCheck(ctx, id, "marking failed failed: "+err.Error()); err2 == nil {
				return refundkit.OutcomeUnknown, nil
			}
		}
	default:
		err = refundkit.MarkNeedsCheck(ctx, id, why)
	}
	if err != nil {
		return "", fmt.Errorf("recording %s for %q: %w", out, id, err)
	}
	return out, nil
}

func outcomeOf(s refundkit.Status) refundkit.Outcome {
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
