// Style: an explicit state machine (a loop over a step variable with a
// switch), six attempts, equal jitter, key "idem_<id>", and a lease of ten
// minutes: the longest the problem page allows.
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type step int

const (
	stepReconcile step = iota
	stepSend
	stepBackoff
	stepFinalCheck
	stepRecord
)

type machine struct {
	ctx       context.Context
	rec       *refundkit.Record
	attempt   int
	lastErr   error
	ambiguous bool
	result    refundkit.Status
	reason    string
}

const tries = 6

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		return "", fmt.Errorf("state machine: %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	taken, err := refundkit.Claim(ctx, requestID, 10*time.Minute)
	if err != nil {
		return "", err
	}
	if !taken {
		now, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		if now.Status == refundkit.StatusDone {
			return refundkit.OutcomeDone, nil
		} else if now.Status == refundkit.StatusFailed {
			return refundkit.OutcomeFailed, nil
		} else if now.Status == refundkit.StatusNeedsCheck {
			return refundkit.OutcomeUnknown, nil
		}
		return refundkit.OutcomeInProgress, nil
	}
	m := &machine{ctx: ctx, rec: rec}
	written := false
	defer func() {
		if !written {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, "machine stopped in the middle")
		}
	}()
	s := stepSend
	if rec.Status == refundkit.StatusProcessing || rec.Status == refundkit.StatusNeedsCheck {
		m.ambiguous = true
		s = stepReconcile
	}
	for s != stepRecord {
		switch s {
		case stepReconcile:
			s = m.reconcile(stepSend)
		case stepSend:
			s = m.send()
		case stepBackoff:
			m.backoff()
			s = stepSend
		case stepFinalCheck:
			if !m.ambiguous {
				m.result, m.reason = refundkit.StatusFailed, "never reached the provider"
				s = stepRecord
			} else {
				m.result, m.reason = refundkit.StatusNeedsCheck, "no definite answer"
				s = m.reconcile(stepRecord)
			}
		}
	}
	out, err := m.record()
	if err != nil {
		return "", err
	}
	written = true
	return out, nil
}

// reconcile settles on a refund found at the provider; otherwise it goes
// on to next. A failed look-up settles as needs_check.
func (m *machine) reconcile(next step) step {
	list, err := refundkit.ListRefunds(m.ctx, m.rec.ChargeID)
	if err != nil {
		m.result, m.reason = refundkit.StatusNeedsCheck, "look-up failed: "+err.Error()
		return stepRecord
	}
	for _, r := range list {
		if r.Reference == m.rec.RequestID {
			if r.Amount == m.rec.Amount {
				m.result, m.reason = refundkit.StatusDone, ""
			} else {
				m.result, m.reason = refundkit.StatusNeedsCheck, "found another amount"
			}
			return stepRecord
		}
	}
	return next
}

func (m *machine) send() step {
	m.attempt++
	_, err := refundkit.CreateRefund(m.ctx, refundkit.RefundParams{
		Charge: m.rec.ChargeID, Amount: m.rec.Amount, IdempotencyKey: "idem_" + m.rec.RequestID, Reference: m.rec.RequestID,
	})
	if err == nil {
		m.result = refundkit.StatusDone
		return stepRecord
	}
	m.lastErr = err
	refundkit.Logf(m.ctx, "attempt %d: %v", m.attempt, err)
	var conn *refundkit.ConnectionError
	var api *refundkit.APIError
	switch {
	case errors.Is(err, refundkit.ErrAlreadyRefunded):
		m.result = refundkit.StatusDone
		return stepRecord
	case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
		m.result, m.reason = refundkit.StatusNeedsCheck, err.Error()
		return stepRecord
	case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing):
		m.result, m.reason = refundkit.StatusFailed, err.Error()
		if m.ambiguous {
			m.result = refundkit.StatusNeedsCheck
		}
		return stepRecord
	case errors.As(err, &conn), errors.Is(err, refundkit.ErrRateLimited):
	default:
		m.ambiguous = true
		if errors.As(err, &api) && api.Replayed {
			return stepFinalCheck
		}
	}
	if m.attempt >= tries {
		return stepFinalCheck
	}
	return stepBackoff
}

func (m *machine) backoff() {
	ceil := 200 * time.Millisecond
	for i := 1; i < m.attempt && ceil < 20*time.Second; i++ {
		ceil *= 2
	}
	d := ceil/2 + time.Duration(rand.Int63n(int64(ceil/2)+1))
	var api *refundkit.APIError
	if errors.As(m.lastErr, &api) && api.RetryAfter > d {
		d = api.RetryAfter
	}
	time.Sleep(d)
}

func (m *machine) record() (refundkit.Outcome, error) {
	c := context.WithoutCancel(m.ctx)
	id := m.rec.RequestID
	switch m.result {
	case refundkit.StatusDone:
		return refundkit.OutcomeDone, refundkit.MarkDone(c, id)
	case refundkit.StatusFailed:
		return refundkit.OutcomeFailed, refundkit.MarkFailed(c, id, m.reason)
	}
	return refundkit.OutcomeUnknown, refundkit.MarkNeedsCheck(c, id, m.reason)
}
