// Style: package-level state, as a service file often has it: a random
// source seeded from the clock and guarded by a sync.Mutex, a read-only
// table of waits (jittered at use), a read-only map of codes that can never
// succeed, a func value for the key, `var _ =` and a wrapped sentinel.
// Four attempts; key "pay-refund-<id>"; a two-minute lease.
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var (
	rngMu sync.Mutex
	rng   = rand.New(rand.NewSource(time.Now().UnixNano()))

	// waits[n] is the ceiling of the wait after attempt n+1.
	waits = []time.Duration{400 * time.Millisecond, 1200 * time.Millisecond, 3600 * time.Millisecond}

	hopeless = map[string]bool{"resource_missing": true, "parameter_invalid_integer": true}

	keyFor = func(id string) string { return "pay-refund-" + id }

	errNoRecord = fmt.Errorf("refund: %w", refundkit.ErrNotFound)
)

var _ = errors.Is

func jitter(ceiling time.Duration) time.Duration {
	rngMu.Lock()
	defer rngMu.Unlock()
	return ceiling/3 + time.Duration(rng.Int63n(int64(ceiling*2/3)))
}

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("%w: %s", errNoRecord, requestID)
	}
	if err != nil {
		return "", err
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	if ok, err := refundkit.Claim(ctx, requestID, 2*time.Minute); err != nil || !ok {
		if err != nil {
			return "", err
		}
		cur, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		switch cur.Status {
		case refundkit.StatusDone:
			return refundkit.OutcomeDone, nil
		case refundkit.StatusFailed:
			return refundkit.OutcomeFailed, nil
		case refundkit.StatusNeedsCheck:
			return refundkit.OutcomeUnknown, nil
		}
		return refundkit.OutcomeInProgress, nil
	}
	var result refundkit.Outcome
	defer func() {
		if result == "" {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, "no result was recorded")
		}
	}()
	st, why := attempt(ctx, rec)
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
		return "", err
	}
	switch st {
	case refundkit.StatusDone:
		result = refundkit.OutcomeDone
	case refundkit.StatusFailed:
		result = refundkit.OutcomeFailed
	default:
		result = refundkit.OutcomeUnknown
	}
	return result, nil
}

func seen(ctx context.Context, rec *refundkit.Record) (ok bool, amount int64, err error) {
	list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
	if err != nil {
		return false, 0, err
	}
	for _, r := range list {
		if r.Reference == rec.RequestID {
			return true, r.Amount, nil
		}
	}
	return false, 0, nil
}

func attempt(ctx context.Context, rec *refundkit.Record) (refundkit.Status, string) {
	unclear := rec.Status == refundkit.StatusNeedsCheck || rec.Status == refundkit.StatusProcessing
	if unclear {
		ok, amt, err := seen(ctx, rec)
		if err != nil {
			return refundkit.StatusNeedsCheck, "look-up: " + err.Error()
		}
		if ok && amt == rec.Amount {
			return refundkit.StatusDone, ""
		}
		if ok {
			return refundkit.StatusNeedsCheck, "another amount"
		}
	}
	p := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: keyFor(rec.RequestID), Reference: rec.RequestID}
	why := ""
	for n := 0; n <= len(waits); n++ {
		_, err := refundkit.CreateRefund(ctx, p)
		if err == nil {
			return refundkit.StatusDone, ""
		}
		why = err.Error()
		refundkit.Logf(ctx, "attempt %d: %s", n+1, why)
		var api *refundkit.APIError
		var conn *refundkit.ConnectionError
		isAPI := errors.As(err, &api)
		switch {
		case errors.Is(err, refundkit.ErrAlreadyRefunded):
			return refundkit.StatusDone, ""
		case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
			return refundkit.StatusNeedsCheck, why
		case errors.Is(err, refundkit.ErrInvalidRequest), isAPI && hopeless[api.Code], errors.Is(err, refundkit.ErrResourceMissing):
			if unclear {
				return refundkit.StatusNeedsCheck, why
			}
			return refundkit.StatusFailed, why
		case errors.As(err, &conn), errors.Is(err, refundkit.ErrRateLimited):
		default:
			unclear = true
			if isAPI && api.Replayed {
				n = len(waits)
				continue
			}
		}
		if n == len(waits) {
			break
		}
		d := jitter(waits[n])
		if isAPI && api.RetryAfter > d {
			d = api.RetryAfter
		}
		time.Sleep(d)
	}
	if !unclear {
		return refundkit.StatusFailed, why
	}
	if ok, amt, err := seen(ctx, rec); err == nil && ok && amt == rec.Amount {
		return refundkit.StatusDone, ""
	}
	return refundkit.StatusNeedsCheck, why
}
