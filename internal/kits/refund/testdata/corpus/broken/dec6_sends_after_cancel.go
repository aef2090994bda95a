// From: correct/dec6_goroutine_select.go
// Drops: the sends use the context cut loose from the caller's, so a send still leaves after the caller cancelled.
// defect: stops-when-cancelled
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
	sends     = 5
	claimSpan = 8 * time.Minute
	giveUpOn  = 12 * time.Second
	firstStep = 600 * time.Millisecond
	topStep   = 24 * time.Second
)

type sendResult struct {
	err   error
	panic any
}

type listResult struct {
	list  []refundkit.ProviderRefund
	err   error
	panic any
}

// errGaveUp: we stopped waiting for an answer; the request may still land.
var errGaveUp = errors.New("gave up waiting for the provider")

func sendAsync(ctx context.Context, p refundkit.RefundParams) error {
	ch := make(chan sendResult, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- sendResult{panic: p}
			}
		}()
		_, err := refundkit.CreateRefund(ctx, p)
		ch <- sendResult{err: err}
	}()
	timer := time.NewTimer(giveUpOn)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.panic != nil {
			panic(r.panic) // the helper's panic, carried over to the caller
		}
		return r.err
	case <-timer.C:
		return errGaveUp
	}
}

func listAsync(ctx context.Context, charge string) ([]refundkit.ProviderRefund, error) {
	ch := make(chan listResult, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- listResult{panic: p}
			}
		}()
		l, err := refundkit.ListRefunds(ctx, charge)
		ch <- listResult{list: l, err: err}
	}()
	timer := time.NewTimer(giveUpOn)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.panic != nil {
			panic(r.panic)
		}
		return r.list, r.err
	case <-timer.C:
		return nil, errGaveUp
	}
}

func pause(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// RefundMoney refunds requestID at most once.
func RefundMoney(ctx context.Context, requestID string) (outcome refundkit.Outcome, err error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		if errors.Is(err, refundkit.ErrNotFound) {
			return "", fmt.Errorf("refund: request %s has no record", requestID)
		}
		return "", fmt.Errorf("refund: request %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	took, err := refundkit.Claim(ctx, requestID, claimSpan)
	if err != nil {
		return "", fmt.Errorf("refund: request %s: claim: %w", requestID, err)
	}
	if !took {
		cur, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("refund: request %s: reading after a refused claim: %w", requestID, err)
		}
		if cur.Status == refundkit.StatusDone {
			return refundkit.OutcomeDone, nil
		}
		if cur.Status == refundkit.StatusFailed {
			return refundkit.OutcomeFailed, nil
		}
		if cur.Status == refundkit.StatusNeedsCheck {
			return refundkit.OutcomeUnknown, nil
		}
		return refundkit.OutcomeInProgress, nil
	}
	keep := context.WithoutCancel(ctx)
	defer func() {
		if p := recover(); p != nil {
			outcome, err = mark(keep, requestID, refundkit.StatusNeedsCheck, fmt.Sprintf("panic: %v", p))
		}
	}()

	tag := "gs:" + requestID
	found := func() (*refundkit.ProviderRefund, error) {
		var last error
		for i := range 2 {
			if i > 0 && !pause(ctx, time.Second) {
				return nil, ctx.Err()
			}
			list, err := listAsync(ctx, rec.ChargeID)
			if err != nil {
				last = err
				continue
			}
			for _, r := range list {
				if r.Reference == tag && r.Status != "failed" && r.Status != "canceled" {
					return &r, nil
				}
			}
			return nil, nil
		}
		return nil, last
	}
	fromFound := func(r *refundkit.ProviderRefund, missing string) (refundkit.Outcome, error) {
		if r == nil {
			return mark(keep, requestID, refundkit.StatusNeedsCheck, missing)
		}
		if r.Amount == rec.Amount {
			return mark(keep, requestID, refundkit.StatusDone, "")
		}
		return mark(keep, requestID, refundkit.StatusNeedsCheck, fmt.Sprintf("refund %s for %d, not %d", r.ID, r.Amount, rec.Amount))
	}

	maybe := rec.Status != refundkit.StatusPending
	if maybe {
		r, err := found()
		if err != nil {
			return mark(keep, requestID, refundkit.StatusNeedsCheck, "look-up failed: "+err.Error())
		}
		if r != nil {
			return fromFound(r, "")
		}
	}

	params := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: tag, Reference: tag}
	for i := range sends {
		err := sendAsync(keep, params)
		if err == nil {
			return mark(keep, requestID, refundkit.StatusDone, "")
		}
		refundkit.Logf(ctx, "send %d: %v", i+1, err)
		step := min(firstStep<<i, topStep)
		wait := max(time.Millisecond, step/2+time.Duration(rand.Int63n(int64(step/2))))

		var api *refundkit.APIError
		var conn *refundkit.ConnectionError
		var tmo *refundkit.TimeoutError
		switch {
		case errors.Is(err, refundkit.ErrAlreadyRefunded):
			return mark(keep, requestID, refundkit.StatusDone, "")
		case errors.As(err, &conn):
		case errors.Is(err, errGaveUp), errors.As(err, &tmo), errors.Is(err, refundkit.ErrIdempotencyKeyInUse):
			maybe = true
		case errors.Is(err, refundkit.ErrRateLimited):
			if errors.As(err, &api) {
				if api.RetryAfter > 30*time.Second {
					return mark(keep, requestID, ranOutStatus(maybe), "Retry-After too long")
				}
				wait = max(wait, api.RetryAfter+time.Duration(rand.Int63n(int64(500*time.Millisecond))))
			}
		case errors.Is(err, refundkit.ErrServer):
			maybe = true
			if errors.As(err, &api) && api.Replayed {
				r, _ := found()
				return fromFound(r, "saved 5xx replayed; no refund found")
			}
		case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
			return mark(keep, requestID, refundkit.StatusNeedsCheck, err.Error())
		case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing),
			errors.As(err, &api) && api.Status == 401:
			if maybe {
				r, _ := found()
				return fromFound(r, "refused after an ambiguous attempt: "+err.Error())
			}
			return mark(keep, requestID, refundkit.StatusFailed, err.Error())
		default:
			return mark(keep, requestID, refundkit.StatusNeedsCheck, "unclassified: "+err.Error())
		}
		if i == sends-1 {
			break
		}
		pause(ctx, wait)
	}
	return mark(keep, requestID, ranOutStatus(maybe), "attempts exhausted")
}

func ranOutStatus(maybe bool) refundkit.Status {
	if maybe {
		return refundkit.StatusNeedsCheck
	}
	return refundkit.StatusFailed
}

func mark(ctx context.Context, id string, s refundkit.Status, why string) (refundkit.Outcome, error) {
	var err error
	switch s {
	case refundkit.StatusDone:
		if err = refundkit.MarkDone(ctx, id); err == nil {
			return refundkit.OutcomeDone, nil
		}
	case refundkit.StatusFailed:
		if err = refundkit.MarkFailed(ctx, id, why); err == nil {
			return refundkit.OutcomeFailed, nil
		}
	}
	if err != nil {
		why = fmt.Sprintf("writing %s failed (%v); %s", s, err, why)
	}
	if e := refundkit.MarkNeedsCheck(ctx, id, why); e != nil {
		return "", fmt.Errorf("refund: request %s: recording %s: %w", id, s, e)
	}
	return refundkit.OutcomeUnknown, nil
}
