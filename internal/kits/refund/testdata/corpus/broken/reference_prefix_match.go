// From: correct/reconcile_first.go
// Drops: an exact match of the reference: a refund whose reference merely begins with the request's id (r12's, for r1) is taken for the request's own, so r1 is marked done with no refund made for it.
// defect: done-means-refunded
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type knowledge struct {
	refunded     bool   // the provider certainly holds our refund
	mismatch     bool   // it holds one under our reference, another amount
	mayHaveSent  bool   // some attempt may have reached the provider
	rejected     bool   // a definitive refusal with nothing before it
	lookupFailed bool   // we could not ask the provider
	note         string // the last thing that went wrong
	retryAfter   time.Duration
}

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		return "", fmt.Errorf("reconcile-first: %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	ok, err := refundkit.Claim(ctx, requestID, 4*time.Minute)
	if err != nil {
		return "", err
	}
	if !ok {
		fresh, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		switch fresh.Status {
		case refundkit.StatusDone:
			return refundkit.OutcomeDone, nil
		case refundkit.StatusFailed:
			return refundkit.OutcomeFailed, nil
		case refundkit.StatusNeedsCheck:
			return refundkit.OutcomeUnknown, nil
		}
		return refundkit.OutcomeInProgress, nil
	}
	closed := false
	defer func() {
		if !closed {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, "abandoned mid-run")
		}
	}()

	var k knowledge
	k.mayHaveSent = rec.Status == refundkit.StatusProcessing || rec.Status == refundkit.StatusNeedsCheck
	look(ctx, rec, &k)
	if k.lookupFailed && k.mayHaveSent {
		k.note = "cannot tell what an earlier run did"
	} else if !k.refunded && !k.mismatch {
		k.lookupFailed = false
		send(ctx, rec, &k)
		if k.mayHaveSent && !k.refunded && !k.mismatch {
			look(ctx, rec, &k)
		}
	}

	status := refundkit.StatusNeedsCheck
	switch {
	case k.refunded:
		status = refundkit.StatusDone
	case k.mismatch:
		status = refundkit.StatusNeedsCheck
	case k.mayHaveSent:
		status = refundkit.StatusNeedsCheck
	case k.rejected, !k.lookupFailed:
		status = refundkit.StatusFailed
	}
	c := context.WithoutCancel(ctx)
	var out refundkit.Outcome
	switch status {
	case refundkit.StatusDone:
		err = refundkit.MarkDone(c, requestID)
		out = refundkit.OutcomeDone
	case refundkit.StatusFailed:
		err = refundkit.MarkFailed(c, requestID, k.note)
		out = refundkit.OutcomeFailed
	default:
		err = refundkit.MarkNeedsCheck(c, requestID, k.note)
		out = refundkit.OutcomeUnknown
	}
	if err != nil {
		return "", err
	}
	closed = true
	return out, nil
}

func look(ctx context.Context, rec *refundkit.Record, k *knowledge) {
	list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
	if err != nil {
		k.lookupFailed = true
		k.note = "look-up: " + err.Error()
		return
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Created.After(list[j].Created) })
	for _, r := range list {
		if !strings.HasPrefix(r.Reference, rec.RequestID) {
			continue
		}
		if r.Amount == rec.Amount {
			k.refunded = true
		} else {
			k.mismatch = true
			k.note = fmt.Sprintf("refund %s of %d under our reference", r.ID, r.Amount)
		}
		return
	}
}

func send(ctx context.Context, rec *refundkit.Record, k *knowledge) {
	p := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: "refund." + rec.RequestID, Reference: rec.RequestID}
	for i := 0; i < 5; i++ {
		if i > 0 {
			time.Sleep(pause(i, k.retryAfter))
		}
		_, err := refundkit.CreateRefund(ctx, p)
		if err == nil || errors.Is(err, refundkit.ErrAlreadyRefunded) {
			k.refunded = true
			return
		}
		k.note = err.Error()
		refundkit.Logf(ctx, "send %d: %v", i+1, err)
		var conn *refundkit.ConnectionError
		var api *refundkit.APIError
		isAPI := errors.As(err, &api)
		k.retryAfter = 0
		if isAPI {
			k.retryAfter = api.RetryAfter
		}
		switch {
		case errors.Is(err, refundkit.ErrIdempotencyKeyReused):
			k.mayHaveSent = true
			return
		case errors.Is(err, refundkit.ErrInvalidRequest), errors.Is(err, refundkit.ErrResourceMissing):
			k.rejected = true
			return
		case errors.As(err, &conn), errors.Is(err, refundkit.ErrRateLimited):
			continue
		}
		k.mayHaveSent = true
		if isAPI && api.Replayed {
			return
		}
	}
}

func pause(i int, retryAfter time.Duration) time.Duration {
	d := time.Duration(rand.Int63n(int64(500*time.Millisecond<<uint(i-1)))) + time.Millisecond
	if retryAfter > d {
		d = retryAfter
	}
	return d
}
