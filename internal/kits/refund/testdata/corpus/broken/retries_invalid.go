// From: correct/long_key_sentinels.go
// Drops: the final reading of an invalid request; it is resent like a transient error.
// defect: permanent-not-retried
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var (
	errSettled   = errors.New("settled by the provider")
	errRefused   = errors.New("refused for good")
	errUnclear   = errors.New("outcome unclear")
	errTransient = errors.New("not sent, try again")
)

const keyPrefix = "com.example.payments/refund-worker/v3/request/"

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		return "", fmt.Errorf("refund worker: request %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	got, err := refundkit.Claim(ctx, requestID, 4*time.Minute)
	if err != nil {
		return "", fmt.Errorf("refund worker: claim %s: %w", requestID, err)
	}
	if !got {
		now, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		return outcomeFor(now.Status), nil
	}
	recorded := false
	defer func() {
		if !recorded {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, "worker stopped before the end")
		}
	}()

	st, why := work(ctx, rec)
	c := context.WithoutCancel(ctx)
	switch st {
	case refundkit.StatusDone:
		err = refundkit.MarkDone(c, requestID)
	case refundkit.StatusFailed:
		err = refundkit.MarkFailed(c, requestID, why)
	default:
		err = refundkit.MarkNeedsCheck(c, requestID, why)
	}
	if err != nil {
		return "", fmt.Errorf("refund worker: record %s: %w", st, err)
	}
	recorded = true
	return outcomeFor(st), nil
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

// meaning wraps a provider error in one of our own.
func meaning(err error) error {
	var conn *refundkit.ConnectionError
	switch {
	case errors.Is(err, refundkit.ErrAlreadyRefunded):
		return fmt.Errorf("%w: %v", errSettled, err)
	case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
		return fmt.Errorf("%w (key reused): %v", errUnclear, err)
	case errors.Is(err, refundkit.ErrResourceMissing):
		return fmt.Errorf("%w: %v", errRefused, err)
	case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrRateLimited), errors.As(err, &conn):
		return fmt.Errorf("%w: %v", errTransient, err)
	}
	return fmt.Errorf("%w: %v", errUnclear, err)
}

func find(ctx context.Context, rec *refundkit.Record) (int64, bool, error) {
	refunds, err := refundkit.ListRefunds(ctx, rec.ChargeID)
	if err != nil {
		return 0, false, err
	}
	for _, r := range refunds {
		if r.Reference == rec.RequestID {
			return r.Amount, true, nil
		}
	}
	return 0, false, nil
}

func work(ctx context.Context, rec *refundkit.Record) (refundkit.Status, string) {
	var why strings.Builder
	unclear := rec.Status == refundkit.StatusProcessing || rec.Status == refundkit.StatusNeedsCheck
	if unclear {
		amount, ok, err := find(ctx, rec)
		switch {
		case err != nil:
			return refundkit.StatusNeedsCheck, "earlier run unknown, look-up failed"
		case ok && amount == rec.Amount:
			return refundkit.StatusDone, ""
		case ok:
			return refundkit.StatusNeedsCheck, "another amount under this reference"
		}
	}
	params := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: keyPrefix + rec.RequestID, Reference: rec.RequestID}
	var slots [5]struct{}
	for n := range slots {
		_, err := refundkit.CreateRefund(ctx, params)
		if err == nil {
			return refundkit.StatusDone, ""
		}
		m := meaning(err)
		fmt.Fprintf(&why, "attempt %d: %v; ", n+1, m)
		refundkit.Logf(ctx, "attempt %d: %v", n+1, m)
		if errors.Is(m, errSettled) {
			return refundkit.StatusDone, ""
		}
		if errors.Is(m, errRefused) {
			if unclear {
				return refundkit.StatusNeedsCheck, why.String()
			}
			return refundkit.StatusFailed, why.String()
		}
		var api *refundkit.APIError
		isAPI := errors.As(err, &api)
		if errors.Is(m, errUnclear) {
			unclear = true
			if errors.Is(err, refundkit.ErrIdempotencyKeyReused) || (isAPI && api.Replayed) {
				break
			}
		}
		if n == len(slots)-1 {
			break
		}
		ceil := time.Second << uint(n)
		d := ceil/2 + time.Duration(rand.Int63n(int64(ceil/2)))
		if isAPI && api.RetryAfter > d {
			d = api.RetryAfter
		}
		time.Sleep(d)
	}
	if !unclear {
		return refundkit.StatusFailed, why.String()
	}
	if amount, ok, err := find(ctx, rec); err == nil && ok && amount == rec.Amount {
		return refundkit.StatusDone, ""
	}
	return refundkit.StatusNeedsCheck, why.String()
}
