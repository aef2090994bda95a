// Style: closures; it always looks the refund up before the first send, even
// for a fresh request (a failed look-up of a fresh request is no obstacle:
// nothing of ours can have been sent); three attempts only, doubling pause
// with a random half; a 90-second lease.
// Written for the strangers' round of 5 December 2026 from the page, the starter and refundkit only.
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
	const lease = 90 * time.Second
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		if errors.Is(err, refundkit.ErrNotFound) {
			return "", fmt.Errorf("refund %q: no record: %w", requestID, err)
		}
		return "", fmt.Errorf("refund %q: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	fresh := rec.Status == refundkit.StatusPending
	if ok, err := refundkit.Claim(ctx, requestID, lease); err != nil {
		return "", fmt.Errorf("refund %q: claim: %w", requestID, err)
	} else if !ok {
		cur, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("refund %q: %w", requestID, err)
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
	start := time.Now()
	db := context.WithoutCancel(ctx)
	defer func() {
		if x := recover(); x != nil {
			refundkit.MarkNeedsCheck(db, requestID, "panicked mid-refund")
			panic(x)
		}
	}()
	key := "REFUND_" + requestID + "_" + rec.ChargeID
	ref := requestID

	done := func() (refundkit.Outcome, error) {
		if err := refundkit.MarkDone(db, requestID); err != nil {
			if err2 := refundkit.MarkNeedsCheck(db, requestID, "refunded, but done was not written"); err2 != nil {
				return "", err
			}
			return refundkit.OutcomeUnknown, nil
		}
		return refundkit.OutcomeDone, nil
	}
	failed := func(why string) (refundkit.Outcome, error) {
		if err := refundkit.MarkFailed(db, requestID, why); err != nil {
			return "", err
		}
		return refundkit.OutcomeFailed, nil
	}
	unknown := func(why string) (refundkit.Outcome, error) {
		if err := refundkit.MarkNeedsCheck(db, requestID, why); err != nil {
			return "", err
		}
		return refundkit.OutcomeUnknown, nil
	}
	// look returns +1 found of the right amount, -1 found of another, 0 none;
	// ok false when every look-up failed.
	look := func() (int, bool) {
		for i := 0; i < 2; i++ {
			if i == 1 {
				time.Sleep(time.Second + time.Duration(rand.Intn(1000))*time.Millisecond)
			}
			rs, err := refundkit.ListRefunds(ctx, rec.ChargeID)
			if err != nil {
				continue
			}
			for _, r := range rs {
				if r.Reference == ref && r.Status != "failed" && r.Status != "canceled" {
					if r.Amount == rec.Amount {
						return 1, true
					}
					return -1, true
				}
			}
			return 0, true
		}
		return 0, false
	}
	afterDoubt := func(why string) (refundkit.Outcome, error) {
		if v, ok := look(); ok && v == 1 {
			return done()
		}
		return unknown(why)
	}

	v, ok := look()
	switch {
	case ok && v == 1:
		return done()
	case ok && v == -1:
		return unknown("a refund of another amount has this request's reference")
	case !ok && !fresh:
		return unknown("could not look up what an earlier run did")
	}

	doubt := !fresh
	pause := time.Second
	for attempt := 1; attempt <= 3; attempt++ {
		if ctx.Err() != nil {
			break
		}
		_, err := refundkit.CreateRefund(ctx, refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: key, Reference: ref})
		if err == nil || errors.Is(err, refundkit.ErrAlreadyRefunded) {
			return done()
		}
		refundkit.Logf(ctx, "attempt %d failed: %v", attempt, err)
		var te *refundkit.TimeoutError
		var ce *refundkit.ConnectionError
		var ae *refundkit.APIError
		retryAfter := time.Duration(0)
		switch {
		case errors.As(err, &ce):
		case errors.As(err, &te):
			doubt = true
		case errors.As(err, &ae) && ae.Status == 429:
			retryAfter = ae.RetryAfter
		case errors.As(err, &ae) && ae.Status == 409:
			doubt = true
		case errors.As(err, &ae) && ae.Status >= 500:
			doubt = true
			if ae.Replayed {
				return afterDoubt("server error replayed under our key")
			}
		case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
			return unknown("key reused with other parameters")
		case errors.As(err, &ae) && (ae.Status == 400 || ae.Status == 404 || ae.Status == 401):
			if doubt {
				return afterDoubt("refused after an ambiguous attempt")
			}
			return failed(err.Error())
		default:
			return unknown("unexpected: " + err.Error())
		}
		if attempt == 3 {
			break
		}
		wait := pause/2 + time.Duration(rand.Int63n(int64(pause/2)+1))
		if retryAfter > wait {
			wait = retryAfter
		}
		if time.Since(start)+wait+40*time.Second > lease {
			break
		}
		time.Sleep(wait)
		pause *= 2
	}
	if doubt {
		return afterDoubt("attempts ran out after an ambiguous answer")
	}
	return failed("no attempt reached the provider")
}
