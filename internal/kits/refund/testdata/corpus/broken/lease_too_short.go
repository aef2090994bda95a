// From: correct/equal_jitter_three.go
// Drops: a lease that outlasts the run; five seconds, shorter than one client timeout.
// defect: exclusive-claim
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("refund request %q does not exist", requestID)
	}
	if err != nil {
		return "", err
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	got, err := refundkit.Claim(ctx, requestID, 5*time.Second)
	if err != nil {
		return "", err
	}
	if !got {
		return reread(ctx, requestID)
	}
	finished := false
	defer func() {
		if !finished {
			_ = refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, "interrupted")
		}
	}()

	ref := "refund request " + requestID
	if rec.Status == refundkit.StatusProcessing || rec.Status == refundkit.StatusNeedsCheck {
		amount, found, err := findByReference(ctx, rec.ChargeID, ref)
		if err != nil {
			return markUnknown(ctx, requestID, "cannot look up the earlier run's refund", &finished)
		}
		if found {
			if amount != rec.Amount {
				return markUnknown(ctx, requestID, "a refund of another amount exists", &finished)
			}
			return markDone(ctx, requestID, &finished)
		}
	}

	maybeSent := rec.Status == refundkit.StatusProcessing || rec.Status == refundkit.StatusNeedsCheck
	for attempt := 1; attempt <= 3; attempt++ {
		_, err := refundkit.CreateRefund(ctx, refundkit.RefundParams{
			Charge:         rec.ChargeID,
			Amount:         rec.Amount,
			IdempotencyKey: "rf_" + requestID,
			Reference:      ref,
		})
		if err == nil {
			return markDone(ctx, requestID, &finished)
		}
		refundkit.Logf(ctx, "refund %s try %d: %v", requestID, attempt, err)
		if errors.Is(err, refundkit.ErrAlreadyRefunded) {
			return markDone(ctx, requestID, &finished)
		}
		if errors.Is(err, refundkit.ErrIdempotencyKeyReused) {
			return markUnknown(ctx, requestID, err.Error(), &finished)
		}
		if errors.Is(err, refundkit.ErrInvalidRequest) || errors.Is(err, refundkit.ErrResourceMissing) {
			if maybeSent {
				return markUnknown(ctx, requestID, "refused after an ambiguous attempt", &finished)
			}
			return markFailed(ctx, requestID, err.Error(), &finished)
		}
		var ce *refundkit.ConnectionError
		var ae *refundkit.APIError
		isAPI := errors.As(err, &ae)
		if !errors.As(err, &ce) && !errors.Is(err, refundkit.ErrRateLimited) {
			maybeSent = true
			if isAPI && ae.Replayed {
				break
			}
		}
		if attempt == 3 {
			break
		}
		half := (500 * time.Millisecond << uint(attempt-1)) / 2
		wait := half + time.Duration(rand.Int63n(int64(half)))
		if isAPI && ae.RetryAfter > wait {
			wait = ae.RetryAfter
		}
		time.Sleep(wait)
	}
	if !maybeSent {
		return markFailed(ctx, requestID, "provider unreachable", &finished)
	}
	if amount, found, err := findByReference(ctx, rec.ChargeID, ref); err == nil && found && amount == rec.Amount {
		return markDone(ctx, requestID, &finished)
	}
	return markUnknown(ctx, requestID, "no answer from the provider", &finished)
}

func findByReference(ctx context.Context, charge, ref string) (int64, bool, error) {
	refunds, err := refundkit.ListRefunds(ctx, charge)
	if err != nil {
		return 0, false, err
	}
	for _, r := range refunds {
		if r.Reference == ref {
			return r.Amount, true, nil
		}
	}
	return 0, false, nil
}

// The mark helpers set *finished only once the write went through, so the
// deferred guard still runs when a write fails or panics.
func markDone(ctx context.Context, id string, finished *bool) (refundkit.Outcome, error) {
	if err := refundkit.MarkDone(context.WithoutCancel(ctx), id); err != nil {
		return "", err
	}
	*finished = true
	return refundkit.OutcomeDone, nil
}

func markFailed(ctx context.Context, id, why string, finished *bool) (refundkit.Outcome, error) {
	if err := refundkit.MarkFailed(context.WithoutCancel(ctx), id, why); err != nil {
		return "", err
	}
	*finished = true
	return refundkit.OutcomeFailed, nil
}

func markUnknown(ctx context.Context, id, why string, finished *bool) (refundkit.Outcome, error) {
	if err := refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), id, why); err != nil {
		return "", err
	}
	*finished = true
	return refundkit.OutcomeUnknown, nil
}

func reread(ctx context.Context, id string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, id)
	if err != nil {
		return "", err
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	if rec.Status == refundkit.StatusFailed {
		return refundkit.OutcomeFailed, nil
	}
	if rec.Status == refundkit.StatusNeedsCheck {
		return refundkit.OutcomeUnknown, nil
	}
	return refundkit.OutcomeInProgress, nil
}
