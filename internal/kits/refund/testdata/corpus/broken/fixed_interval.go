// From: correct/pipeline_goroutines.go
// Drops: backoff and jitter; every retry waits exactly one second.
// defect: backoff
package refund

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type answer struct {
	n   int
	err error
}

type order struct {
	stop bool
	wait time.Duration
}

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		return "", fmt.Errorf("refund %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	mine, err := refundkit.Claim(ctx, requestID, 150*time.Second)
	if err != nil {
		return "", err
	}
	if !mine {
		return current(ctx, requestID)
	}
	saved := false
	defer func() {
		if !saved {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, "no result recorded")
		}
	}()
	write := func(st refundkit.Status, why string) (refundkit.Outcome, error) {
		w := context.WithoutCancel(ctx)
		if st == refundkit.StatusDone {
			if err := refundkit.MarkDone(w, requestID); err != nil {
				return "", err
			}
			saved = true
			return refundkit.OutcomeDone, nil
		}
		if st == refundkit.StatusFailed {
			if err := refundkit.MarkFailed(w, requestID, why); err != nil {
				return "", err
			}
			saved = true
			return refundkit.OutcomeFailed, nil
		}
		if err := refundkit.MarkNeedsCheck(w, requestID, why); err != nil {
			return "", err
		}
		saved = true
		return refundkit.OutcomeUnknown, nil
	}

	doubt := rec.Status == refundkit.StatusProcessing || rec.Status == refundkit.StatusNeedsCheck
	if doubt {
		amt, ok, err := search(ctx, rec)
		if err != nil {
			return write(refundkit.StatusNeedsCheck, "look-up failed")
		}
		if ok && amt == rec.Amount {
			return write(refundkit.StatusDone, "")
		}
		if ok {
			return write(refundkit.StatusNeedsCheck, "amount differs")
		}
	}

	const tries = 5
	answers := make(chan answer)
	orders := make(chan order)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(answers)
		p := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: "refund-request-" + requestID, Reference: requestID}
		for n := 1; n <= tries; n++ {
			_, err := refundkit.CreateRefund(ctx, p)
			answers <- answer{n, err}
			o := <-orders
			if o.stop {
				return
			}
			time.Sleep(o.wait)
		}
	}()

	final := refundkit.StatusNeedsCheck
	why := ""
	decided := false
	for a := range answers {
		if decided {
			continue
		}
		o := order{stop: true}
		switch {
		case a.err == nil, errors.Is(a.err, refundkit.ErrAlreadyRefunded):
			final, decided = refundkit.StatusDone, true
		case errors.Is(a.err, refundkit.ErrIdempotencyKeyReused):
			final, why, decided = refundkit.StatusNeedsCheck, a.err.Error(), true
		case errors.Is(a.err, refundkit.ErrInvalidRequest), errors.Is(a.err, refundkit.ErrResourceMissing):
			final, why, decided = refundkit.StatusFailed, a.err.Error(), true
			if doubt {
				final = refundkit.StatusNeedsCheck
			}
		default:
			var conn *refundkit.ConnectionError
			var api *refundkit.APIError
			isAPI := errors.As(a.err, &api)
			why = a.err.Error()
			if !errors.As(a.err, &conn) && !errors.Is(a.err, refundkit.ErrRateLimited) {
				doubt = true
			}
			if isAPI && api.Replayed && doubt {
				break
			}
			if a.n < tries {
				o = order{wait: time.Second}
				if isAPI && api.RetryAfter > o.wait {
					o.wait = api.RetryAfter
				}
			}
		}
		refundkit.Logf(ctx, "attempt %d: %v", a.n, a.err)
		orders <- o
	}
	wg.Wait()
	if decided {
		return write(final, why)
	}
	if !doubt {
		return write(refundkit.StatusFailed, "provider unreachable: "+why)
	}
	if amt, ok, err := search(ctx, rec); err == nil && ok && amt == rec.Amount {
		return write(refundkit.StatusDone, "")
	}
	return write(refundkit.StatusNeedsCheck, why)
}

func search(ctx context.Context, rec *refundkit.Record) (int64, bool, error) {
	list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
	if err != nil {
		return 0, false, err
	}
	for _, r := range list {
		if r.Reference == rec.RequestID {
			return r.Amount, true, nil
		}
	}
	return 0, false, nil
}

func current(ctx context.Context, id string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, id)
	if err != nil {
		return "", err
	}
	m := map[refundkit.Status]refundkit.Outcome{
		refundkit.StatusDone:       refundkit.OutcomeDone,
		refundkit.StatusFailed:     refundkit.OutcomeFailed,
		refundkit.StatusNeedsCheck: refundkit.OutcomeUnknown,
	}
	if o, ok := m[rec.Status]; ok {
		return o, nil
	}
	return refundkit.OutcomeInProgress, nil
}
