// Style: looks the refund up before every first send, fresh record or not;
// the retries are a recursive closure (attempt n calls attempt n+1 after its
// wait) rather than a loop; the writes are a map of funcs keyed by status; a
// deferred Logf of the outcome on the way out; the page's longest lease
// (ten minutes) and four attempts with a wait that doubles from 2 s with 30%
// jitter on each side. Written for the strangers' round of 6 December 2026
// from the page, the starter and refundkit only.
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var writers = map[refundkit.Status]func(ctx context.Context, id, why string) error{
	refundkit.StatusDone: func(ctx context.Context, id, _ string) error { return refundkit.MarkDone(ctx, id) },
	refundkit.StatusFailed: func(ctx context.Context, id, why string) error {
		return refundkit.MarkFailed(ctx, id, why)
	},
	refundkit.StatusNeedsCheck: func(ctx context.Context, id, why string) error {
		return refundkit.MarkNeedsCheck(ctx, id, why)
	},
}

var outcomes = map[refundkit.Status]refundkit.Outcome{
	refundkit.StatusDone:       refundkit.OutcomeDone,
	refundkit.StatusFailed:     refundkit.OutcomeFailed,
	refundkit.StatusNeedsCheck: refundkit.OutcomeUnknown,
}

// RefundMoney refunds requestID at most once.
func RefundMoney(ctx context.Context, requestID string) (out refundkit.Outcome, err error) {
	defer func() { refundkit.Logf(ctx, "RefundMoney(%s) -> %q, %v", requestID, out, err) }()
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("refund: request %s unknown", requestID)
	}
	if err != nil {
		return "", fmt.Errorf("refund: request %s: get: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	won, err := refundkit.Claim(ctx, requestID, 10*time.Minute)
	if err != nil {
		return "", fmt.Errorf("refund: request %s: claim: %w", requestID, err)
	}
	if !won {
		now, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("refund: request %s: re-read: %w", requestID, err)
		}
		if o, ok := outcomes[now.Status]; ok {
			return o, nil
		}
		return refundkit.OutcomeInProgress, nil
	}
	wctx := context.WithoutCancel(ctx)
	write := func(s refundkit.Status, why string) (refundkit.Outcome, error) {
		e := writers[s](wctx, requestID, why)
		if e == nil {
			return outcomes[s], nil
		}
		if s != refundkit.StatusNeedsCheck && writers[refundkit.StatusNeedsCheck](wctx, requestID, "write of "+string(s)+" failed") == nil {
			return refundkit.OutcomeUnknown, nil
		}
		return "", fmt.Errorf("refund: request %s: write %s: %w", requestID, s, e)
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = write(refundkit.StatusNeedsCheck, fmt.Sprint("panic: ", p))
		}
	}()

	ref := "rec-first." + requestID
	sleep := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	// look returns the refund under ref; asked is false if no look-up answered.
	look := func() (found *refundkit.ProviderRefund, asked bool) {
		for i := 0; i < 2; i++ {
			if i > 0 && !sleep(time.Second) {
				return nil, false
			}
			list, e := refundkit.ListRefunds(ctx, rec.ChargeID)
			if e != nil {
				continue
			}
			for _, r := range list {
				if r.Reference == ref && r.Status != "failed" && r.Status != "canceled" {
					r := r
					return &r, true
				}
			}
			return nil, true
		}
		return nil, false
	}
	settleLooked := func(found *refundkit.ProviderRefund, asked bool, otherwise string) (refundkit.Outcome, error) {
		switch {
		case found != nil && found.Amount == rec.Amount:
			return write(refundkit.StatusDone, "")
		case found != nil:
			return write(refundkit.StatusNeedsCheck, fmt.Sprintf("%s holds %d, record %d", found.ID, found.Amount, rec.Amount))
		case !asked:
			return write(refundkit.StatusNeedsCheck, "look-up failed; "+otherwise)
		}
		return write(refundkit.StatusNeedsCheck, otherwise)
	}

	doubt := rec.Status != refundkit.StatusPending
	found, asked := look()
	if found != nil || (!asked && doubt) {
		return settleLooked(found, asked, "an earlier run may have sent it")
	}

	params := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: ref, Reference: ref}
	const last = 4
	var attempt func(n int, notBefore time.Duration) (refundkit.Outcome, error)
	attempt = func(n int, notBefore time.Duration) (refundkit.Outcome, error) {
		if n > 1 {
			base := 2 * time.Second << (n - 2)
			d := base*7/10 + time.Duration(rand.Int63n(int64(base*6/10)))
			if d < notBefore {
				d = notBefore + time.Duration(rand.Int63n(int64(300*time.Millisecond)))
			}
			if !sleep(d) {
				return giveUpWith(write, doubt, "cancelled while waiting")
			}
		}
		_, e := refundkit.CreateRefund(ctx, params)
		if e == nil {
			return write(refundkit.StatusDone, "")
		}
		refundkit.Logf(ctx, "attempt %d: %v", n, e)
		var api *refundkit.APIError
		isAPI := errors.As(e, &api)
		var conn *refundkit.ConnectionError
		var tmo *refundkit.TimeoutError
		wait := time.Duration(0)
		switch {
		case errors.Is(e, refundkit.ErrAlreadyRefunded):
			return write(refundkit.StatusDone, "")
		case errors.As(e, &conn):
		case errors.As(e, &tmo), errors.Is(e, refundkit.ErrIdempotencyKeyInUse):
			doubt = true
		case errors.Is(e, refundkit.ErrRateLimited):
			if isAPI {
				if api.RetryAfter > 45*time.Second {
					return giveUpWith(write, doubt, "Retry-After too long")
				}
				wait = api.RetryAfter
			}
		case errors.Is(e, refundkit.ErrServer):
			doubt = true
			if isAPI && api.Replayed {
				f, a := look()
				return settleLooked(f, a, "saved 5xx replayed")
			}
		case errors.Is(e, refundkit.ErrIdempotencyKeyReused):
			return write(refundkit.StatusNeedsCheck, e.Error())
		case errors.Is(e, refundkit.ErrInvalidRequest), errors.Is(e, refundkit.ErrResourceMissing), isAPI && api.Status == 401:
			if doubt {
				f, a := look()
				return settleLooked(f, a, "refused after doubt")
			}
			return write(refundkit.StatusFailed, e.Error())
		default:
			return write(refundkit.StatusNeedsCheck, "unknown error: "+e.Error())
		}
		if n == last {
			return giveUpWith(write, doubt, "attempts used up")
		}
		return attempt(n+1, wait)
	}
	return attempt(1, 0)
}

func giveUpWith(write func(refundkit.Status, string) (refundkit.Outcome, error), doubt bool, why string) (refundkit.Outcome, error) {
	if doubt {
		return write(refundkit.StatusNeedsCheck, why)
	}
	return write(refundkit.StatusFailed, why)
}
