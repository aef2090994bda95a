// Style: iterators and closures: the attempts are a range-over-func sequence
// that sleeps between yields (full jitter, never zero), the look-up ranges
// over a sequence of the charge's matching refunds, and every verdict is a
// closure over the run's state; the key and the reference share one prefix.
// Written for the strangers' round of 6 December 2026 from the page, the
// starter and refundkit only.
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

// schedule yields attempt numbers 1..n, waiting before each one after the
// first for as long as wait says; it stops early when ctx ends.
func schedule(ctx context.Context, n int, wait func(attempt int) time.Duration) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for a := 1; a <= n; a++ {
			if a > 1 {
				t := time.NewTimer(wait(a - 1))
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
			if !yield(a) {
				return
			}
		}
	}
}

// matching yields the refunds of list that carry reference ref and moved money.
func matching(list []refundkit.ProviderRefund, ref string) func(yield func(refundkit.ProviderRefund) bool) {
	return func(yield func(refundkit.ProviderRefund) bool) {
		for _, r := range list {
			if r.Reference != ref || r.Status == "failed" || r.Status == "canceled" {
				continue
			}
			if !yield(r) {
				return
			}
		}
	}
}

// RefundMoney refunds requestID at most once and leaves a truthful record.
func RefundMoney(ctx context.Context, requestID string) (res refundkit.Outcome, resErr error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	switch {
	case errors.Is(err, refundkit.ErrNotFound):
		return "", fmt.Errorf("no refund request %q", requestID)
	case err != nil:
		return "", fmt.Errorf("loading refund request %q: %w", requestID, err)
	case rec.Status == refundkit.StatusDone:
		return refundkit.OutcomeDone, nil
	}

	got, err := refundkit.Claim(ctx, requestID, 7*time.Minute)
	if err != nil {
		return "", fmt.Errorf("claiming refund request %q: %w", requestID, err)
	}
	if !got {
		again, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("re-reading refund request %q: %w", requestID, err)
		}
		if o, ok := map[refundkit.Status]refundkit.Outcome{
			refundkit.StatusDone:       refundkit.OutcomeDone,
			refundkit.StatusFailed:     refundkit.OutcomeFailed,
			refundkit.StatusNeedsCheck: refundkit.OutcomeUnknown,
		}[again.Status]; ok {
			return o, nil
		}
		return refundkit.OutcomeInProgress, nil
	}

	prefix := "itr." + requestID
	wctx := context.WithoutCancel(ctx)
	var (
		outcome refundkit.Outcome
		failure error
	)
	// finish records status and sets the run's result.
	finish := func(status refundkit.Status, why string) {
		var werr error
		switch status {
		case refundkit.StatusDone:
			outcome, werr = refundkit.OutcomeDone, refundkit.MarkDone(wctx, requestID)
		case refundkit.StatusFailed:
			outcome, werr = refundkit.OutcomeFailed, refundkit.MarkFailed(wctx, requestID, why)
		default:
			outcome, werr = refundkit.OutcomeUnknown, refundkit.MarkNeedsCheck(wctx, requestID, why)
		}
		if werr == nil {
			return
		}
		outcome, failure = "", fmt.Errorf("recording %s for %q: %w", status, requestID, werr)
		if status != refundkit.StatusNeedsCheck {
			if refundkit.MarkNeedsCheck(wctx, requestID, "after a failed write: "+werr.Error()) == nil {
				outcome, failure = refundkit.OutcomeUnknown, nil
			}
		}
	}
	defer func() {
		if p := recover(); p != nil {
			finish(refundkit.StatusNeedsCheck, fmt.Sprint("recovered: ", p))
			res, resErr = outcome, failure
		}
	}()
	run := func() (o refundkit.Outcome, e error) {
		defer func() { o, e = outcome, failure }()

		// lookUp answers whether the provider holds our refund; ok is false
		// when the provider could not be asked.
		lookUp := func() (found *refundkit.ProviderRefund, ok bool) {
			for try := range 2 {
				if try > 0 {
					select {
					case <-ctx.Done():
						return nil, false
					case <-time.After(1500 * time.Millisecond):
					}
				}
				list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
				if err != nil {
					refundkit.Logf(ctx, "look-up %d: %v", try+1, err)
					continue
				}
				for r := range matching(list, prefix) {
					return &r, true
				}
				return nil, true
			}
			return nil, false
		}
		settleFound := func(r *refundkit.ProviderRefund) {
			if r.Amount == rec.Amount {
				finish(refundkit.StatusDone, "")
				return
			}
			finish(refundkit.StatusNeedsCheck, fmt.Sprintf("found %s of %d, want %d", r.ID, r.Amount, rec.Amount))
		}
		reconcile := func(why string) {
			if r, ok := lookUp(); ok && r != nil {
				settleFound(r)
				return
			}
			finish(refundkit.StatusNeedsCheck, why)
		}

		uncertain := rec.Status != refundkit.StatusPending
		if uncertain {
			r, ok := lookUp()
			if !ok {
				finish(refundkit.StatusNeedsCheck, "could not look the refund up")
				return
			}
			if r != nil {
				settleFound(r)
				return
			}
		}

		params := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: prefix, Reference: prefix}
		floor := time.Duration(0) // a Retry-After the next wait must honour
		wait := func(n int) time.Duration {
			ceiling := 250 * time.Millisecond << n
			if ceiling > 20*time.Second {
				ceiling = 20 * time.Second
			}
			d := time.Duration(rand.Int63n(int64(ceiling))) + time.Millisecond
			if d < floor {
				d = floor + time.Duration(rand.Int63n(int64(time.Second)))
			}
			floor = 0
			return d
		}
		const attempts = 6
		last, stop := 0, false
		for n := range schedule(ctx, attempts, wait) {
			last = n
			_, err := refundkit.CreateRefund(ctx, params)
			if err == nil {
				finish(refundkit.StatusDone, "")
				return
			}
			refundkit.Logf(ctx, "send %d/%d: %v", n, attempts, err)
			var api *refundkit.APIError
			var cut *refundkit.ConnectionError
			var silent *refundkit.TimeoutError
			switch {
			case errors.Is(err, refundkit.ErrAlreadyRefunded):
				finish(refundkit.StatusDone, "")
				return
			case errors.As(err, &cut):
			case errors.As(err, &silent), errors.Is(err, refundkit.ErrIdempotencyKeyInUse):
				uncertain = true
			case errors.Is(err, refundkit.ErrRateLimited):
				if errors.As(err, &api) {
					if api.RetryAfter > 30*time.Second {
						last, stop = attempts, true
						break
					}
					floor = api.RetryAfter
				}
			case errors.Is(err, refundkit.ErrServer):
				uncertain = true
				if errors.As(err, &api) && api.Replayed {
					reconcile("the provider replays a saved 5xx")
					return
				}
			case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
				finish(refundkit.StatusNeedsCheck, err.Error())
				return
			case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing),
				errors.As(err, &api) && api.Status == 401:
				if uncertain {
					reconcile("refused after doubt: " + err.Error())
					return
				}
				finish(refundkit.StatusFailed, err.Error())
				return
			default:
				finish(refundkit.StatusNeedsCheck, "unexpected: "+err.Error())
				return
			}
			if stop {
				break
			}
		}
		if last < attempts && ctx.Err() != nil {
			refundkit.Logf(wctx, "caller gone after %d attempts: %v", last, ctx.Err())
		}
		if uncertain {
			finish(refundkit.StatusNeedsCheck, "no clear answer; the refund may have happened")
			return
		}
		finish(refundkit.StatusFailed, "no attempt reached the provider")
		return
	}
	return run()
}
