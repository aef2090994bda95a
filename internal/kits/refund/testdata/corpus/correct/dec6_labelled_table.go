// Style: a package-level table of error classes (a slice of structs with a
// matcher func each), a labelled outer loop left with break and continue
// from inside a switch, a deferred guard in its own helper that turns a
// panic after the claim into needs_check, and "full jitter" over a doubling
// ceiling; a three-minute lease, three attempts (the page's minimum).
// Written for the strangers' round of 6 December 2026 from the page, the
// starter and refundkit only.
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

type class int

const (
	clsDone class = iota + 1
	clsResend
	clsDoubt
	clsWait
	clsReplay
	clsRefused
	clsPerson
)

var classes = []struct {
	name  string
	match func(error) bool
	class class
}{
	{"already refunded", func(e error) bool { return errors.Is(e, refundkit.ErrAlreadyRefunded) }, clsDone},
	{"never left", func(e error) bool { var c *refundkit.ConnectionError; return errors.As(e, &c) }, clsResend},
	{"no reply", func(e error) bool { var t *refundkit.TimeoutError; return errors.As(e, &t) }, clsDoubt},
	{"key in flight", func(e error) bool { return errors.Is(e, refundkit.ErrIdempotencyKeyInUse) }, clsDoubt},
	{"rate limited", func(e error) bool { return errors.Is(e, refundkit.ErrRateLimited) }, clsWait},
	{"saved 5xx", func(e error) bool {
		var a *refundkit.APIError
		return errors.Is(e, refundkit.ErrServer) && errors.As(e, &a) && a.Replayed
	}, clsReplay},
	{"5xx", func(e error) bool { return errors.Is(e, refundkit.ErrServer) }, clsDoubt},
	{"key reused", func(e error) bool { return errors.Is(e, refundkit.ErrIdempotencyKeyReused) }, clsPerson},
	{"invalid", func(e error) bool { return errors.Is(e, refundkit.ErrInvalidRequest) }, clsRefused},
	{"no charge", func(e error) bool { return errors.Is(e, refundkit.ErrResourceMissing) }, clsRefused},
	{"unauthorised", func(e error) bool { var a *refundkit.APIError; return errors.As(e, &a) && a.Status == 401 }, clsRefused},
}

func classify(err error) (class, string) {
	for _, c := range classes {
		if c.match(err) {
			return c.class, c.name
		}
	}
	return clsPerson, "unknown error"
}

const (
	nTries   = 3
	leaseDur = 3 * time.Minute
	unit     = time.Second
)

type result struct {
	status refundkit.Status
	why    string
}

// RefundMoney refunds requestID at most once and records the truth.
func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if errors.Is(err, refundkit.ErrNotFound) {
		return "", errors.New("refund request " + strconv.Quote(requestID) + " does not exist")
	}
	if err != nil {
		return "", fmt.Errorf("refund request %q: read failed: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	claimed, err := refundkit.Claim(ctx, requestID, leaseDur)
	if err != nil {
		return "", fmt.Errorf("refund request %q: claim failed: %w", requestID, err)
	}
	if !claimed {
		latest, err := refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", fmt.Errorf("refund request %q: re-read failed: %w", requestID, err)
		}
		return outcomeFor(latest.Status), nil
	}
	res := guarded(func() result { return process(ctx, rec) })
	return store(context.WithoutCancel(ctx), requestID, res)
}

// guarded runs f, and turns a panic into a needs_check result.
func guarded(f func() result) (r result) {
	defer func() {
		if p := recover(); p != nil {
			r = result{refundkit.StatusNeedsCheck, fmt.Sprintf("panic: %v", p)}
		}
	}()
	return f()
}

func process(ctx context.Context, rec *refundkit.Record) result {
	tag := "lbl:" + rec.RequestID
	lookup := func() (*refundkit.ProviderRefund, bool) {
		for i := 0; i < 2; i++ {
			if i == 1 {
				t := time.NewTimer(800 * time.Millisecond)
				select {
				case <-ctx.Done():
					t.Stop()
					return nil, false
				case <-t.C:
				}
			}
			list, err := refundkit.ListRefunds(ctx, rec.ChargeID)
			if err != nil {
				continue
			}
			for k := range list {
				if list[k].Reference == tag && list[k].Status != "failed" && list[k].Status != "canceled" {
					return &list[k], true
				}
			}
			return nil, true
		}
		return nil, false
	}
	fromLookup := func(why string) result {
		f, ok := lookup()
		if !ok || f == nil {
			return result{refundkit.StatusNeedsCheck, why}
		}
		if f.Amount != rec.Amount {
			return result{refundkit.StatusNeedsCheck, "found a refund of another amount: " + f.ID}
		}
		return result{refundkit.StatusDone, ""}
	}

	doubt := false
	if rec.Status != refundkit.StatusPending {
		doubt = true
		f, ok := lookup()
		switch {
		case !ok:
			return result{refundkit.StatusNeedsCheck, "look-up failed"}
		case f != nil && f.Amount == rec.Amount:
			return result{refundkit.StatusDone, ""}
		case f != nil:
			return result{refundkit.StatusNeedsCheck, "found a refund of another amount: " + f.ID}
		}
	}

	params := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: tag, Reference: tag}
	var retryAfter time.Duration
	why := "attempts used up"
tries:
	for try := 1; try <= nTries; try++ {
		if try > 1 {
			ceiling := unit << (try - 2)
			d := time.Duration(rand.Int63n(int64(ceiling))) + 10*time.Millisecond
			if d < retryAfter {
				d = retryAfter + time.Duration(rand.Int63n(int64(unit/4)))
			}
			retryAfter = 0
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				why = "the caller's context ended"
				break tries
			case <-t.C:
			}
		}
		_, err := refundkit.CreateRefund(ctx, params)
		if err == nil {
			return result{refundkit.StatusDone, ""}
		}
		c, name := classify(err)
		refundkit.Logf(ctx, "try %d: %s: %v", try, name, err)
		switch c {
		case clsDone:
			return result{refundkit.StatusDone, ""}
		case clsResend:
			continue tries
		case clsDoubt:
			doubt = true
		case clsWait:
			var a *refundkit.APIError
			if errors.As(err, &a) {
				if a.RetryAfter > 20*time.Second {
					why = "Retry-After longer than we may wait"
					break tries
				}
				retryAfter = a.RetryAfter
			}
		case clsReplay:
			return fromLookup("a saved 5xx replays under our key")
		case clsRefused:
			if doubt {
				return fromLookup("refused after an attempt that may have landed: " + err.Error())
			}
			return result{refundkit.StatusFailed, err.Error()}
		case clsPerson:
			return result{refundkit.StatusNeedsCheck, err.Error()}
		}
	}
	if doubt {
		return result{refundkit.StatusNeedsCheck, why}
	}
	return result{refundkit.StatusFailed, why}
}

func outcomeFor(s refundkit.Status) refundkit.Outcome {
	switch s {
	case refundkit.StatusDone:
		return refundkit.OutcomeDone
	case refundkit.StatusFailed:
		return refundkit.OutcomeFailed
	case refundkit.StatusNeedsCheck:
		return refundkit.OutcomeUnknown
	}
	return refundkit.OutcomeInProgress
}

func store(ctx context.Context, id string, r result) (out refundkit.Outcome, err error) {
	// A write that panics is a write that failed: fall back to needs_check.
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("refund request %q: recording %s panicked: %v", id, r.status, p)
			if r.status != refundkit.StatusNeedsCheck && refundkit.MarkNeedsCheck(ctx, id, fmt.Sprint("panic: ", p)) == nil {
				out, err = refundkit.OutcomeUnknown, nil
			}
		}
	}()
	switch r.status {
	case refundkit.StatusDone:
		err = refundkit.MarkDone(ctx, id)
	case refundkit.StatusFailed:
		err = refundkit.MarkFailed(ctx, id, r.why)
	default:
		err = refundkit.MarkNeedsCheck(ctx, id, r.why)
	}
	if err == nil {
		return outcomeFor(r.status), nil
	}
	if r.status != refundkit.StatusNeedsCheck {
		if refundkit.MarkNeedsCheck(ctx, id, "could not record "+string(r.status)+": "+err.Error()) == nil {
			return refundkit.OutcomeUnknown, nil
		}
	}
	return "", fmt.Errorf("refund request %q: recording %s: %w", id, r.status, err)
}
