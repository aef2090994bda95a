// Style: each attempt runs in a goroutine under a per-attempt deadline of its
// own (15 s), the answer comes back on a buffered channel; the caller waits
// in a select that also watches the caller's context.
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
	perAttempt = 15 * time.Second
	ownLease   = 8 * time.Minute
	sendLimit  = 4
)

type answer struct {
	refund *refundkit.ProviderRefund
	err    error
}

var errCallerGone = errors.New("the caller stopped waiting")

func sendOnce(ctx context.Context, p refundkit.RefundParams) (*refundkit.ProviderRefund, error) {
	actx, cancel := context.WithTimeout(ctx, perAttempt)
	defer cancel()
	ch := make(chan answer, 1) // buffered: the goroutine never blocks on send
	go func() {
		r, err := refundkit.CreateRefund(actx, p)
		ch <- answer{r, err}
	}()
	select {
	case a := <-ch:
		return a.refund, a.err
	case <-ctx.Done():
		return nil, errCallerGone
	}
}

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("refund request %s not found", requestID)
	}
	if err != nil {
		return "", fmt.Errorf("refund request %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	unsettled := rec.Status != refundkit.StatusPending

	mine, err := refundkit.Claim(ctx, requestID, ownLease)
	if err != nil {
		return "", fmt.Errorf("refund request %s: claim: %w", requestID, err)
	}
	if !mine {
		r2, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("refund request %s: %w", requestID, err)
		}
		switch r2.Status {
		case refundkit.StatusDone:
			return refundkit.OutcomeDone, nil
		case refundkit.StatusFailed:
			return refundkit.OutcomeFailed, nil
		case refundkit.StatusNeedsCheck:
			return refundkit.OutcomeUnknown, nil
		}
		return refundkit.OutcomeInProgress, nil
	}
	claimedAt := time.Now()
	wctx := context.WithoutCancel(ctx)
	defer func() {
		if v := recover(); v != nil {
			refundkit.MarkNeedsCheck(wctx, requestID, "panic while refunding")
			panic(v)
		}
	}()

	mark := func(out refundkit.Outcome, why string) (refundkit.Outcome, error) {
		var err error
		switch out {
		case refundkit.OutcomeDone:
			if err = refundkit.MarkDone(wctx, requestID); err != nil {
				out, err = refundkit.OutcomeUnknown, refundkit.MarkNeedsCheck(wctx, requestID, "could not record done")
			}
		case refundkit.OutcomeFailed:
			err = refundkit.MarkFailed(wctx, requestID, why)
		default:
			err = refundkit.MarkNeedsCheck(wctx, requestID, why)
		}
		if err != nil {
			return "", err
		}
		return out, nil
	}
	lookup := func() (found bool, rightAmount bool, ok bool) {
		for i := 0; i < 2; i++ {
			if i > 0 {
				time.Sleep(3 * time.Second)
			}
			list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
			if err != nil {
				continue
			}
			for _, r := range list {
				if r.Reference == "refund for "+requestID && r.Status != "failed" && r.Status != "canceled" {
					return true, r.Amount == rec.Amount, true
				}
			}
			return false, false, true
		}
		return false, false, false
	}
	settleAfterDoubt := func(why string) (refundkit.Outcome, error) {
		found, right, ok := lookup()
		if ok && found && right {
			return mark(refundkit.OutcomeDone, "")
		}
		return mark(refundkit.OutcomeUnknown, why)
	}

	if unsettled {
		found, right, ok := lookup()
		switch {
		case !ok:
			return mark(refundkit.OutcomeUnknown, "could not look up the earlier run's refund")
		case found && right:
			return mark(refundkit.OutcomeDone, "")
		case found:
			return mark(refundkit.OutcomeUnknown, "a refund of another amount has our reference")
		}
	}
	params := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount,
		IdempotencyKey: fmt.Sprintf("%s.%d", requestID, rec.Amount), Reference: "refund for " + requestID}
	ambiguous := unsettled
	for n := 1; n <= sendLimit; n++ {
		if ctx.Err() != nil {
			break
		}
		_, err := sendOnce(ctx, params)
		if err == nil {
			return mark(refundkit.OutcomeDone, "")
		}
		var wait time.Duration
		var ae *refundkit.APIError
		var ce *refundkit.ConnectionError
		switch {
		case errors.Is(err, errCallerGone):
			ambiguous = true
		case errors.As(err, &ce):
		case errors.As(err, &ae):
			switch {
			case errors.Is(err, refundkit.ErrAlreadyRefunded):
				return mark(refundkit.OutcomeDone, "")
			case ae.Status == 429:
				wait = ae.RetryAfter
			case ae.Status == 409:
				ambiguous = true
			case ae.Status >= 500 && ae.Replayed:
				return settleAfterDoubt("the provider replays a server error")
			case ae.Status >= 500:
				ambiguous = true
			case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
				return mark(refundkit.OutcomeUnknown, "key reused with other parameters")
			default:
				if ambiguous {
					return settleAfterDoubt("refused after an ambiguous attempt")
				}
				return mark(refundkit.OutcomeFailed, err.Error())
			}
		default: // timeouts, ours or the client's
			ambiguous = true
		}
		if n == sendLimit || ctx.Err() != nil {
			break
		}
		// exponential, full jitter on top of a small floor
		b := time.Duration(1<<uint(n)) * 700 * time.Millisecond
		j := 50*time.Millisecond + time.Duration(rand.Int63n(int64(b)))
		if j > wait {
			wait = j
		}
		if time.Since(claimedAt)+wait+perAttempt+time.Minute > ownLease {
			break
		}
		time.Sleep(wait)
	}
	if ambiguous {
		return mark(refundkit.OutcomeUnknown, "attempts ran out after an ambiguous answer")
	}
	return mark(refundkit.OutcomeFailed, "the provider never received the request")
}
