// From: correct/dec6_embedded_clock.go
// Drops: the jitter comes from a source seeded with a constant, so every worker draws the same waits: the jitter is there in the code and absent between processes.
// defect: backoff
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

// sleeper waits, or reports that the context ended first.
type sleeper interface {
	Sleep(ctx context.Context, d time.Duration) bool
}

type realSleeper struct{}

func (realSleeper) Sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

type policy struct {
	Attempts int
	Base     time.Duration
	Cap      time.Duration
	Lease    time.Duration
}

// Backoff is the equal-jitter wait after attempt n (1-based).
func (p policy) Backoff(n int) time.Duration {
	c := p.Base
	for i := 1; i < n && c < p.Cap; i++ {
		c *= 2
	}
	if c > p.Cap {
		c = p.Cap
	}
	return c/2 + time.Duration(fixed.Int63n(int64(c/2)+1))
}

var fixed = rand.New(rand.NewSource(42))

type refunder struct {
	sync.Mutex
	sleeper
	policy

	rec      *refundkit.Record
	sent     int
	doubtful bool
}

func (r *refunder) key() string { return "emb-" + r.rec.RequestID + "-refund" }

func (r *refunder) note(doubt bool) {
	r.Lock()
	defer r.Unlock()
	r.sent++
	if doubt {
		r.doubtful = true
	}
}

func (r *refunder) isDoubtful() bool {
	r.Lock()
	defer r.Unlock()
	return r.doubtful
}

func (r *refunder) sendOnce(ctx context.Context) error {
	_, err := refundkit.CreateRefund(ctx, refundkit.RefundParams{
		Charge: r.rec.ChargeID, Amount: r.rec.Amount, IdempotencyKey: r.key(), Reference: r.key(),
	})
	return err
}

// lookUp reports the refund under our reference; answered is false when the
// provider could not be asked.
func (r *refunder) lookUp(ctx context.Context) (found *refundkit.ProviderRefund, answered bool) {
	for i := 0; i < 2; i++ {
		if i > 0 && !r.Sleep(ctx, 1200*time.Millisecond) {
			return nil, false
		}
		list, err := refundkit.ListRefunds(ctx, r.rec.ChargeID)
		if err != nil {
			continue
		}
		for j := range list {
			if list[j].Reference == r.key() && list[j].Status != "failed" && list[j].Status != "canceled" {
				return &list[j], true
			}
		}
		return nil, true
	}
	return nil, false
}

var defaultPolicy = policy{Attempts: 5, Base: 700 * time.Millisecond, Cap: 10 * time.Second, Lease: 5 * time.Minute}

// RefundMoney refunds requestID once and records what happened.
func RefundMoney(ctx context.Context, requestID string) (o refundkit.Outcome, e error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", fmt.Errorf("refund request %s: no record", requestID)
	}
	if err != nil {
		return "", fmt.Errorf("refund request %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	r := &refunder{sleeper: realSleeper{}, policy: defaultPolicy, rec: rec}
	ok, err := refundkit.Claim(ctx, requestID, r.Lease)
	if err != nil {
		return "", fmt.Errorf("refund request %s: claim: %w", requestID, err)
	}
	if !ok {
		return heldElsewhere(ctx, requestID)
	}
	store := context.WithoutCancel(ctx)
	defer func() {
		if p := recover(); p != nil {
			o, e = setStatus(store, requestID, refundkit.StatusNeedsCheck, fmt.Sprint("panic: ", p))
		}
	}()
	status, why := r.work(ctx, r.sendOnce, r.lookUp)
	return setStatus(store, requestID, status, why)
}

func (r *refunder) work(ctx context.Context, send func(context.Context) error,
	lookUp func(context.Context) (*refundkit.ProviderRefund, bool)) (refundkit.Status, string) {
	judge := func(f *refundkit.ProviderRefund) (refundkit.Status, string) {
		if f.Amount == r.rec.Amount {
			return refundkit.StatusDone, ""
		}
		return refundkit.StatusNeedsCheck, fmt.Sprintf("refund of %d found, %d asked", f.Amount, r.rec.Amount)
	}
	reconcile := func(why string) (refundkit.Status, string) {
		if f, ok := lookUp(ctx); ok && f != nil {
			return judge(f)
		}
		return refundkit.StatusNeedsCheck, why
	}
	if r.rec.Status != refundkit.StatusPending {
		r.doubtful = true
		f, ok := lookUp(ctx)
		if !ok {
			return refundkit.StatusNeedsCheck, "look-up unanswered"
		}
		if f != nil {
			return judge(f)
		}
	}
	for n := 1; n <= r.Attempts; n++ {
		err := send(ctx)
		if err == nil {
			return refundkit.StatusDone, ""
		}
		refundkit.Logf(ctx, "attempt %d: %v", n, err)
		wait := r.Backoff(n)
		var api *refundkit.APIError
		var conn *refundkit.ConnectionError
		var tmo *refundkit.TimeoutError
		switch {
		case errors.Is(err, refundkit.ErrAlreadyRefunded):
			return refundkit.StatusDone, ""
		case errors.As(err, &conn):
			r.note(false)
		case errors.As(err, &tmo), errors.Is(err, refundkit.ErrIdempotencyKeyInUse):
			r.note(true)
		case errors.Is(err, refundkit.ErrRateLimited):
			r.note(false)
			if errors.As(err, &api) && api.RetryAfter > 0 {
				if api.RetryAfter > 30*time.Second {
					return r.exhausted("Retry-After over 30 s")
				}
				if wait < api.RetryAfter {
					wait = api.RetryAfter + r.Backoff(1)
				}
			}
		case errors.Is(err, refundkit.ErrServer):
			r.note(true)
			if errors.As(err, &api) && api.Replayed {
				return reconcile("saved 5xx replayed")
			}
		case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
			return refundkit.StatusNeedsCheck, err.Error()
		case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing),
			errors.As(err, &api) && api.Status == 401:
			if r.isDoubtful() {
				return reconcile("refused after doubt: " + err.Error())
			}
			return refundkit.StatusFailed, err.Error()
		default:
			return refundkit.StatusNeedsCheck, "unrecognised: " + err.Error()
		}
		if n == r.Attempts {
			break
		}
		if !r.Sleep(ctx, wait) {
			return r.exhausted("context ended")
		}
	}
	return r.exhausted("attempts used up")
}

func (r *refunder) exhausted(why string) (refundkit.Status, string) {
	if r.isDoubtful() {
		return refundkit.StatusNeedsCheck, why + " (an attempt may have landed)"
	}
	return refundkit.StatusFailed, why + " (nothing reached the provider)"
}

func heldElsewhere(ctx context.Context, id string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, id)
	if err != nil {
		return "", fmt.Errorf("refund request %s: re-read: %w", id, err)
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

func setStatus(ctx context.Context, id string, s refundkit.Status, why string) (refundkit.Outcome, error) {
	var err error
	switch s {
	case refundkit.StatusDone:
		if err = refundkit.MarkDone(ctx, id); err == nil {
			return refundkit.OutcomeDone, nil
		}
	case refundkit.StatusFailed:
		if err = refundkit.MarkFailed(ctx, id, why); err == nil {
			return refundkit.OutcomeFailed, nil
		}
	default:
		if err = refundkit.MarkNeedsCheck(ctx, id, why); err == nil {
			return refundkit.OutcomeUnknown, nil
		}
		return "", fmt.Errorf("refund request %s: writing needs_check: %w", id, err)
	}
	if err2 := refundkit.MarkNeedsCheck(ctx, id, fmt.Sprintf("writing %s failed: %v", s, err)); err2 == nil {
		return refundkit.OutcomeUnknown, nil
	}
	return "", fmt.Errorf("refund request %s: writing %s: %w", id, s, err)
}
