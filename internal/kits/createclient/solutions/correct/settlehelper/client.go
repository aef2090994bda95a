// Package client is a correct create client in this style: a single "settle"
// helper records every decision and returns only the status the store now
// holds (Finish, then re-read); the send loop is a flat state machine over a
// "mayHaveLanded" flag with a call-wide time budget.
package client

import (
	"context"
	"errors"
	"math/rand"
	"strconv"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

const (
	lease       = 14 * time.Minute
	budget      = 10 * time.Minute
	maxSends    = 40
	maxBackoff  = 30 * time.Second
	firstBackof = time.Second
)

var errStore = errors.New("store failed")

func settle(ctx context.Context, store createapi.Store, id string, st createapi.Status, pid, note string) (createapi.Status, error) {
	if err := store.Finish(ctx, id, st, pid, note); err != nil {
		return createapi.Pending, err
	}
	op, err := store.Get(ctx, id)
	if err != nil {
		return createapi.Pending, err
	}
	return op.Status, nil
}

func sleepFor(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	time.Sleep(d)
}

func grow(d time.Duration) time.Duration {
	d = d * 2
	if d > maxBackoff {
		d = maxBackoff
	}
	return d
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	start := time.Now()
	ok, err := store.Claim(ctx, operationID, lease)
	if err != nil {
		return createapi.Pending, err
	}
	if !ok {
		op, err := store.Get(ctx, operationID)
		if err != nil {
			return createapi.Pending, err
		}
		return op.Status, nil
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	f := vendor.Features()

	// The plan: built once, saved before any send; a plan found at start
	// (or one that is not ours) may already have been sent.
	mayHaveLanded := false
	var doubtSince time.Time // latest send that may have landed (or start, for a found plan)
	var plan createapi.Plan
	if op.Plan != nil {
		plan = *op.Plan
		mayHaveLanded = true
		doubtSince = start
	} else {
		tag := "op-" + op.ID + "-" + strconv.FormatInt(rand.Int63(), 36)
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		if f.IdempotencyKeys {
			req.IdempotencyKey = tag
		}
		if f.References {
			req.Reference = tag
		}
		plan, err = store.SavePlan(ctx, op.ID, req)
		if err != nil {
			return createapi.Pending, err
		}
		if plan.Request != req {
			mayHaveLanded = true
			doubtSince = start
		}
	}
	req := plan.Request

	keyUsable := func() bool {
		return f.IdempotencyKeys && time.Since(plan.SavedAt) < f.KeyLifetime
	}

	// searchSettles waits until everything in doubt could show up in the
	// index, then searches. found: a payment id; proven: empty caught-up search.
	searchSettles := func() (string, bool) {
		if !f.References {
			return "", false
		}
		ready := doubtSince.Add(f.LandsWithin + f.SearchLag + time.Second)
		for {
			if now := time.Now(); now.Before(ready) {
				sleepFor(ctx, ready.Sub(now))
			}
			found, serr := vendor.Search(ctx, req.Reference)
			if serr == nil {
				if len(found) > 0 {
					return found[0].ID, false
				}
				return "", true
			}
			if time.Since(start) > budget {
				return "", false
			}
			ready = time.Now().Add(20 * time.Second)
		}
	}

	// What to do when in doubt and no resend is possible.
	giveUp := func(note string) (createapi.Status, error) {
		if mayHaveLanded {
			if pid, _ := searchSettles(); pid != "" {
				return settle(ctx, store, op.ID, createapi.Created, pid, "found by reference")
			}
			return settle(ctx, store, op.ID, createapi.Unknown, "", note)
		}
		return settle(ctx, store, op.ID, createapi.Failed, "", note)
	}

	backoff := firstBackof
	replayedErr := false
	for sends := 0; ; sends++ {
		if sends >= maxSends || time.Since(start) > budget {
			return giveUp("gave up: attempts or time ran out")
		}
		if mayHaveLanded {
			switch {
			case replayedErr:
				return giveUp("vendor replays a saved server error for the key")
			case keyUsable():
				// the vendor recognises the repeat
			case f.References:
				pid, proven := searchSettles()
				if pid != "" {
					return settle(ctx, store, op.ID, createapi.Created, pid, "found by reference")
				}
				if !proven {
					return settle(ctx, store, op.ID, createapi.Unknown, "", "search could not settle the doubt")
				}
				if f.IdempotencyKeys {
					// expired key: a resend would be a new payment with no
					// protection if anything is still in flight; do not.
					return settle(ctx, store, op.ID, createapi.Unknown, "", "key expired")
				}
				mayHaveLanded = false
			default:
				return settle(ctx, store, op.ID, createapi.Unknown, "", "may have landed; nothing can recognise a resend")
			}
		}
		sentAt := time.Now()
		payment, cerr := vendor.Create(ctx, req)
		if cerr == nil {
			return settle(ctx, store, op.ID, createapi.Created, payment.ID, "")
		}
		var ce *createapi.ConnectError
		var te *createapi.TimeoutError
		var he *createapi.HTTPError
		wait := backoff
		backoff = grow(backoff)
		switch {
		case errors.As(cerr, &ce):
			// nothing was sent
		case errors.As(cerr, &te):
			mayHaveLanded = true
			doubtSince = sentAt
		case errors.As(cerr, &he):
			switch {
			case he.Status == 408 || he.Status == 429:
				if he.RetryAfter > wait {
					wait = he.RetryAfter
				}
			case he.Status == 400 || he.Status == 422:
				if mayHaveLanded {
					return settle(ctx, store, op.ID, createapi.Unknown, "", "refused after an attempt that may have landed: "+cerr.Error())
				}
				return settle(ctx, store, op.ID, createapi.Failed, "", cerr.Error())
			case he.Status == 409:
				mayHaveLanded = true
				doubtSince = sentAt
				if he.RetryAfter > wait {
					wait = he.RetryAfter
				}
			case he.Status >= 500:
				mayHaveLanded = true
				if !he.Replayed || doubtSince.IsZero() {
					doubtSince = sentAt
				}
				if he.Replayed {
					replayedErr = true
				}
				if he.RetryAfter > wait {
					wait = he.RetryAfter
				}
			default:
				// an unexpected 4xx: may or may not have been applied
				mayHaveLanded = true
				doubtSince = sentAt
				replayedErr = true
			}
		default:
			mayHaveLanded = true
			doubtSince = sentAt
		}
		sleepFor(ctx, wait)
	}
}
