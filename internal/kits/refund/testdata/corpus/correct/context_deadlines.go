// Style: contexts for every timeout. Each attempt gets its own
// context.WithTimeout of 4 s (shorter than the client's 10 s), the sending
// phase an overall budget of 90 s, and the final write a context detached
// from both. Full jitter; five attempts; key "refund-<id>-once"; a
// three-minute lease, longer than the sending budget.
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
	perAttempt  = 4 * time.Second
	sendBudget  = 90 * time.Second
	claimFor    = 3 * time.Minute
	maxAttempts = 5
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	switch {
	case errors.Is(err, refundkit.ErrNotFound):
		return "", fmt.Errorf("refund %s: no such request", requestID)
	case err != nil:
		return "", fmt.Errorf("refund %s: %w", requestID, err)
	case rec.Status == refundkit.StatusDone:
		return refundkit.OutcomeDone, nil
	}
	claimed, err := refundkit.Claim(ctx, requestID, claimFor)
	if err != nil {
		return "", err
	}
	if !claimed {
		again, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		switch again.Status {
		case refundkit.StatusDone:
			return refundkit.OutcomeDone, nil
		case refundkit.StatusFailed:
			return refundkit.OutcomeFailed, nil
		case refundkit.StatusNeedsCheck:
			return refundkit.OutcomeUnknown, nil
		}
		return refundkit.OutcomeInProgress, nil
	}

	keep := context.WithoutCancel(ctx)
	done := false
	defer func() {
		if !done {
			refundkit.MarkNeedsCheck(keep, requestID, "run ended early")
		}
	}()

	sendCtx, cancel := context.WithTimeout(ctx, sendBudget)
	defer cancel()
	st, why := refund(sendCtx, rec)

	switch st {
	case refundkit.StatusDone:
		err = refundkit.MarkDone(keep, requestID)
	case refundkit.StatusFailed:
		err = refundkit.MarkFailed(keep, requestID, why)
	default:
		err = refundkit.MarkNeedsCheck(keep, requestID, why)
	}
	if err != nil {
		return "", err
	}
	done = true
	switch st {
	case refundkit.StatusDone:
		return refundkit.OutcomeDone, nil
	case refundkit.StatusFailed:
		return refundkit.OutcomeFailed, nil
	}
	return refundkit.OutcomeUnknown, nil
}

func lookFor(ctx context.Context, rec *refundkit.Record) (found bool, sameAmount bool, err error) {
	lctx, cancel := context.WithTimeout(ctx, perAttempt)
	defer cancel()
	refunds, err := refundkit.ListRefunds(lctx, rec.ChargeID)
	if err != nil {
		return false, false, err
	}
	for _, r := range refunds {
		if r.Reference == rec.RequestID {
			return true, r.Amount == rec.Amount, nil
		}
	}
	return false, false, nil
}

func refund(ctx context.Context, rec *refundkit.Record) (refundkit.Status, string) {
	sentBefore := rec.Status == refundkit.StatusProcessing || rec.Status == refundkit.StatusNeedsCheck
	if sentBefore {
		found, same, err := lookFor(ctx, rec)
		switch {
		case err != nil:
			return refundkit.StatusNeedsCheck, "cannot check an earlier run: " + err.Error()
		case found && same:
			return refundkit.StatusDone, ""
		case found:
			return refundkit.StatusNeedsCheck, "another amount was refunded"
		}
	}
	params := refundkit.RefundParams{
		Charge:         rec.ChargeID,
		Amount:         rec.Amount,
		IdempotencyKey: fmt.Sprintf("refund-%s-once", rec.RequestID),
		Reference:      rec.RequestID,
	}
	var lastErr error
	for n := 1; n <= maxAttempts; n++ {
		actx, cancel := context.WithTimeout(ctx, perAttempt)
		_, err := refundkit.CreateRefund(actx, params)
		cancel()
		if err == nil {
			return refundkit.StatusDone, ""
		}
		lastErr = err
		refundkit.Logf(ctx, "attempt %d/%d: %v", n, maxAttempts, err)

		var conn *refundkit.ConnectionError
		var api *refundkit.APIError
		isAPI := errors.As(err, &api)
		switch {
		case errors.Is(err, refundkit.ErrAlreadyRefunded):
			return refundkit.StatusDone, ""
		case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
			return refundkit.StatusNeedsCheck, err.Error()
		case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing):
			if sentBefore {
				return refundkit.StatusNeedsCheck, "refused after an ambiguous attempt: " + err.Error()
			}
			return refundkit.StatusFailed, err.Error()
		case errors.As(err, &conn) && ctx.Err() == nil, errors.Is(err, refundkit.ErrRateLimited):
		default:
			sentBefore = true
			if isAPI && api.Replayed {
				n = maxAttempts
				continue
			}
		}
		if n == maxAttempts {
			break
		}
		wait := time.Duration(rand.Int63n(int64(time.Second<<uint(n-1)))) + time.Millisecond
		if isAPI && api.RetryAfter > wait {
			wait = api.RetryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			n = maxAttempts
		}
	}
	if !sentBefore {
		return refundkit.StatusFailed, "never sent: " + lastErr.Error()
	}
	found, same, err := lookFor(context.WithoutCancel(ctx), rec)
	if err == nil && found && same {
		return refundkit.StatusDone, ""
	}
	return refundkit.StatusNeedsCheck, "unknown after the attempts: " + lastErr.Error()
}
