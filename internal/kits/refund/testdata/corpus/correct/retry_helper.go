// Style: a reusable retry helper that takes the attempt as a closure and a
// policy value (attempts, base, cap, jitter in [0.5, 1.5)), and a
// defer/recover that settles the record before re-panicking; four
// attempts; key "refund_<id>_1"; a 150-second lease.
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type policy struct {
	attempts int
	base     time.Duration
	cap      time.Duration
}

// retry calls try until it says stop or the attempts run out. try returns
// how long the provider asked us to wait (Retry-After), if at all.
func retry(pol policy, try func(n int) (stop bool, retryAfter time.Duration)) {
	for n := 1; n <= pol.attempts; n++ {
		stop, ra := try(n)
		if stop || n == pol.attempts {
			return
		}
		d := pol.base << uint(n-1)
		if d > pol.cap {
			d = pol.cap
		}
		d = time.Duration(float64(d) * (0.5 + rand.Float64()))
		if ra > d {
			d = ra
		}
		time.Sleep(d)
	}
}

func RefundMoney(ctx context.Context, requestID string) (out refundkit.Outcome, err error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("no refund request %s", requestID)
	} else if err != nil {
		return "", err
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	claimed, err := refundkit.Claim(ctx, requestID, 150*time.Second)
	if err != nil {
		return "", err
	}
	if !claimed {
		r, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		return map[refundkit.Status]refundkit.Outcome{
			refundkit.StatusDone:       refundkit.OutcomeDone,
			refundkit.StatusFailed:     refundkit.OutcomeFailed,
			refundkit.StatusNeedsCheck: refundkit.OutcomeUnknown,
			refundkit.StatusProcessing: refundkit.OutcomeInProgress,
			refundkit.StatusPending:    refundkit.OutcomeInProgress,
		}[r.Status], nil
	}

	stored := false
	defer func() {
		if stored {
			return
		}
		p := recover()
		refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, fmt.Sprintf("run broke off: %v", p))
		if p != nil {
			panic(p)
		}
	}()
	store := func(st refundkit.Status, why string) (refundkit.Outcome, error) {
		c := context.WithoutCancel(ctx)
		var e error
		o := refundkit.OutcomeUnknown
		if st == refundkit.StatusDone {
			e = refundkit.MarkDone(c, requestID)
			o = refundkit.OutcomeDone
		} else if st == refundkit.StatusFailed {
			e = refundkit.MarkFailed(c, requestID, why)
			o = refundkit.OutcomeFailed
		} else {
			e = refundkit.MarkNeedsCheck(c, requestID, why)
		}
		if e != nil {
			return "", e
		}
		stored = true
		return o, nil
	}
	check := func() (found, same bool, e error) {
		list, e := refundkit.ListRefunds(ctx, rec.ChargeID)
		if e != nil {
			return false, false, e
		}
		for _, r := range list {
			if r.Reference == requestID {
				return true, r.Amount == rec.Amount, nil
			}
		}
		return false, false, nil
	}

	unknown := rec.Status != refundkit.StatusPending && rec.Status != refundkit.StatusFailed
	if unknown {
		found, same, e := check()
		if e != nil {
			return store(refundkit.StatusNeedsCheck, "look-up failed: "+e.Error())
		}
		if found && same {
			return store(refundkit.StatusDone, "")
		}
		if found {
			return store(refundkit.StatusNeedsCheck, "other amount under our reference")
		}
	}

	final := refundkit.Status("")
	why := ""
	params := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: "refund_" + requestID + "_1", Reference: requestID}
	retry(policy{attempts: 4, base: 500 * time.Millisecond, cap: 8 * time.Second}, func(n int) (bool, time.Duration) {
		_, e := refundkit.CreateRefund(ctx, params)
		if e == nil {
			final = refundkit.StatusDone
			return true, 0
		}
		why = e.Error()
		refundkit.Logf(ctx, "attempt %d: %s", n, why)
		var api *refundkit.APIError
		var conn *refundkit.ConnectionError
		isAPI := errors.As(e, &api)
		switch {
		case errors.Is(e, refundkit.ErrAlreadyRefunded):
			final = refundkit.StatusDone
			return true, 0
		case errors.Is(e, refundkit.ErrIdempotencyKeyReused):
			final = refundkit.StatusNeedsCheck
			return true, 0
		case errors.Is(e, refundkit.ErrInvalidRequest), errors.Is(e, refundkit.ErrResourceMissing):
			final = refundkit.StatusFailed
			if unknown {
				final = refundkit.StatusNeedsCheck
			}
			return true, 0
		case errors.Is(e, refundkit.ErrRateLimited):
			return false, api.RetryAfter
		case errors.As(e, &conn):
			return false, 0
		}
		unknown = true
		return isAPI && api.Replayed, 0
	})
	if final != "" {
		return store(final, why)
	}
	if !unknown {
		return store(refundkit.StatusFailed, why)
	}
	if found, same, e := check(); e == nil && found && same {
		return store(refundkit.StatusDone, "")
	}
	return store(refundkit.StatusNeedsCheck, why)
}
