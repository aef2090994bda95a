// From: correct/dec5_phases.go
// Drops: a 429 is backed off like any other failure, with the jittered exponential pause, and its Retry-After is not looked at.
// Breaks: "Waits between attempts are ... never shorter than a Retry-After the provider sent."
// defect: backoff
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
	phBackoff
	phLookUpAfterDoubt
	phDone
	phFailed
	phUnknown
	phFinished
)

type job struct {
	ctx      context.Context
	keep     context.Context
	id       string
	rec      *refundkit.Record
	fresh    bool
	sends    int
	doubt    bool
	wait     time.Duration
	deadline time.Time
	reason   string
	out      refundkit.Outcome
	err      error
}

const jobLease = 4 * time.Minute

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	j := &job{ctx: ctx, keep: context.WithoutCancel(ctx), id: requestID}
	claimed := false
	defer func() {
		if p := recover(); p != nil {
			if claimed {
				refundkit.MarkNeedsCheck(j.keep, j.id, "a panic stopped the run")
			}
			panic(p)
		}
	}()
	ph := phLoad
	for ph != phFinished {
		if ph == phReconcile || ph == phSend {
			claimed = true
		}
		ph = j.step(ph)
	}
	return j.out, j.err
}

func (j *job) step(ph phase) phase {
	switch ph {
	case phLoad:
		rec, err := refundkit.GetRecord(j.ctx, j.id)
		if errors.Is(err, refundkit.ErrNotFound) {
			j.err = fmt.Errorf("no refund request %s", j.id)
			return phFinished
		}
		if err != nil {
			j.err = fmt.Errorf("load %s: %w", j.id, err)
			return phFinished
		}
		if rec.Status == refundkit.StatusDone {
			j.out = refundkit.OutcomeDone
			return phFinished
		}
		j.rec = rec
		j.fresh = rec.Status == refundkit.StatusPending
		return phClaim
	case phClaim:
		ok, err := refundkit.Claim(j.ctx, j.id, jobLease)
		if err != nil {
			j.err = fmt.Errorf("claim %s: %w", j.id, err)
			return phFinished
		}
		if !ok {
			rec, err := refundkit.GetRecord(j.ctx, j.id)
			if err != nil {
				j.err = fmt.Errorf("re-read %s: %w", j.id, err)
				return phFinished
			}
			switch rec.Status {
			case refundkit.StatusDone:
				j.out = refundkit.OutcomeDone
			case refundkit.StatusFailed:
				j.out = refundkit.OutcomeFailed
			case refundkit.StatusNeedsCheck:
				j.out = refundkit.OutcomeUnknown
			default:
				j.out = refundkit.OutcomeInProgress
			}
			return phFinished
		}
		j.deadline = time.Now().Add(jobLease - time.Minute)
		if j.fresh {
			return phSend
		}
		j.doubt = true
		return phReconcile
	case phReconcile, phLookUpAfterDoubt:
		found, err := j.find()
		if err != nil {
			j.reason = "look-up failed: " + err.Error()
			return phUnknown
		}
		if found != nil && found.Amount == j.rec.Amount {
			return phDone
		}
		if found != nil {
			j.reason = "a refund of another amount carries this request's reference"
			return phUnknown
		}
		if ph == phLookUpAfterDoubt {
			j.reason = "no refund found, but an attempt may still land"
			return phUnknown
		}
		return phSend
	case phSend:
		if j.ctx.Err() != nil || j.sends >= 4 {
			if j.doubt {
				j.reason = "stopped after an ambiguous attempt"
				return phUnknown
			}
			j.reason = "no attempt reached the provider"
			return phFailed
		}
		j.sends++
		_, err := refundkit.CreateRefund(j.ctx, refundkit.RefundParams{
			Charge:         j.rec.ChargeID,
			Amount:         j.rec.Amount,
			IdempotencyKey: "rfd_" + j.id,
			Reference:      "req:" + j.id,
		})
		return j.classify(err)
	case phBackoff:
		if time.Now().Add(j.wait + 20*time.Second).After(j.deadline) {
			if j.doubt {
				j.reason = "out of time after an ambiguous attempt"
				return phUnknown
			}
			j.reason = "out of time, nothing reached the provider"
			return phFailed
		}
		time.Sleep(j.wait)
		return phSend
	case phDone:
		if err := refundkit.MarkDone(j.keep, j.id); err != nil {
			if refundkit.MarkNeedsCheck(j.keep, j.id, "could not record done: "+err.Error()) == nil {
				j.out = refundkit.OutcomeUnknown
				return phFinished
			}
			j.err = err
			return phFinished
		}
		j.out = refundkit.OutcomeDone
		return phFinished
	case phFailed:
		if err := refundkit.MarkFailed(j.keep, j.id, j.reason); err != nil {
			j.err = err
			return phFinished
		}
		j.out = refundkit.OutcomeFailed
		return phFinished
	case phUnknown:
		if err := refundkit.MarkNeedsCheck(j.keep, j.id, j.reason); err != nil {
			j.err = err
			return phFinished
		}
		j.out = refundkit.OutcomeUnknown
		return phFinished
	}
	panic("unreachable phase")
}

func (j *job) classify(err error) phase {
	if err == nil {
		return phDone
	}
	refundkit.Logf(j.ctx, "send %d: %v", j.sends, err)
	// equal jitter: half fixed, half random, doubling from one second
	ceil := time.Second << uint(j.sends-1)
	if ceil > 20*time.Second {
		ceil = 20 * time.Second
	}
	j.wait = ceil/2 + time.Duration(rand.Int63n(int64(ceil/2)))
	var te *refundkit.TimeoutError
	var ce *refundkit.ConnectionError
	var ae *refundkit.APIError
	if errors.As(err, &ce) {
		return phBackoff
	}
	if errors.As(err, &te) {
		j.doubt = true
		return phBackoff
	}
	if !errors.As(err, &ae) {
		j.reason = "unexpected error: " + err.Error()
		return phUnknown
	}
	switch {
	case errors.Is(err, refundkit.ErrAlreadyRefunded):
		return phDone
	case ae.Status == 409:
		j.doubt = true
		return phBackoff
	case ae.Status == 429:
		return phBackoff
	case ae.Status >= 500 && ae.Replayed:
		j.doubt = true
		return phLookUpAfterDoubt
	case ae.Status >= 500:
		j.doubt = true
		return phBackoff
	case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
		j.reason = "key reused with other parameters"
		return phUnknown
	case ae.Status == 400 || ae.Status == 404 || ae.Status == 401:
		if j.doubt {
			return phLookUpAfterDoubt
		}
		j.reason = err.Error()
		return phFailed
	}
	j.reason = "unrecognised answer: " + err.Error()
	return phUnknown
}

func (j *job) find() (*refundkit.ProviderRefund, error) {
	var last error
	for i := 0; i < 3; i++ {
		if i > 0 {
			time.Sleep(2 * time.Second)
		}
		list, err := refundkit.ListRefunds(j.ctx, j.rec.ChargeID)
		if err != nil {
			last = err
			continue
		}
		for k := range list {
			if list[k].Reference == "req:"+j.id && list[k].Status != "failed" && list[k].Status != "canceled" {
				r := list[k]
				return &r, nil
			}
		}
		return nil, nil
	}
	return nil, last
}
