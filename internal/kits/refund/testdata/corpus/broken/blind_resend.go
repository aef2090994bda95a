// From: correct/struct_methods.go
// Drops: the look-up before resending a request an earlier run left unknown.
// defect: blind-resend-after-expiry
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type refunder struct {
	ctx      context.Context
	id       string
	rec      *refundkit.Record
	unsure   bool
	recorded bool
}

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	r := &refunder{ctx: ctx, id: requestID}
	if err := r.load(); err != nil {
		return "", err
	}
	if r.rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	ok, err := r.claim()
	if err != nil {
		return "", err
	}
	if !ok {
		return r.theirs()
	}
	defer r.guard()
	if r.rec.Status == refundkit.StatusProcessing || r.rec.Status == refundkit.StatusNeedsCheck {
		r.unsure = true
	}
	return r.send()
}

func (r *refunder) load() error {
	rec, err := refundkit.GetRecord(r.ctx, r.id)
	if err != nil {
		return fmt.Errorf("refunder: load %s: %w", r.id, err)
	}
	r.rec = rec
	return nil
}

func (r *refunder) claim() (bool, error) {
	return refundkit.Claim(r.ctx, r.id, 5*time.Minute)
}

func (r *refunder) key() string { return "RF-" + r.id }

func (r *refunder) theirs() (refundkit.Outcome, error) {
	if err := r.load(); err != nil {
		return "", err
	}
	switch r.rec.Status {
	case refundkit.StatusDone:
		return refundkit.OutcomeDone, nil
	case refundkit.StatusFailed:
		return refundkit.OutcomeFailed, nil
	case refundkit.StatusNeedsCheck:
		return refundkit.OutcomeUnknown, nil
	}
	return refundkit.OutcomeInProgress, nil
}

func (r *refunder) guard() {
	if r.recorded {
		return
	}
	refundkit.MarkNeedsCheck(context.WithoutCancel(r.ctx), r.id, "the run stopped before recording a result")
}

// reconcile looks the refund up: settled reports that it decided.
func (r *refunder) reconcile() (refundkit.Outcome, bool, error) {
	list, err := refundkit.ListRefunds(r.ctx, r.rec.ChargeID)
	if err != nil {
		out, err := r.settle(refundkit.StatusNeedsCheck, "look-up failed: "+err.Error())
		return out, true, err
	}
	for _, p := range list {
		if p.Reference != r.id {
			continue
		}
		if p.Amount == r.rec.Amount {
			out, err := r.settle(refundkit.StatusDone, "")
			return out, true, err
		}
		out, err := r.settle(refundkit.StatusNeedsCheck, "refund of another amount under this reference")
		return out, true, err
	}
	return "", false, nil
}

func (r *refunder) settle(st refundkit.Status, why string) (refundkit.Outcome, error) {
	c := context.WithoutCancel(r.ctx)
	var err error
	out := refundkit.OutcomeUnknown
	switch st {
	case refundkit.StatusDone:
		err = refundkit.MarkDone(c, r.id)
		out = refundkit.OutcomeDone
	case refundkit.StatusFailed:
		err = refundkit.MarkFailed(c, r.id, why)
		out = refundkit.OutcomeFailed
	default:
		err = refundkit.MarkNeedsCheck(c, r.id, why)
	}
	if err != nil {
		return "", fmt.Errorf("refunder: record %s: %w", st, err)
	}
	r.recorded = true
	return out, nil
}

// attempt makes one request that the caller's context can cancel.
func (r *refunder) attempt(p refundkit.RefundParams) error {
	errc := make(chan error)
	go func() {
		_, err := refundkit.CreateRefund(r.ctx, p)
		errc <- err
	}()
	select {
	case err := <-errc:
		return err
	case <-r.ctx.Done():
		return r.ctx.Err()
	}
}

func (r *refunder) send() (refundkit.Outcome, error) {
	p := refundkit.RefundParams{Charge: r.rec.ChargeID, Amount: r.rec.Amount, IdempotencyKey: r.key(), Reference: r.id}
	var last error
	for n := 0; n < 4; n++ {
		err := r.attempt(p)
		if err == nil {
			return r.settle(refundkit.StatusDone, "")
		}
		last = err
		refundkit.Logf(r.ctx, "%s attempt %d: %v", r.id, n+1, err)
		stop, out, oerr := r.judge(err)
		if stop {
			return out, oerr
		}
		var api *refundkit.APIError
		if errors.As(err, &api) && api.Replayed && r.unsure {
			break
		}
		if n == 3 {
			break
		}
		r.pause(n, err)
	}
	if !r.unsure {
		return r.settle(refundkit.StatusFailed, "never reached the provider: "+last.Error())
	}
	if out, settled, err := r.reconcile(); settled || err != nil {
		if out == refundkit.OutcomeDone || err != nil {
			return out, err
		}
		return out, nil
	}
	return r.settle(refundkit.StatusNeedsCheck, "no definite answer: "+last.Error())
}

// judge classifies an error: stop means the run has its answer.
func (r *refunder) judge(err error) (bool, refundkit.Outcome, error) {
	var conn *refundkit.ConnectionError
	switch {
	case errors.Is(err, refundkit.ErrAlreadyRefunded):
		out, e := r.settle(refundkit.StatusDone, "")
		return true, out, e
	case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
		out, e := r.settle(refundkit.StatusNeedsCheck, err.Error())
		return true, out, e
	case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing):
		st := refundkit.StatusFailed
		if r.unsure {
			st = refundkit.StatusNeedsCheck
		}
		out, e := r.settle(st, err.Error())
		return true, out, e
	case errors.Is(err, refundkit.ErrRateLimited), errors.As(err, &conn):
		return false, "", nil
	}
	r.unsure = true
	return false, "", nil
}

func (r *refunder) pause(n int, err error) {
	bound := 600 * time.Millisecond << uint(n)
	d := bound/2 + time.Duration(rand.Int63n(int64(bound/2)))
	var api *refundkit.APIError
	if errors.As(err, &api) && api.RetryAfter > d {
		d = api.RetryAfter
	}
	time.Sleep(d)
}
