// Style: table-driven: every provider answer is matched against a table of
// rules (first match wins) that says whether it may have landed, whether to
// resend and what to record; a package-level retry policy table chooses the
// pause per attempt.
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

type action int

const (
	resend action = iota + 1
	markDone
	markFailed
	markUnknown
	lookItUp
)

type rule struct {
	name     string
	match    func(error) bool
	mayLand  bool
	act      action
	actDoubt action // when an earlier attempt may have landed
}

func isAPI(pred func(*refundkit.APIError) bool) func(error) bool {
	return func(err error) bool {
		var ae *refundkit.APIError
		return errors.As(err, &ae) && pred(ae)
	}
}

var rules = []rule{
	{"ok", func(err error) bool { return err == nil }, true, markDone, markDone},
	{"never sent", func(err error) bool { var c *refundkit.ConnectionError; return errors.As(err, &c) }, false, resend, resend},
	{"timed out", func(err error) bool { var t *refundkit.TimeoutError; return errors.As(err, &t) }, true, resend, resend},
	{"already refunded", func(err error) bool { return errors.Is(err, refundkit.ErrAlreadyRefunded) }, true, markDone, markDone},
	{"in flight", func(err error) bool { return errors.Is(err, refundkit.ErrIdempotencyKeyInUse) }, true, resend, resend},
	{"rate limited", func(err error) bool { return errors.Is(err, refundkit.ErrRateLimited) }, false, resend, resend},
	{"replayed 5xx", isAPI(func(a *refundkit.APIError) bool { return a.Status >= 500 && a.Replayed }), true, lookItUp, lookItUp},
	{"5xx", func(err error) bool { return errors.Is(err, refundkit.ErrServer) }, true, resend, resend},
	{"key reused", func(err error) bool { return errors.Is(err, refundkit.ErrIdempotencyKeyReused) }, true, markUnknown, markUnknown},
	{"invalid", func(err error) bool { return errors.Is(err, refundkit.ErrInvalidRequest) }, false, markFailed, lookItUp},
	{"no such charge", func(err error) bool { return errors.Is(err, refundkit.ErrResourceMissing) }, false, markFailed, lookItUp},
	{"unauthorised", isAPI(func(a *refundkit.APIError) bool { return a.Status == 401 }), false, markFailed, lookItUp},
	{"anything else", func(error) bool { return true }, true, markUnknown, markUnknown},
}

// backoffTable: base pause before attempt i+1; a random part of up to the
// same again is added.
var backoffTable = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}

const leaseLen = 3 * time.Minute

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		if errors.Is(err, refundkit.ErrNotFound) {
			return "", fmt.Errorf("%s: %w", requestID, err)
		}
		return "", fmt.Errorf("%s: loading: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	doubt := rec.Status != refundkit.StatusPending
	claimed, err := refundkit.Claim(ctx, requestID, leaseLen)
	if err != nil {
		return "", fmt.Errorf("%s: claim: %w", requestID, err)
	}
	if !claimed {
		cur, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("%s: re-read: %w", requestID, err)
		}
		for _, row := range [][2]string{{"done", "done"}, {"failed", "failed"}, {"needs_check", "unknown"}} {
			if string(cur.Status) == row[0] {
				return refundkit.Outcome(row[1]), nil
			}
		}
		return refundkit.OutcomeInProgress, nil
	}
	end := time.Now().Add(leaseLen)
	dbctx := context.WithoutCancel(ctx)
	defer func() {
		if p := recover(); p != nil {
			refundkit.MarkNeedsCheck(dbctx, requestID, "panic")
			panic(p)
		}
	}()
	act := resend
	why := ""
	if doubt {
		act = lookItUp
		why = "resumed an unsettled request"
	}
	sends := 0
	lookedUp := false
	for {
		switch act {
		case markDone:
			if err := refundkit.MarkDone(dbctx, requestID); err != nil {
				if refundkit.MarkNeedsCheck(dbctx, requestID, "refund made, done not recorded") != nil {
					return "", err
				}
				return refundkit.OutcomeUnknown, nil
			}
			return refundkit.OutcomeDone, nil
		case markFailed:
			if err := refundkit.MarkFailed(dbctx, requestID, why); err != nil {
				return "", err
			}
			return refundkit.OutcomeFailed, nil
		case markUnknown:
			if err := refundkit.MarkNeedsCheck(dbctx, requestID, why); err != nil {
				return "", err
			}
			return refundkit.OutcomeUnknown, nil
		case lookItUp:
			act, why = lookUpOnce(ctx, rec, lookedUp || sends > 0)
			lookedUp = true
		case resend:
			if sends == 5 || ctx.Err() != nil {
				act = markFailed
				why = "gave up; nothing reached the provider"
				if doubt {
					act, why = markUnknown, "gave up after an ambiguous attempt"
				}
				continue
			}
			_, err := refundkit.CreateRefund(ctx, refundkit.RefundParams{
				Charge: rec.ChargeID, Amount: rec.Amount,
				IdempotencyKey: "key-" + requestID, Reference: "ref-" + requestID,
			})
			sends++
			var r rule
			for _, r = range rules {
				if r.match(err) {
					break
				}
			}
			act = r.act
			if doubt {
				act = r.actDoubt
			}
			doubt = doubt || r.mayLand
			if err != nil {
				why = r.name + ": " + err.Error()
			}
			if act == resend && sends < 5 {
				pause := backoffTable[sends-1]
				pause += time.Duration(rand.Int63n(int64(pause)))
				var ae *refundkit.APIError
				if errors.As(err, &ae) && ae.RetryAfter > pause {
					pause = ae.RetryAfter
				}
				if time.Until(end) < pause+time.Minute {
					sends = 5
					continue
				}
				time.Sleep(pause)
			}
		}
	}
}

// lookUpOnce: after sending (settle is true), finding nothing cannot settle
// anything; before sending it allows a send.
func lookUpOnce(ctx context.Context, rec *refundkit.Record, settle bool) (action, string) {
	for i := 0; i < 3; i++ {
		if i > 0 {
			time.Sleep(time.Duration(500+rand.Intn(1000)) * time.Millisecond)
		}
		list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
		if err != nil {
			continue
		}
		for _, r := range list {
			if r.Reference != "ref-"+rec.RequestID || r.Status == "failed" || r.Status == "canceled" {
				continue
			}
			if r.Amount == rec.Amount {
				return markDone, ""
			}
			return markUnknown, "found our reference on a refund of another amount"
		}
		if settle {
			return markUnknown, "no refund found, but an attempt may still land"
		}
		return resend, ""
	}
	return markUnknown, "the look-up kept failing"
}
