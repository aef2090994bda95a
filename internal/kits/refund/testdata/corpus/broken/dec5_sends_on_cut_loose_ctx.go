// From: correct/dec5_generic_policy.go
// Drops: the refund requests are sent on a context cut loose from the caller's ("a refund half done is worse than a late one"), so they keep leaving after the caller cancelled.
// Breaks: "Once the caller's context has ended (cancelled, or past its deadline), no refund request leaves."
// defect: stops-when-cancelled
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type verdict int

const (
	again verdict = iota // resend after a wait
	stop                 // final: the classifier chose the outcome
)

type step[T any] struct {
	val  T
	err  error
	next verdict
	wait time.Duration
}

// drive calls try up to n times; judge turns each answer into a step.
func drive[T any](n int, budget time.Duration, try func(int) (T, error), judge func(int, T, error) step[T]) (step[T], bool) {
	until := time.Now().Add(budget)
	var last step[T]
	for i := 0; i < n; i++ {
		v, err := try(i)
		last = judge(i, v, err)
		if last.next == stop {
			return last, true
		}
		if i == n-1 || time.Now().Add(last.wait).After(until) {
			break
		}
		time.Sleep(last.wait)
	}
	return last, false
}

func find[T any](xs []T, keep func(T) bool) (T, bool) {
	for _, x := range xs {
		if keep(x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}

type settled struct {
	out refundkit.Outcome
	why string
}

const holdFor = 6 * time.Minute

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	switch {
	case errors.Is(err, refundkit.ErrNotFound):
		return "", fmt.Errorf("refund %s does not exist", requestID)
	case err != nil:
		return "", err
	case rec.Status == refundkit.StatusDone:
		return refundkit.OutcomeDone, nil
	}
	fresh := rec.Status == refundkit.StatusPending
	got, err := refundkit.Claim(ctx, requestID, holdFor)
	if err != nil {
		return "", err
	}
	if !got {
		again, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		return map[refundkit.Status]refundkit.Outcome{
			refundkit.StatusDone:       refundkit.OutcomeDone,
			refundkit.StatusFailed:     refundkit.OutcomeFailed,
			refundkit.StatusNeedsCheck: refundkit.OutcomeUnknown,
		}[again.Status] + orInProgress(again.Status), nil
	}
	bg := context.WithoutCancel(ctx)
	defer func() {
		if p := recover(); p != nil {
			refundkit.MarkNeedsCheck(bg, requestID, "panicked")
			panic(p)
		}
	}()
	s := work(ctx, rec, fresh)
	return write(bg, requestID, s)
}

func orInProgress(s refundkit.Status) refundkit.Outcome {
	if s == refundkit.StatusDone || s == refundkit.StatusFailed || s == refundkit.StatusNeedsCheck {
		return ""
	}
	return refundkit.OutcomeInProgress
}

func lookUp(ctx context.Context, rec *refundkit.Record) (settled, bool) {
	res, ok := drive[[]refundkit.ProviderRefund](3, time.Minute,
		func(int) ([]refundkit.ProviderRefund, error) { return refundkit.ListRefunds(ctx, rec.ChargeID) },
		func(i int, got []refundkit.ProviderRefund, err error) step[[]refundkit.ProviderRefund] {
			if err != nil {
				return step[[]refundkit.ProviderRefund]{err: err, next: again, wait: time.Duration(i+1) * 1500 * time.Millisecond}
			}
			return step[[]refundkit.ProviderRefund]{val: got, next: stop}
		})
	if !ok {
		return settled{refundkit.OutcomeUnknown, "the look-up failed"}, true
	}
	list := res.val
	r, hit := find[refundkit.ProviderRefund](list, func(p refundkit.ProviderRefund) bool {
		return p.Reference == rec.RequestID && p.Status != "failed" && p.Status != "canceled"
	})
	if !hit {
		return settled{}, false
	}
	if r.Amount == rec.Amount {
		return settled{refundkit.OutcomeDone, ""}, true
	}
	return settled{refundkit.OutcomeUnknown, "a refund of another amount"}, true
}

func work(ctx context.Context, rec *refundkit.Record, fresh bool) settled {
	doubt := !fresh
	if !fresh {
		if s, ok := lookUp(ctx, rec); ok {
			return s
		}
	}
	params := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount,
		IdempotencyKey: "idem/" + rec.RequestID, Reference: rec.RequestID}
	var res settled
	final, ok := drive[*refundkit.ProviderRefund](6, 3*time.Minute,
		func(int) (*refundkit.ProviderRefund, error) {
			return refundkit.CreateRefund(context.WithoutCancel(ctx), params)
		},
		func(i int, r *refundkit.ProviderRefund, err error) step[*refundkit.ProviderRefund] {
			capW := 400 * time.Millisecond << uint(i)
			if capW > 25*time.Second {
				capW = 25 * time.Second
			}
			w := time.Duration(rand.Int63n(int64(capW))) + 10*time.Millisecond // full jitter
			var ae *refundkit.APIError
			var ce *refundkit.ConnectionError
			var te *refundkit.TimeoutError
			switch {
			case err == nil:
				res = settled{refundkit.OutcomeDone, ""}
			case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
				res = settled{}
			case errors.As(err, &ce):
				if ctx.Err() != nil {
					return step[*refundkit.ProviderRefund]{next: stop}
				}
				return step[*refundkit.ProviderRefund]{next: again, wait: w}
			case errors.As(err, &te):
				doubt = true
				return step[*refundkit.ProviderRefund]{next: again, wait: w}
			case !errors.As(err, &ae):
				res = settled{refundkit.OutcomeUnknown, err.Error()}
			case errors.Is(err, refundkit.ErrAlreadyRefunded):
				res = settled{refundkit.OutcomeDone, ""}
			case ae.Status == 429:
				if ae.RetryAfter > w {
					w = ae.RetryAfter
				}
				return step[*refundkit.ProviderRefund]{next: again, wait: w}
			case ae.Status == 409:
				doubt = true
				return step[*refundkit.ProviderRefund]{next: again, wait: w}
			case ae.Status >= 500:
				doubt = true
				if !ae.Replayed {
					return step[*refundkit.ProviderRefund]{next: again, wait: w}
				}
				res = settled{refundkit.OutcomeUnknown, "replayed server error"}
				if s, ok := lookUp(ctx, rec); ok && s.out == refundkit.OutcomeDone {
					res = s
				}
			case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
				res = settled{refundkit.OutcomeUnknown, "key reused"}
			default: // 400, 401, 404: refused
				if doubt {
					res = settled{refundkit.OutcomeUnknown, "refused after an ambiguous attempt: " + err.Error()}
				} else {
					res = settled{refundkit.OutcomeFailed, err.Error()}
				}
			}
			return step[*refundkit.ProviderRefund]{val: r, err: err, next: stop}
		})
	_ = final
	if ok && res.out != "" {
		return res
	}
	if doubt {
		return settled{refundkit.OutcomeUnknown, "gave up after an ambiguous attempt"}
	}
	return settled{refundkit.OutcomeFailed, "nothing reached the provider"}
}

func write(ctx context.Context, id string, s settled) (refundkit.Outcome, error) {
	var err error
	switch s.out {
	case refundkit.OutcomeDone:
		if err = refundkit.MarkDone(ctx, id); err != nil {
			s = settled{refundkit.OutcomeUnknown, "marking done failed"}
			err = refundkit.MarkNeedsCheck(ctx, id, s.why)
		}
	case refundkit.OutcomeFailed:
		err = refundkit.MarkFailed(ctx, id, s.why)
	default:
		err = refundkit.MarkNeedsCheck(ctx, id, s.why)
	}
	if err != nil {
		return "", err
	}
	return s.out, nil
}
