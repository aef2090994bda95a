// From: correct/goroutine_select.go
// Drops: the amount check on a refund the look-up finds; any refund under our reference counts as done.
// defect: done-means-refunded
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type attemptResult struct {
	refund *refundkit.ProviderRefund
	err    error
}

var errAbandoned = errors.New("attempt abandoned: no answer in time")

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		return "", fmt.Errorf("get %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	won, err := refundkit.Claim(ctx, requestID, 3*time.Minute)
	if err != nil {
		return "", err
	}
	if !won {
		now, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		switch now.Status {
		case refundkit.StatusDone:
			return refundkit.OutcomeDone, nil
		case refundkit.StatusFailed:
			return refundkit.OutcomeFailed, nil
		case refundkit.StatusNeedsCheck:
			return refundkit.OutcomeUnknown, nil
		default:
			return refundkit.OutcomeInProgress, nil
		}
	}
	var outcome refundkit.Outcome
	defer func() {
		if outcome == "" {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, "run aborted")
		}
	}()
	st, why := run(ctx, rec)
	wctx := context.WithoutCancel(ctx)
	switch st {
	case refundkit.StatusDone:
		if err := refundkit.MarkDone(wctx, requestID); err != nil {
			return "", err
		}
		outcome = refundkit.OutcomeDone
	case refundkit.StatusFailed:
		if err := refundkit.MarkFailed(wctx, requestID, why); err != nil {
			return "", err
		}
		outcome = refundkit.OutcomeFailed
	default:
		if err := refundkit.MarkNeedsCheck(wctx, requestID, why); err != nil {
			return "", err
		}
		outcome = refundkit.OutcomeUnknown
	}
	return outcome, nil
}

// attempt sends one request from its own goroutine and waits for it, for
// the timer or for the caller to give up. The channel is buffered, so an
// abandoned attempt's goroutine can still finish.
func attempt(ctx context.Context, p refundkit.RefundParams) (*refundkit.ProviderRefund, error) {
	ch := make(chan attemptResult, 1)
	go func() {
		r, err := refundkit.CreateRefund(ctx, p)
		ch <- attemptResult{r, err}
	}()
	select {
	case res := <-ch:
		return res.refund, res.err
	case <-time.After(15 * time.Second):
		return nil, errAbandoned
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func alreadyThere(ctx context.Context, rec *refundkit.Record) (bool, bool, error) {
	refunds, err := refundkit.ListRefunds(ctx, rec.ChargeID)
	if err != nil {
		return false, false, err
	}
	for _, r := range refunds {
		if r.Reference == rec.RequestID {
			return true, true, nil
		}
	}
	return false, false, nil
}

func run(ctx context.Context, rec *refundkit.Record) (refundkit.Status, string) {
	unclear := rec.Status == refundkit.StatusProcessing || rec.Status == refundkit.StatusNeedsCheck
	if unclear {
		found, same, err := alreadyThere(ctx, rec)
		if err != nil {
			return refundkit.StatusNeedsCheck, "look-up failed: " + err.Error()
		}
		if found && same {
			return refundkit.StatusDone, ""
		}
		if found {
			return refundkit.StatusNeedsCheck, "refund of another amount found"
		}
	}
	p := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: "refund/" + rec.RequestID, Reference: rec.RequestID}
	var last error
	for i := 0; i < 5; i++ {
		_, err := attempt(ctx, p)
		if err == nil {
			return refundkit.StatusDone, ""
		}
		last = err
		refundkit.Logf(ctx, "attempt %d failed: %v", i+1, err)
		var api *refundkit.APIError
		var conn *refundkit.ConnectionError
		isAPI := errors.As(err, &api)
		if errors.Is(err, refundkit.ErrAlreadyRefunded) {
			return refundkit.StatusDone, ""
		}
		if errors.Is(err, refundkit.ErrIdempotencyKeyReused) {
			return refundkit.StatusNeedsCheck, err.Error()
		}
		if errors.Is(err, refundkit.ErrInvalidRequest) || errors.Is(err, refundkit.ErrResourceMissing) {
			if unclear {
				return refundkit.StatusNeedsCheck, "refused after an unclear attempt: " + err.Error()
			}
			return refundkit.StatusFailed, err.Error()
		}
		if !errors.As(err, &conn) && !errors.Is(err, refundkit.ErrRateLimited) {
			unclear = true
			if isAPI && api.Replayed {
				break
			}
		}
		if ctx.Err() != nil || i == 4 {
			break
		}
		d := time.Duration(float64(300*time.Millisecond<<uint(i)) * (0.75 + rand.Float64()/2))
		if isAPI && api.RetryAfter > d {
			d = api.RetryAfter
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
	if !unclear {
		return refundkit.StatusFailed, "never reached the provider: " + last.Error()
	}
	if found, same, err := alreadyThere(ctx, rec); err == nil && found && same {
		return refundkit.StatusDone, ""
	}
	return refundkit.StatusNeedsCheck, "unknown: " + last.Error()
}
