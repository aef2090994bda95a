// Style: iterators: the retry schedule is a range-over-func sequence
// (iter.Seq-shaped, written without the iter package), the look-up scans
// refunds through another one; decorrelated jitter; ten-minute lease.
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

const (
	claimFor = 10 * time.Minute
	tries    = 6
)

// schedule yields the attempt number and the pause to take before it: none
// before the first, decorrelated jitter after.
func schedule(n int) func(yield func(int, time.Duration) bool) {
	return func(yield func(int, time.Duration) bool) {
		prev := 250 * time.Millisecond
		for i := 0; i < n; i++ {
			var pause time.Duration
			if i > 0 {
				hi := prev * 3
				if hi > 40*time.Second {
					hi = 40 * time.Second
				}
				lo := 250 * time.Millisecond
				pause = lo + time.Duration(rand.Int63n(int64(hi-lo)+1))
				prev = pause
			}
			if !yield(i, pause) {
				return
			}
		}
	}
}

// ours yields the refunds of the list that were made for this request.
func ours(list []refundkit.ProviderRefund, ref string) func(yield func(refundkit.ProviderRefund) bool) {
	return func(yield func(refundkit.ProviderRefund) bool) {
		for _, r := range list {
			if r.Reference == ref && r.Status != "failed" && r.Status != "canceled" {
				if !yield(r) {
					return
				}
			}
		}
	}
}

type ending struct {
	out    refundkit.Outcome
	reason string
}

var errLookUp = errors.New("look-up failed")

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("RefundMoney(%s): the request does not exist", requestID)
	} else if err != nil {
		return "", fmt.Errorf("RefundMoney(%s): %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	resumed := rec.Status != refundkit.StatusPending
	won, err := refundkit.Claim(ctx, requestID, claimFor)
	if err != nil {
		return "", fmt.Errorf("RefundMoney(%s): claim: %w", requestID, err)
	}
	if !won {
		now, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("RefundMoney(%s): %w", requestID, err)
		}
		return statusOutcome(now.Status), nil
	}
	expires := time.Now().Add(claimFor)
	store := context.WithoutCancel(ctx)
	defer func() {
		if p := recover(); p != nil {
			refundkit.MarkNeedsCheck(store, requestID, fmt.Sprint(p))
			panic(p)
		}
	}()
	return finish(store, requestID, attempt(ctx, rec, resumed, expires))
}

func statusOutcome(s refundkit.Status) refundkit.Outcome {
	switch s {
	case refundkit.StatusDone:
		return refundkit.OutcomeDone
	case refundkit.StatusFailed:
		return refundkit.OutcomeFailed
	case refundkit.StatusNeedsCheck:
		return refundkit.OutcomeUnknown
	default:
		return refundkit.OutcomeInProgress
	}
}

func search(ctx context.Context, rec *refundkit.Record) (*refundkit.ProviderRefund, error) {
	for i, pause := range schedule(3) {
		if pause > 0 {
			time.Sleep(pause)
		}
		list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
		if err != nil {
			refundkit.Logf(ctx, "look-up %d: %v", i+1, err)
			continue
		}
		for r := range ours(list, rec.RequestID) {
			return &r, nil
		}
		return nil, nil
	}
	return nil, errLookUp
}

func byLookUp(ctx context.Context, rec *refundkit.Record) ending {
	r, err := search(ctx, rec)
	switch {
	case err != nil:
		return ending{refundkit.OutcomeUnknown, "could not look the refund up"}
	case r == nil:
		return ending{refundkit.OutcomeUnknown, "no refund found yet, but one may still land"}
	case r.Amount != rec.Amount:
		return ending{refundkit.OutcomeUnknown, "found a refund of another amount"}
	}
	return ending{refundkit.OutcomeDone, ""}
}

func attempt(ctx context.Context, rec *refundkit.Record, resumed bool, expires time.Time) ending {
	maybeSent := resumed
	if resumed {
		r, err := search(ctx, rec)
		if err != nil {
			return ending{refundkit.OutcomeUnknown, "could not look the refund up before resending"}
		}
		if r != nil && r.Amount == rec.Amount {
			return ending{refundkit.OutcomeDone, ""}
		}
		if r != nil {
			return ending{refundkit.OutcomeUnknown, "found a refund of another amount"}
		}
	}
	p := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: rec.RequestID + "-refund", Reference: rec.RequestID}
	var floor time.Duration
	for i, pause := range schedule(tries) {
		if floor > pause {
			pause = floor
		}
		if time.Until(expires) < pause+2*time.Minute {
			break
		}
		if pause > 0 {
			time.Sleep(pause)
		}
		if ctx.Err() != nil {
			break
		}
		_, err := refundkit.CreateRefund(ctx, p)
		floor = 0
		if err == nil {
			return ending{refundkit.OutcomeDone, ""}
		}
		refundkit.Logf(ctx, "try %d: %v", i+1, err)
		var ce *refundkit.ConnectionError
		var te *refundkit.TimeoutError
		var ae *refundkit.APIError
		if errors.As(err, &ce) {
			continue
		}
		if errors.As(err, &te) {
			maybeSent = true
			continue
		}
		if !errors.As(err, &ae) {
			return ending{refundkit.OutcomeUnknown, err.Error()}
		}
		switch {
		case errors.Is(err, refundkit.ErrAlreadyRefunded):
			return ending{refundkit.OutcomeDone, ""}
		case errors.Is(err, refundkit.ErrRateLimited):
			floor = ae.RetryAfter
		case errors.Is(err, refundkit.ErrIdempotencyKeyInUse):
			maybeSent = true
		case errors.Is(err, refundkit.ErrServer):
			maybeSent = true
			if ae.Replayed {
				return byLookUp(ctx, rec)
			}
		case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
			return ending{refundkit.OutcomeUnknown, "the key was used with other parameters"}
		default:
			if maybeSent {
				return byLookUp(ctx, rec)
			}
			return ending{refundkit.OutcomeFailed, err.Error()}
		}
	}
	if maybeSent {
		return ending{refundkit.OutcomeUnknown, "attempts ran out after an ambiguous answer"}
	}
	return ending{refundkit.OutcomeFailed, "the provider never got the request"}
}

func finish(ctx context.Context, id string, e ending) (refundkit.Outcome, error) {
	var err error
	switch e.out {
	case refundkit.OutcomeDone:
		if err = refundkit.MarkDone(ctx, id); err != nil {
			if refundkit.MarkNeedsCheck(ctx, id, "refunded; recording done failed") == nil {
				return refundkit.OutcomeUnknown, nil
			}
		}
	case refundkit.OutcomeFailed:
		err = refundkit.MarkFailed(ctx, id, e.reason)
	default:
		err = refundkit.MarkNeedsCheck(ctx, id, e.reason)
	}
	if err != nil {
		return "", fmt.Errorf("RefundMoney(%s): recording %s: %w", id, e.out, err)
	}
	return e.out, nil
}
