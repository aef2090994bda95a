// Style: one flat function with closures for settling; full jitter (AWS
// "Exponential Backoff And Jitter": sleep = random(0, min(cap, base*2^n)));
// key "refund:<id>"; four attempts; a two-minute lease.
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
	attempts = 4
	base     = 400 * time.Millisecond
	ceiling  = 20 * time.Second
	lease    = 2 * time.Minute
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		return "", fmt.Errorf("load %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	ok, err := refundkit.Claim(ctx, requestID, lease)
	if err != nil {
		return "", fmt.Errorf("claim %s: %w", requestID, err)
	}
	if !ok {
		return outcomeNow(ctx, requestID)
	}

	settled := false
	defer func() {
		if !settled {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, "run ended without a result")
		}
	}()
	settle := func(st refundkit.Status, why string) (refundkit.Outcome, error) {
		c := context.WithoutCancel(ctx)
		var err error
		var out refundkit.Outcome
		switch st {
		case refundkit.StatusDone:
			err, out = refundkit.MarkDone(c, requestID), refundkit.OutcomeDone
		case refundkit.StatusFailed:
			err, out = refundkit.MarkFailed(c, requestID, why), refundkit.OutcomeFailed
		default:
			err, out = refundkit.MarkNeedsCheck(c, requestID, why), refundkit.OutcomeUnknown
		}
		if err != nil {
			return "", err
		}
		settled = true
		return out, nil
	}
	lookup := func() (found bool, amount int64, err error) {
		list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
		if err != nil {
			return false, 0, err
		}
		for _, r := range list {
			if r.Reference == requestID {
				return true, r.Amount, nil
			}
		}
		return false, 0, nil
	}

	unsure := false
	if rec.Status == refundkit.StatusNeedsCheck || rec.Status == refundkit.StatusProcessing {
		unsure = true
		found, amount, err := lookup()
		if err != nil {
			return settle(refundkit.StatusNeedsCheck, "look-up failed: "+err.Error())
		}
		if found && amount == rec.Amount {
			return settle(refundkit.StatusDone, "")
		}
		if found {
			return settle(refundkit.StatusNeedsCheck, "provider holds another amount")
		}
	}

	params := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: "refund:" + requestID, Reference: requestID}
	last := ""
	for n := 0; n < attempts; n++ {
		_, err := refundkit.CreateRefund(ctx, params)
		if err == nil {
			return settle(refundkit.StatusDone, "")
		}
		last = err.Error()
		refundkit.Logf(ctx, "attempt %d: %v", n+1, err)
		var connErr *refundkit.ConnectionError
		var apiErr *refundkit.APIError
		var retryAfter time.Duration
		if errors.As(err, &apiErr) {
			retryAfter = apiErr.RetryAfter
		}
		switch {
		case errors.Is(err, refundkit.ErrAlreadyRefunded):
			return settle(refundkit.StatusDone, "")
		case errors.Is(err, refundkit.ErrIdempotencyKeyInUse):
			unsure = true
		case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
			return settle(refundkit.StatusNeedsCheck, last)
		case errors.Is(err, refundkit.ErrRateLimited):
		case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing):
			if unsure {
				return settle(refundkit.StatusNeedsCheck, "refused after an unanswered attempt: "+last)
			}
			return settle(refundkit.StatusFailed, last)
		case errors.As(err, &connErr):
		default:
			unsure = true
			if apiErr != nil && apiErr.Replayed {
				n = attempts // a saved answer will not change: stop sending
				continue
			}
		}
		if n == attempts-1 {
			break
		}
		bound := base << uint(n)
		if bound > ceiling {
			bound = ceiling
		}
		wait := time.Duration(rand.Int63n(int64(bound)) + 1)
		if retryAfter > wait {
			wait = retryAfter
		}
		time.Sleep(wait)
	}
	if !unsure {
		return settle(refundkit.StatusFailed, "every attempt refused before sending: "+last)
	}
	found, amount, err := lookup()
	if err == nil && found && amount == rec.Amount {
		return settle(refundkit.StatusDone, "")
	}
	return settle(refundkit.StatusNeedsCheck, "outcome unknown: "+last)
}

func outcomeNow(ctx context.Context, id string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, id)
	if err != nil {
		return "", err
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
