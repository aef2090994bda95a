// From: correct/dec5_embedded_worker.go
// Drops: the look-up matches the reference with strings.Contains ("the provider may prefix it"), so another request's refund whose reference contains this one's is taken for ours.
// Breaks: "No record is marked done unless the provider applied a refund of the right amount for it."
// defect: done-means-refunded
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type policy struct {
	attempts int
	first    time.Duration
	ceiling  time.Duration
	lease    time.Duration
}

func (p policy) pause(n int, asked time.Duration) time.Duration {
	d := p.first
	for i := 0; i < n && d < p.ceiling; i++ {
		d *= 2
	}
	if d > p.ceiling {
		d = p.ceiling
	}
	d = d/3 + time.Duration(rand.Int63n(int64(d-d/3))) // two thirds random
	if asked > d {
		d = asked
	}
	return d
}

type worker struct {
	sync.Mutex
	policy
	notes   []string
	ambig   bool
	started time.Time
}

func (w *worker) note(format string, args ...any) {
	w.Lock()
	defer w.Unlock()
	w.notes = append(w.notes, fmt.Sprintf(format, args...))
}

func (w *worker) summary() string {
	w.Lock()
	defer w.Unlock()
	return strings.Join(w.notes, "; ")
}

func (w *worker) timeLeft() time.Duration {
	return w.lease - time.Since(w.started)
}

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	w := &worker{policy: policy{attempts: 5, first: 300 * time.Millisecond, ceiling: 16 * time.Second, lease: 150 * time.Second}}
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		if errors.Is(err, refundkit.ErrNotFound) {
			return "", fmt.Errorf("refund %s: not found", requestID)
		}
		return "", fmt.Errorf("refund %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	w.ambig = rec.Status != refundkit.StatusPending
	w.started = time.Now()
	ok, err := refundkit.Claim(ctx, requestID, w.lease)
	if err != nil {
		return "", fmt.Errorf("refund %s: claim: %w", requestID, err)
	}
	if !ok {
		cur, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		switch cur.Status {
		case refundkit.StatusDone:
			return refundkit.OutcomeDone, nil
		case refundkit.StatusFailed:
			return refundkit.OutcomeFailed, nil
		case refundkit.StatusNeedsCheck:
			return refundkit.OutcomeUnknown, nil
		}
		return refundkit.OutcomeInProgress, nil
	}
	after := context.WithoutCancel(ctx)
	defer func() {
		if r := recover(); r != nil {
			_ = refundkit.MarkNeedsCheck(after, requestID, fmt.Sprintf("panic: %v", r))
			panic(r)
		}
	}()
	out := w.run(ctx, rec)
	return w.save(after, requestID, out)
}

func (w *worker) run(ctx context.Context, rec *refundkit.Record) refundkit.Outcome {
	if w.ambig {
		if out, settled := w.check(ctx, rec, false); settled {
			return out
		}
	}
	for n := 0; n < w.attempts; n++ {
		if ctx.Err() != nil {
			w.note("caller stopped waiting")
			break
		}
		_, err := refundkit.CreateRefund(ctx, refundkit.RefundParams{
			Charge: rec.ChargeID, Amount: rec.Amount,
			IdempotencyKey: fmt.Sprintf("refund:%s:v1", rec.RequestID),
			Reference:      "refund-request " + rec.RequestID,
		})
		if err == nil || errors.Is(err, refundkit.ErrAlreadyRefunded) {
			return refundkit.OutcomeDone
		}
		w.note("attempt %d: %v", n+1, err)
		var asked time.Duration
		var api *refundkit.APIError
		var conn *refundkit.ConnectionError
		if errors.As(err, &conn) {
			// not sent
		} else if !errors.As(err, &api) {
			w.ambig = true // a timeout, or something we cannot read
		} else if api.Status == 429 {
			asked = api.RetryAfter
		} else if api.Status == 409 {
			w.ambig = true
		} else if api.Status >= 500 {
			w.ambig = true
			if api.Replayed {
				out, _ := w.check(ctx, rec, true)
				return out
			}
		} else if errors.Is(err, refundkit.ErrIdempotencyKeyReused) {
			return refundkit.OutcomeUnknown
		} else {
			if w.ambig {
				out, _ := w.check(ctx, rec, true)
				return out
			}
			return refundkit.OutcomeFailed
		}
		if n == w.attempts-1 {
			break
		}
		p := w.pause(n, asked)
		if w.timeLeft() < p+60*time.Second {
			w.note("no time left in the lease")
			break
		}
		time.Sleep(p)
	}
	if w.ambig {
		return refundkit.OutcomeUnknown
	}
	return refundkit.OutcomeFailed
}

// check looks the refund up. settled is false only when nothing was found
// and mustSettle is false (the caller may then send).
func (w *worker) check(ctx context.Context, rec *refundkit.Record, mustSettle bool) (refundkit.Outcome, bool) {
	for try := 0; try < 2; try++ {
		if try > 0 {
			time.Sleep(w.pause(try, 0))
		}
		list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
		if err != nil {
			w.note("look-up: %v", err)
			continue
		}
		for _, r := range list {
			if !strings.Contains(r.Reference, rec.RequestID) || r.Status == "failed" || r.Status == "canceled" {
				continue
			}
			if r.Amount == rec.Amount {
				return refundkit.OutcomeDone, true
			}
			w.note("found %s of %d", r.ID, r.Amount)
			return refundkit.OutcomeUnknown, true
		}
		if mustSettle {
			return refundkit.OutcomeUnknown, true
		}
		return "", false
	}
	return refundkit.OutcomeUnknown, true
}

func (w *worker) save(ctx context.Context, id string, out refundkit.Outcome) (refundkit.Outcome, error) {
	var err error
	switch out {
	case refundkit.OutcomeDone:
		err = refundkit.MarkDone(ctx, id)
		if err != nil && refundkit.MarkNeedsCheck(ctx, id, "done, but the write failed") == nil {
			return refundkit.OutcomeUnknown, nil
		}
	case refundkit.OutcomeFailed:
		err = refundkit.MarkFailed(ctx, id, w.summary())
	default:
		out = refundkit.OutcomeUnknown
		err = refundkit.MarkNeedsCheck(ctx, id, w.summary())
	}
	if err != nil {
		return "", err
	}
	return out, nil
}
