// Style: generics with type-set constraints: a backoff schedule generic over
// ~int64 (instantiated with time.Duration), a generic "first match" over the
// provider's refunds, min/max builtins and range over an int for the attempts.
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

// Span is any integer-like length of time.
type Span interface {
	~int64
}

// grow doubles base n times, never past ceiling.
func grow[T Span](base, ceiling T, n int) T {
	v := base
	for range n {
		v = min(v*2, ceiling)
	}
	return v
}

// spread draws a value in (ceiling/2, ceiling]: equal jitter.
func spread[T Span](ceiling T) T {
	half := ceiling / 2
	return half + T(rand.Int63n(int64(ceiling-half))+1)
}

// firstWhere returns the first element for which keep says true.
func firstWhere[E any](xs []E, keep func(E) bool) (E, bool) {
	var zero E
	for _, x := range xs {
		if keep(x) {
			return x, true
		}
	}
	return zero, false
}

const (
	tries      = 5
	baseWait   = 300 * time.Millisecond
	waitCap    = 16 * time.Second
	raCap      = 20 * time.Second // a Retry-After longer than this ends the run
	leaseFor   = 6 * time.Minute  // well over the slowest run (about 3 minutes)
	lookupOnce = 2                // look-ups per reconciliation
)

func keyOf(id string) string { return "gen-refund-key:" + id }
func refOf(id string) string { return "gen-refund-ref:" + id }

// RefundMoney refunds requestID at most once and records what happened.
func RefundMoney(ctx context.Context, requestID string) (out refundkit.Outcome, err error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("refund %q: no such refund request", requestID)
	}
	if err != nil {
		return "", fmt.Errorf("refund %q: reading the record: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	ok, err := refundkit.Claim(ctx, requestID, leaseFor)
	if err != nil {
		return "", fmt.Errorf("refund %q: claiming: %w", requestID, err)
	}
	if !ok {
		return seenHeld(ctx, requestID)
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = record(ctx, requestID, refundkit.StatusNeedsCheck, fmt.Sprintf("panic: %v", p))
		}
	}()

	doubt := rec.Status != refundkit.StatusPending
	if doubt {
		found, lerr := lookUp(ctx, rec)
		if lerr != nil {
			return record(ctx, requestID, refundkit.StatusNeedsCheck, "look-up failed: "+lerr.Error())
		}
		if found != nil {
			return byFound(ctx, rec, *found)
		}
	}

	params := refundkit.RefundParams{
		Charge:         rec.ChargeID,
		Amount:         rec.Amount,
		IdempotencyKey: keyOf(requestID),
		Reference:      refOf(requestID),
	}
	for i := range tries {
		attempt := i + 1
		_, cerr := refundkit.CreateRefund(ctx, params)
		if cerr == nil {
			return record(ctx, requestID, refundkit.StatusDone, "")
		}
		refundkit.Logf(ctx, "attempt %d of %d: %v", attempt, tries, cerr)
		wait := spread(grow(baseWait, waitCap, i))

		var apiErr *refundkit.APIError
		var conn *refundkit.ConnectionError
		var tmo *refundkit.TimeoutError
		isAPI := errors.As(cerr, &apiErr)
		switch {
		case errors.Is(cerr, refundkit.ErrAlreadyRefunded):
			return record(ctx, requestID, refundkit.StatusDone, "")
		case errors.As(cerr, &conn):
			// nothing left the machine
		case errors.As(cerr, &tmo), errors.Is(cerr, refundkit.ErrIdempotencyKeyInUse):
			doubt = true
		case errors.Is(cerr, refundkit.ErrRateLimited):
			if isAPI && apiErr.RetryAfter > raCap {
				return giveUp(ctx, rec, doubt, "rate limited with a long Retry-After")
			}
			if isAPI {
				wait = max(wait, apiErr.RetryAfter+spread(baseWait))
			}
		case errors.Is(cerr, refundkit.ErrServer):
			doubt = true
			if isAPI && apiErr.Replayed {
				return settleByLookUp(ctx, rec, "a saved server error replays")
			}
		case errors.Is(cerr, refundkit.ErrIdempotencyKeyReused):
			return record(ctx, requestID, refundkit.StatusNeedsCheck, cerr.Error())
		case errors.Is(cerr, refundkit.ErrInvalidRequest), errors.Is(cerr, refundkit.ErrResourceMissing),
			isAPI && apiErr.Status == 401:
			if doubt {
				return settleByLookUp(ctx, rec, "refused after doubt: "+cerr.Error())
			}
			return record(ctx, requestID, refundkit.StatusFailed, cerr.Error())
		default:
			return record(ctx, requestID, refundkit.StatusNeedsCheck, "unclassified: "+cerr.Error())
		}
		if attempt == tries {
			break
		}
		select {
		case <-ctx.Done():
			return giveUp(context.WithoutCancel(ctx), rec, doubt, "caller stopped waiting")
		case <-time.After(wait):
		}
	}
	return giveUp(ctx, rec, doubt, "out of attempts")
}

func giveUp(ctx context.Context, rec *refundkit.Record, doubt bool, why string) (refundkit.Outcome, error) {
	if doubt {
		return record(ctx, rec.RequestID, refundkit.StatusNeedsCheck, why+"; an attempt may have landed")
	}
	return record(ctx, rec.RequestID, refundkit.StatusFailed, why+"; nothing reached the provider")
}

func settleByLookUp(ctx context.Context, rec *refundkit.Record, why string) (refundkit.Outcome, error) {
	found, err := lookUp(ctx, rec)
	if err == nil && found != nil {
		return byFound(ctx, rec, *found)
	}
	return record(ctx, rec.RequestID, refundkit.StatusNeedsCheck, why)
}

func lookUp(ctx context.Context, rec *refundkit.Record) (*refundkit.ProviderRefund, error) {
	var last error
	for i := range lookupOnce {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(grow(time.Second, 4*time.Second, i)):
			}
		}
		list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
		if err != nil {
			last = err
			continue
		}
		r, ok := firstWhere(list, func(p refundkit.ProviderRefund) bool {
			return p.Reference == refOf(rec.RequestID) && p.Status != "failed" && p.Status != "canceled"
		})
		if !ok {
			return nil, nil
		}
		return &r, nil
	}
	return nil, last
}

func byFound(ctx context.Context, rec *refundkit.Record, r refundkit.ProviderRefund) (refundkit.Outcome, error) {
	if r.Amount == rec.Amount {
		return record(ctx, rec.RequestID, refundkit.StatusDone, "")
	}
	return record(ctx, rec.RequestID, refundkit.StatusNeedsCheck,
		fmt.Sprintf("provider holds %d under our reference, record asks %d", r.Amount, rec.Amount))
}

// record writes status; when that fails it falls back to needs_check, and
// when that fails too it returns the error.
func record(ctx context.Context, id string, status refundkit.Status, why string) (refundkit.Outcome, error) {
	var err error
	var out refundkit.Outcome
	switch status {
	case refundkit.StatusDone:
		err, out = refundkit.MarkDone(ctx, id), refundkit.OutcomeDone
	case refundkit.StatusFailed:
		err, out = refundkit.MarkFailed(ctx, id, why), refundkit.OutcomeFailed
	default:
		err, out = refundkit.MarkNeedsCheck(ctx, id, why), refundkit.OutcomeUnknown
	}
	if err == nil {
		return out, nil
	}
	if status != refundkit.StatusNeedsCheck {
		if ferr := refundkit.MarkNeedsCheck(ctx, id, fmt.Sprintf("writing %s failed: %v", status, err)); ferr == nil {
			return refundkit.OutcomeUnknown, nil
		}
	}
	return "", fmt.Errorf("refund %q: recording %s: %w", id, status, err)
}

func seenHeld(ctx context.Context, id string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, id)
	if err != nil {
		return "", fmt.Errorf("refund %q: re-reading after a refused claim: %w", id, err)
	}
	switch rec.Status {
	case refundkit.StatusDone:
		return refundkit.OutcomeDone, nil
	case refundkit.StatusFailed:
		return refundkit.OutcomeFailed, nil
	case refundkit.StatusNeedsCheck:
		return refundkit.OutcomeUnknown, nil
	}
	return refundkit.OutcomeInProgress, nil
}
