// Style: every call logs its outcome, its error and how long it took, on
// the way out (a deferred log line around the work, which may let other
// workers act between the last look at the record and the return); the
// work inside is table_driven.go's: table-driven error classification,
// full jitter with a 100 ms floor, five attempts, key "refunds:v2:<id>",
// a three-minute lease.
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type verdict int

const (
	vRetry     verdict = iota // never executed: send again
	vAmbiguous                // may have happened: same key, or look it up
	vDone                     // the money is back with the customer
	vRejected                 // will never succeed
	vConflict                 // our key was used with other parameters
)

type rule struct {
	name  string
	match func(error) bool
	v     verdict
}

func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

func classify(err error) (verdict, string) {
	rules := []rule{
		{"already refunded", is(refundkit.ErrAlreadyRefunded), vDone},
		{"key in use", is(refundkit.ErrIdempotencyKeyInUse), vAmbiguous},
		{"key reused", is(refundkit.ErrIdempotencyKeyReused), vConflict},
		{"rate limited", is(refundkit.ErrRateLimited), vRetry},
		{"invalid", is(refundkit.ErrInvalidRequest), vRejected},
		{"no such charge", is(refundkit.ErrResourceMissing), vRejected},
		{"server error", is(refundkit.ErrServer), vAmbiguous},
		{"not sent", func(err error) bool {
			var c *refundkit.ConnectionError
			return errors.As(err, &c)
		}, vRetry},
		{"timeout", func(err error) bool {
			var t *refundkit.TimeoutError
			return errors.As(err, &t)
		}, vAmbiguous},
	}
	for _, r := range rules {
		if r.match(err) {
			return r.v, r.name
		}
	}
	return vAmbiguous, "unrecognised"
}

func RefundMoney(ctx context.Context, requestID string) (out refundkit.Outcome, err error) {
	began := time.Now()
	defer func() {
		if err != nil {
			refundkit.Logf(ctx, "refund %s: %q after %s, error: %v", requestID, out, time.Since(began), err)
			return
		}
		refundkit.Logf(ctx, "refund %s: %s after %s", requestID, out, time.Since(began))
	}()
	return settleRefund(ctx, requestID)
}

// settleRefund does the work of one call of RefundMoney.
func settleRefund(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		return "", fmt.Errorf("refund %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	if ok, err := refundkit.Claim(ctx, requestID, 3*time.Minute); err != nil {
		return "", err
	} else if !ok {
		latest, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		return map[refundkit.Status]refundkit.Outcome{
			refundkit.StatusDone:       refundkit.OutcomeDone,
			refundkit.StatusFailed:     refundkit.OutcomeFailed,
			refundkit.StatusNeedsCheck: refundkit.OutcomeUnknown,
			refundkit.StatusProcessing: refundkit.OutcomeInProgress,
			refundkit.StatusPending:    refundkit.OutcomeInProgress,
		}[latest.Status], nil
	}

	return record(ctx, rec)
}

// record decides and writes the final status. A panic on the way (a
// helper, the store's driver) still leaves needs_check behind, then goes on
// up.
func record(ctx context.Context, rec *refundkit.Record) (out refundkit.Outcome, err error) {
	id := rec.RequestID
	ok := false
	defer func() {
		if !ok {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), id, "the run did not finish recording")
		}
	}()
	status, reason := decide(ctx, rec)
	c := context.WithoutCancel(ctx)
	switch status {
	case refundkit.StatusDone:
		err = refundkit.MarkDone(c, id)
		out = refundkit.OutcomeDone
	case refundkit.StatusFailed:
		err = refundkit.MarkFailed(c, id, reason)
		out = refundkit.OutcomeFailed
	default:
		err = refundkit.MarkNeedsCheck(c, id, reason)
		out = refundkit.OutcomeUnknown
	}
	if err != nil {
		return "", err
	}
	ok = true
	return out, nil
}

func lookUp(ctx context.Context, rec *refundkit.Record) (refundkit.Status, bool) {
	list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
	if err != nil {
		return refundkit.StatusNeedsCheck, true
	}
	for _, r := range list {
		if r.Reference == rec.RequestID {
			if r.Amount == rec.Amount {
				return refundkit.StatusDone, true
			}
			return refundkit.StatusNeedsCheck, true
		}
	}
	return "", false
}

func decide(ctx context.Context, rec *refundkit.Record) (refundkit.Status, string) {
	maybe := false
	if rec.Status == refundkit.StatusNeedsCheck || rec.Status == refundkit.StatusProcessing {
		maybe = true
		if st, found := lookUp(ctx, rec); found {
			return st, "found at the provider, or the look-up failed"
		}
	}
	params := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: "refunds:v2:" + rec.RequestID, Reference: rec.RequestID}
	why := ""
	for i := 0; i < 5; i++ {
		_, err := refundkit.CreateRefund(ctx, params)
		if err == nil {
			return refundkit.StatusDone, ""
		}
		v, name := classify(err)
		why = name + ": " + err.Error()
		refundkit.Logf(ctx, "attempt %d: %s", i+1, why)
		switch v {
		case vDone:
			return refundkit.StatusDone, ""
		case vConflict:
			return refundkit.StatusNeedsCheck, why
		case vRejected:
			if maybe {
				return refundkit.StatusNeedsCheck, why
			}
			return refundkit.StatusFailed, why
		case vAmbiguous:
			maybe = true
		}
		var api *refundkit.APIError
		hasAPI := errors.As(err, &api)
		if v == vAmbiguous && hasAPI && api.Replayed {
			break
		}
		if i < 4 {
			wait := 100*time.Millisecond + time.Duration(rand.Int63n(int64(250*time.Millisecond<<uint(i))))
			if hasAPI && api.RetryAfter > wait {
				wait = api.RetryAfter
			}
			time.Sleep(wait)
		}
	}
	if !maybe {
		return refundkit.StatusFailed, why
	}
	if st, found := lookUp(ctx, rec); found && st == refundkit.StatusDone {
		return st, ""
	}
	return refundkit.StatusNeedsCheck, why
}
