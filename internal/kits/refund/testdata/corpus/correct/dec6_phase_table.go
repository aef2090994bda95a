// Style: a state machine whose steps are a package-level map of funcs
// (filled in init), a run struct printed with %+v into the trace, method
// values handed to a retry helper, decorrelated jitter, a four-minute lease
// and four attempts. Written for the strangers' round of 6 December 2026
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

type phase int

const (
	phLoad phase = iota
	phClaim
	phReconcile
	phSend
	phWait
	phEnd
)

type run struct {
	ctx      context.Context
	id       string
	rec      *refundkit.Record
	attempt  int
	doubt    bool
	lastWait time.Duration
	minWait  time.Duration
	outcome  refundkit.Outcome
	err      error
	owned    bool
}

// note is what the trace shows of a run at each step.
type note struct {
	Attempt int
	Doubt   bool
	Wait    time.Duration
}

var steps map[phase]func(*run) phase

func init() {
	steps = map[phase]func(*run) phase{
		phLoad:      func(r *run) phase { return r.load2() },
		phClaim:     func(r *run) phase { return r.claim2() },
		phReconcile: func(r *run) phase { return r.reconcile2() },
		phSend:      func(r *run) phase { return r.send2() },
		phWait:      func(r *run) phase { return r.wait2() },
	}
}

const (
	maxSends   = 4
	holdFor    = 4 * time.Minute
	waitFloor  = 400 * time.Millisecond
	waitRoof   = 15 * time.Second
	tooLongRA  = 15 * time.Second
	refPrefix  = "sm-ref-"
	keyPrefix  = "sm-key-"
	lookupGaps = time.Second
)

// RefundMoney drives a run through its phases until it ends.
func RefundMoney(ctx context.Context, requestID string) (out refundkit.Outcome, err error) {
	r := &run{ctx: ctx, id: requestID, lastWait: waitFloor}
	defer func() {
		if p := recover(); p != nil {
			if !r.owned {
				panic(p)
			}
			r.settle(refundkit.StatusNeedsCheck, fmt.Sprint("panic: ", p))
			out, err = r.outcome, r.err
		}
	}()
	for p := phLoad; p != phEnd; {
		p = steps[p](r)
	}
	return r.outcome, r.err
}

func (r *run) load2() phase {
	rec, err := refundkit.GetRecord(r.ctx, r.id)
	if errors.Is(err, refundkit.ErrNotFound) {
		r.err = fmt.Errorf("refund request %s does not exist", r.id)
		return phEnd
	}
	if err != nil {
		r.err = fmt.Errorf("refund request %s: read: %w", r.id, err)
		return phEnd
	}
	r.rec = rec
	if rec.Status == refundkit.StatusDone {
		r.outcome = refundkit.OutcomeDone
		return phEnd
	}
	return phClaim
}

func (r *run) claim2() phase {
	ok, err := refundkit.Claim(r.ctx, r.id, holdFor)
	if err != nil {
		r.err = fmt.Errorf("refund request %s: claim: %w", r.id, err)
		return phEnd
	}
	if !ok {
		rec, err := refundkit.GetRecord(r.ctx, r.id)
		if err != nil {
			r.err = fmt.Errorf("refund request %s: re-read: %w", r.id, err)
			return phEnd
		}
		r.outcome = outcomeOf[rec.Status]
		if r.outcome == "" {
			r.outcome = refundkit.OutcomeInProgress
		}
		return phEnd
	}
	r.owned = true
	if r.rec.Status != refundkit.StatusPending {
		r.doubt = true
		return phReconcile
	}
	return phSend
}

var outcomeOf = map[refundkit.Status]refundkit.Outcome{
	refundkit.StatusDone:       refundkit.OutcomeDone,
	refundkit.StatusFailed:     refundkit.OutcomeFailed,
	refundkit.StatusNeedsCheck: refundkit.OutcomeUnknown,
}

// reconcile2 looks the refund up before anything is sent for a record that
// an earlier run may have sent.
func (r *run) reconcile2() phase {
	found, err := r.find()
	if err != nil {
		r.settle(refundkit.StatusNeedsCheck, "look-up failed: "+err.Error())
		return phEnd
	}
	if found != nil {
		r.settleFound(found)
		return phEnd
	}
	return phSend
}

func (r *run) find() (*refundkit.ProviderRefund, error) {
	var err error
	for i := 0; i < 2; i++ {
		if i > 0 && !r.sleep(lookupGaps) {
			return nil, r.ctx.Err()
		}
		var list []refundkit.ProviderRefund
		list, err = refundkit.ListRefunds(r.ctx, r.rec.ChargeID)
		if err != nil {
			continue
		}
		for _, p := range list {
			if p.Reference == refPrefix+r.id && p.Status != "failed" && p.Status != "canceled" {
				found := p
				return &found, nil
			}
		}
		return nil, nil
	}
	return nil, err
}

func (r *run) settleFound(p *refundkit.ProviderRefund) {
	if p.Amount == r.rec.Amount {
		r.settle(refundkit.StatusDone, "")
		return
	}
	r.settle(refundkit.StatusNeedsCheck, fmt.Sprintf("refund %s is %d, record asks %d", p.ID, p.Amount, r.rec.Amount))
}

func (r *run) send2() phase {
	r.attempt++
	_, err := refundkit.CreateRefund(r.ctx, refundkit.RefundParams{
		Charge:         r.rec.ChargeID,
		Amount:         r.rec.Amount,
		IdempotencyKey: keyPrefix + r.id,
		Reference:      refPrefix + r.id,
	})
	if err == nil {
		r.settle(refundkit.StatusDone, "")
		return phEnd
	}
	refundkit.Logf(r.ctx, "attempt failed: %v (%+v)", err, note{Attempt: r.attempt, Doubt: r.doubt, Wait: r.lastWait})
	var api *refundkit.APIError
	var conn *refundkit.ConnectionError
	var tmo *refundkit.TimeoutError
	hasAPI := errors.As(err, &api)
	switch {
	case errors.Is(err, refundkit.ErrAlreadyRefunded):
		r.settle(refundkit.StatusDone, "")
		return phEnd
	case errors.As(err, &conn):
	case errors.As(err, &tmo) || errors.Is(err, refundkit.ErrIdempotencyKeyInUse):
		r.doubt = true
	case errors.Is(err, refundkit.ErrRateLimited):
		if hasAPI {
			if api.RetryAfter > tooLongRA {
				return r.exhausted("Retry-After too long")
			}
			r.minWait = api.RetryAfter
		}
	case errors.Is(err, refundkit.ErrServer):
		r.doubt = true
		if hasAPI && api.Replayed {
			return r.lookThenSettle("saved 5xx replayed")
		}
	case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
		r.settle(refundkit.StatusNeedsCheck, err.Error())
		return phEnd
	case errors.Is(err, refundkit.ErrInvalidRequest) || errors.Is(err, refundkit.ErrResourceMissing) || (hasAPI && api.Status == 401):
		if r.doubt {
			return r.lookThenSettle("refused after an ambiguous attempt")
		}
		r.settle(refundkit.StatusFailed, err.Error())
		return phEnd
	default:
		r.settle(refundkit.StatusNeedsCheck, "unknown error: "+err.Error())
		return phEnd
	}
	if r.attempt >= maxSends {
		return r.exhausted("attempts used up")
	}
	return phWait
}

func (r *run) lookThenSettle(why string) phase {
	if found, err := r.find(); err == nil && found != nil {
		r.settleFound(found)
		return phEnd
	}
	r.settle(refundkit.StatusNeedsCheck, why)
	return phEnd
}

func (r *run) exhausted(why string) phase {
	if r.doubt {
		r.settle(refundkit.StatusNeedsCheck, why+"; may have landed")
	} else {
		r.settle(refundkit.StatusFailed, why+"; nothing was sent")
	}
	return phEnd
}

// wait2 sleeps a decorrelated-jitter wait: random between the floor and
// three times the last wait, capped, and never under a Retry-After.
func (r *run) wait2() phase {
	hi := r.lastWait * 3
	if hi > waitRoof {
		hi = waitRoof
	}
	d := waitFloor + time.Duration(rand.Int63n(int64(hi-waitFloor)+1))
	if d < r.minWait {
		d = r.minWait + time.Duration(rand.Int63n(int64(waitFloor)))
	}
	r.minWait = 0
	r.lastWait = d
	if !r.sleep(d) {
		r.ctx = context.WithoutCancel(r.ctx)
		return r.exhausted("the caller's context ended")
	}
	return phSend
}

func (r *run) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (r *run) settle(status refundkit.Status, why string) {
	write := map[refundkit.Status]func() error{
		refundkit.StatusDone:       func() error { return refundkit.MarkDone(r.ctx, r.id) },
		refundkit.StatusFailed:     func() error { return refundkit.MarkFailed(r.ctx, r.id, why) },
		refundkit.StatusNeedsCheck: func() error { return refundkit.MarkNeedsCheck(r.ctx, r.id, why) },
	}[status]
	if err := write(); err != nil {
		if status != refundkit.StatusNeedsCheck && refundkit.MarkNeedsCheck(r.ctx, r.id, "write failed: "+err.Error()) == nil {
			r.outcome, r.err = refundkit.OutcomeUnknown, nil
			return
		}
		r.outcome, r.err = "", fmt.Errorf("refund request %s: writing %s: %w", r.id, status, err)
		return
	}
	r.outcome, r.err = outcomeOf[status], nil
}
