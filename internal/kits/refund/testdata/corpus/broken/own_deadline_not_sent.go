// From: correct/attempt_goroutines_budget.go
// Drops: the doubt of an attempt its own deadline cut off: the attempt's context ending is sorted with the connection errors, as if nothing had left, so a run whose caller's deadline passes during its only request records failed although that request may have landed.
// defect: unknown-not-failed
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
	leaseB      = 10 * time.Minute
	budgetB     = 6 * time.Minute
	attemptsB   = 4
	perAttemptB = 15 * time.Second
	baseB       = time.Second
	capB        = 20 * time.Second
)

type reply struct {
	pr  *refundkit.ProviderRefund
	err error
}

var errAttemptDeadline = errors.New("own attempt deadline passed")

// sendOnce runs one CreateRefund in a goroutine; the channel is buffered so
// an abandoned goroutine can always hand its answer over and end.
func sendOnce(ctx context.Context, p refundkit.RefundParams) (*refundkit.ProviderRefund, error) {
	actx, cancel := context.WithTimeout(ctx, perAttemptB)
	defer cancel()
	ch := make(chan reply, 1)
	go func() {
		pr, err := refundkit.CreateRefund(actx, p)
		ch <- reply{pr, err}
	}()
	select {
	case r := <-ch:
		return r.pr, r.err
	case <-actx.Done():
		return nil, errAttemptDeadline
	}
}

type ledger int

const (
	ledgerAbsent ledger = iota
	ledgerOurs
	ledgerMismatch
	ledgerUnreachable
)

func checkLedger(ctx context.Context, rec *refundkit.Record, ref string) ledger {
	wait := 300 * time.Millisecond
	for i := 0; i < 3; i++ {
		if i > 0 {
			time.Sleep(wait + time.Duration(rand.Int63n(int64(wait))))
			wait *= 2
		}
		list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
		if err != nil {
			refundkit.Logf(ctx, "look-up for %s failed: %v", rec.RequestID, err)
			continue
		}
		res := ledgerAbsent
		for _, r := range list {
			if r.Reference == ref {
				if r.Amount == rec.Amount {
					return ledgerOurs
				}
				res = ledgerMismatch
			}
		}
		return res
	}
	return ledgerUnreachable
}

func persist(ctx context.Context, id string, st refundkit.Status, why string) (refundkit.Outcome, error) {
	var err error
	for i := 0; i < 4; i++ {
		if i > 0 {
			time.Sleep(time.Duration(i) * 250 * time.Millisecond)
		}
		switch st {
		case refundkit.StatusDone:
			err = refundkit.MarkDone(ctx, id)
		case refundkit.StatusFailed:
			err = refundkit.MarkFailed(ctx, id, why)
		default:
			err = refundkit.MarkNeedsCheck(ctx, id, why)
		}
		if err == nil {
			switch st {
			case refundkit.StatusDone:
				return refundkit.OutcomeDone, nil
			case refundkit.StatusFailed:
				return refundkit.OutcomeFailed, nil
			}
			return refundkit.OutcomeUnknown, nil
		}
	}
	return "", fmt.Errorf("refund %s: could not record %s: %w", id, st, err)
}

// RefundMoney refunds the stored request requestID at most once.
func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("no refund request with id %q: %w", requestID, err)
	}
	if err != nil {
		return "", fmt.Errorf("loading refund %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}

	got, err := refundkit.Claim(ctx, requestID, leaseB)
	if err != nil {
		return "", fmt.Errorf("claiming refund %s: %w", requestID, err)
	}
	if !got {
		now, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("re-reading refund %s: %w", requestID, err)
		}
		switch now.Status {
		case refundkit.StatusDone:
			return refundkit.OutcomeDone, nil
		case refundkit.StatusFailed:
			return refundkit.OutcomeFailed, nil
		case refundkit.StatusNeedsCheck:
			return refundkit.OutcomeUnknown, nil
		}
		return refundkit.OutcomeInProgress, nil
	}
	start := time.Now()
	keep := context.WithoutCancel(ctx)
	ref := "refund_request=" + requestID

	var out refundkit.Outcome
	var perr error
	func() {
		defer func() {
			if p := recover(); p != nil {
				out, perr = persist(keep, requestID, refundkit.StatusNeedsCheck, "panic mid-refund; outcome unknown")
				perr = fmt.Errorf("refund %s panicked: %v (recorded: %v)", requestID, p, perr)
			}
		}()
		out, perr = process(ctx, keep, requestID, rec, ref, start)
	}()
	return out, perr
}

func process(ctx, keep context.Context, id string, rec *refundkit.Record, ref string, start time.Time) (refundkit.Outcome, error) {
	// Anything but a fresh or certainly-failed request may already have moved
	// money; the key may have expired, so ask the ledger before sending.
	uncertain := rec.Status == refundkit.StatusProcessing || rec.Status == refundkit.StatusNeedsCheck
	if uncertain {
		switch checkLedger(keep, rec, ref) {
		case ledgerOurs:
			return persist(keep, id, refundkit.StatusDone, "")
		case ledgerMismatch:
			return persist(keep, id, refundkit.StatusNeedsCheck, "a refund under our reference has another amount")
		case ledgerUnreachable:
			return persist(keep, id, refundkit.StatusNeedsCheck, "unsettled earlier run; look-up failed")
		}
	}

	params := refundkit.RefundParams{
		Charge:         rec.ChargeID,
		Amount:         rec.Amount,
		IdempotencyKey: "idem-v2-" + id,
		Reference:      ref,
	}
	sleep := baseB
	for n := 1; n <= attemptsB; n++ {
		if ctx.Err() != nil || time.Since(start) > budgetB {
			break
		}
		_, err := sendOnce(ctx, params)
		if err == nil {
			return persist(keep, id, refundkit.StatusDone, "")
		}
		refundkit.Logf(ctx, "refund %s try %d: %v", id, n, err)

		var conn *refundkit.ConnectionError
		var api *refundkit.APIError
		minWait := time.Duration(0)
		if errors.As(err, &conn) || errors.Is(err, errAttemptDeadline) {
			// never sent
		} else if errors.Is(err, refundkit.ErrRateLimited) {
			if errors.As(err, &api) {
				minWait = api.RetryAfter
			}
		} else if errors.Is(err, refundkit.ErrAlreadyRefunded) || errors.Is(err, refundkit.ErrInvalidRequest) ||
			errors.Is(err, refundkit.ErrResourceMissing) ||
			(errors.As(err, &api) && api.Status >= 400 && api.Status < 500 &&
				!errors.Is(err, refundkit.ErrIdempotencyKeyReused) && !errors.Is(err, refundkit.ErrIdempotencyKeyInUse)) {
			// Definitive refusal. Did an earlier request (ours) land anyway?
			if uncertain || errors.Is(err, refundkit.ErrAlreadyRefunded) {
				switch checkLedger(keep, rec, ref) {
				case ledgerOurs:
					return persist(keep, id, refundkit.StatusDone, "")
				case ledgerUnreachable, ledgerMismatch:
					return persist(keep, id, refundkit.StatusNeedsCheck, "refused after an uncertain attempt: "+err.Error())
				}
			}
			return persist(keep, id, refundkit.StatusFailed, err.Error())
		} else if errors.Is(err, refundkit.ErrIdempotencyKeyReused) {
			uncertain = true
			break
		} else if errors.Is(err, refundkit.ErrServer) && errors.As(err, &api) && api.Replayed {
			uncertain = true
			break
		} else {
			// timeout, own deadline, 409, 5xx, anything unknown: may have landed
			uncertain = true
			if errors.Is(err, refundkit.ErrIdempotencyKeyInUse) {
				minWait = 2 * time.Second
			}
		}
		if n == attemptsB {
			break
		}
		// decorrelated jitter: sleep = min(cap, rand[base, 3*sleep))
		sleep = baseB + time.Duration(rand.Int63n(int64(3*sleep-baseB)))
		if sleep > capB {
			sleep = capB
		}
		wait := sleep
		if wait < minWait {
			wait = minWait
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}

	if !uncertain {
		return persist(keep, id, refundkit.StatusFailed, "no request reached the provider")
	}
	if ctx.Err() == nil {
		if checkLedger(keep, rec, ref) == ledgerOurs {
			return persist(keep, id, refundkit.StatusDone, "")
		}
	}
	return persist(keep, id, refundkit.StatusNeedsCheck, "outcome unknown after the last attempt")
}
