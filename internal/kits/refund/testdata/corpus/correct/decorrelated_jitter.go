// Style: decorrelated jitter (each wait drawn between the base and three
// times the previous wait, capped); six attempts; the key is the request id
// with a suffix, "<id>.refund.v1"; the reference "req-<id>"; a four-minute
// lease; an outcome enum of its own mapped at the end.
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
	maxTries  = 6
	minSleep  = 250 * time.Millisecond
	maxSleep  = 15 * time.Second
	leaseTime = 4 * time.Minute
)

type result int

const (
	refunded result = iota
	refused
	unknown
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		if errors.Is(err, refundkit.ErrNotFound) {
			return "", fmt.Errorf("refund %s: not found", requestID)
		}
		return "", fmt.Errorf("refund %s: %w", requestID, err)
	}
	switch rec.Status {
	case refundkit.StatusDone:
		return refundkit.OutcomeDone, nil
	}
	claimed, err := refundkit.Claim(ctx, requestID, leaseTime)
	if err != nil {
		return "", err
	}
	if !claimed {
		cur, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		return outcomeOf(cur.Status), nil
	}

	recorded := false
	defer func() {
		if !recorded {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, "stopped before recording")
		}
	}()

	res, why := process(ctx, rec)
	wctx := context.WithoutCancel(ctx)
	var status refundkit.Status
	switch res {
	case refunded:
		err = refundkit.MarkDone(wctx, requestID)
		status = refundkit.StatusDone
	case refused:
		err = refundkit.MarkFailed(wctx, requestID, why)
		status = refundkit.StatusFailed
	default:
		err = refundkit.MarkNeedsCheck(wctx, requestID, why)
		status = refundkit.StatusNeedsCheck
	}
	if err != nil {
		return "", err
	}
	recorded = true
	return outcomeOf(status), nil
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

func reference(id string) string { return "req-" + id }

// existing looks for a refund an earlier attempt made: ok reports whether
// the look-up worked at all.
func existing(ctx context.Context, rec *refundkit.Record) (found *refundkit.ProviderRefund, ok bool) {
	list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
	if err != nil {
		refundkit.Logf(ctx, "look-up failed: %v", err)
		return nil, false
	}
	for i := range list {
		if list[i].Reference == reference(rec.RequestID) {
			return &list[i], true
		}
	}
	return nil, true
}

func process(ctx context.Context, rec *refundkit.Record) (result, string) {
	ambiguous := false
	if rec.Status != refundkit.StatusPending && rec.Status != refundkit.StatusFailed {
		ambiguous = true
		found, ok := existing(ctx, rec)
		if !ok {
			return unknown, "earlier outcome unknown and the look-up failed"
		}
		if found != nil {
			if found.Amount == rec.Amount {
				return refunded, ""
			}
			return unknown, "a refund of another amount is already there"
		}
	}
	params := refundkit.RefundParams{
		Charge:         rec.ChargeID,
		Amount:         rec.Amount,
		IdempotencyKey: rec.RequestID + ".refund.v1",
		Reference:      reference(rec.RequestID),
	}
	sleep := minSleep
	var lastErr error
	for try := 0; try < maxTries; try++ {
		if try > 0 {
			next := minSleep + time.Duration(rand.Int63n(int64(3*sleep-minSleep)))
			if next > maxSleep {
				next = maxSleep
			}
			sleep = next
			var ae *refundkit.APIError
			if errors.As(lastErr, &ae) && ae.RetryAfter > next {
				next = ae.RetryAfter
			}
			time.Sleep(next)
		}
		_, err := refundkit.CreateRefund(ctx, params)
		if err == nil {
			return refunded, ""
		}
		lastErr = err
		refundkit.Logf(ctx, "try %d: %v", try+1, err)
		var ce *refundkit.ConnectionError
		var ae *refundkit.APIError
		switch {
		case errors.Is(err, refundkit.ErrAlreadyRefunded):
			return refunded, ""
		case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
			return unknown, err.Error()
		case errors.Is(err, refundkit.ErrIdempotencyKeyInUse):
			ambiguous = true
		case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing):
			if ambiguous {
				return unknown, "refused after an unanswered try: " + err.Error()
			}
			return refused, err.Error()
		case errors.Is(err, refundkit.ErrRateLimited), errors.As(err, &ce):
			// never executed: safe to send again
		default:
			ambiguous = true
			if errors.As(err, &ae) && ae.Replayed {
				try = maxTries
			}
		}
	}
	if !ambiguous {
		return refused, "no try reached the provider: " + lastErr.Error()
	}
	found, ok := existing(ctx, rec)
	if ok && found != nil && found.Amount == rec.Amount {
		return refunded, ""
	}
	return unknown, "no definite answer: " + lastErr.Error()
}
