// Package client is the dec5-plainloop client with one defect: a 422 is final
// and means failed, even when an earlier attempt timed out ("the vendor
// checked it and said no").
//
// It breaks: "An operation is failed only when nothing it sent may have
// landed".
//
// defect: unknown-not-failed
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

const (
	lease       = 10 * time.Minute
	callBudget  = 50 * time.Minute
	searchLimit = 170 * time.Minute
	maxSends    = 40
)

var errLost = errors.New("another worker holds the operation now")

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	start := time.Now()
	ok, err := store.Claim(ctx, operationID, lease)
	if err != nil {
		return createapi.Pending, err
	}
	if !ok {
		return createapi.Pending, nil
	}
	claimedAt := time.Now()
	// renew takes the claim again once half the lease has gone.
	renew := func() error {
		if time.Since(claimedAt) < lease/2 {
			return nil
		}
		ok, err := store.Claim(ctx, operationID, lease)
		if err != nil {
			return err
		}
		if !ok {
			return errLost
		}
		claimedAt = time.Now()
		return nil
	}
	// sleep waits d, renewing the claim on the way.
	sleep := func(d time.Duration) error {
		for d > 0 {
			step := d
			if step > lease/4 {
				step = lease / 4
			}
			time.Sleep(step)
			d -= step
			if err := renew(); err != nil {
				return err
			}
		}
		return nil
	}
	finish := func(st createapi.Status, paymentID, note string) (createapi.Status, error) {
		if err := renew(); err != nil {
			return stopped(err)
		}
		if err := store.Finish(ctx, operationID, st, paymentID, note); err != nil {
			return createapi.Pending, err
		}
		return st, nil
	}

	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	f := vendor.Features()

	doubt := false
	var doubtAt time.Time
	var plan createapi.Plan
	if op.Plan != nil {
		plan = *op.Plan
		doubt, doubtAt = true, time.Now() // an earlier process may have sent it just now
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		tag := fmt.Sprintf("%s-%016x", op.ID, rand.Int63())
		if f.IdempotencyKeys {
			req.IdempotencyKey = tag
		}
		if f.References {
			req.Reference = tag
		}
		plan, err = store.SavePlan(ctx, operationID, req)
		if err != nil {
			return createapi.Pending, err
		}
		if plan.Request != req {
			doubt, doubtAt = true, time.Now() // someone else's plan: it may be out already
		}
	}
	keyYoung := func() bool {
		return f.IdempotencyKeys && time.Now().Add(f.LandsWithin).Before(plan.SavedAt.Add(f.KeyLifetime))
	}

	// search looks for the payment once anything sent by doubtAt could show.
	// found is nil when the search proved there is none.
	search := func() (*createapi.Payment, error) {
		if err := sleep(time.Until(doubtAt.Add(f.LandsWithin + f.SearchLag + time.Second))); err != nil {
			return nil, err
		}
		wait := 10 * time.Second
		for {
			if err := renew(); err != nil {
				return nil, err
			}
			found, err := vendor.Search(ctx, plan.Request.Reference)
			if err == nil {
				for i := range found {
					if found[i].Reference == plan.Request.Reference {
						return &found[i], nil
					}
				}
				return nil, nil
			}
			if time.Since(start)+wait > searchLimit {
				return nil, fmt.Errorf("search kept failing: %w", err)
			}
			if err := sleep(wait + time.Duration(rand.Int63n(int64(wait)))); err != nil {
				return nil, err
			}
			if wait < 8*time.Minute {
				wait *= 2
			}
		}
	}

	if doubt && !f.IdempotencyKeys {
		if !f.References {
			return finish(createapi.Unknown, "", "a plan was found: it may have been sent, and this vendor cannot tell")
		}
		p, err := search()
		if errors.Is(err, errLost) {
			return stopped(err)
		}
		if err != nil {
			return finish(createapi.Unknown, "", err.Error())
		}
		if p != nil {
			return finish(createapi.Created, p.ID, "found by reference")
		}
		doubt = false
	}
	if doubt && !keyYoung() {
		return settleBySearch(f, search, finish, "the key may have expired")
	}

	pause := time.Second
	var retryAfter time.Duration
	for sends := 0; sends < maxSends; sends++ {
		if sends >= 3 && time.Since(start) > callBudget {
			break
		}
		if sends > 0 {
			w := pause/2 + time.Duration(rand.Int63n(int64(pause/2)))
			if retryAfter > w {
				w = retryAfter
			}
			retryAfter = 0
			if err := sleep(w); err != nil {
				return stopped(err)
			}
			if pause < 2*time.Minute {
				pause *= 2
			}
		}
		if doubt && f.IdempotencyKeys && !keyYoung() {
			return settleBySearch(f, search, finish, "the key is too old to resend under")
		}
		if err := renew(); err != nil {
			return stopped(err)
		}
		sentAt := time.Now()
		pay, err := vendor.Create(ctx, plan.Request)
		if err == nil {
			return finish(createapi.Created, pay.ID, "")
		}
		var ce *createapi.ConnectError
		var te *createapi.TimeoutError
		var he *createapi.HTTPError
		switch {
		case errors.As(err, &ce):
			continue
		case errors.As(err, &te):
		case errors.As(err, &he) && (he.Status == 408 || he.Status == 429):
			retryAfter = he.RetryAfter
			continue
		case errors.As(err, &he) && (he.Status == 400 || he.Status == 422):
			return finish(createapi.Failed, "", err.Error())
		case errors.As(err, &he) && he.Status >= 500 && he.Replayed:
			doubt = true
			return settleBySearch(f, search, finish, "the vendor replays a saved server error")
		case errors.As(err, &he) && (he.Status == 409 || he.Status >= 500):
		default:
			return finish(createapi.Unknown, "", "unexpected answer: "+err.Error())
		}
		// it may have landed
		doubt = true
		doubtAt = sentAt
		if f.IdempotencyKeys {
			continue
		}
		if !f.References {
			return finish(createapi.Unknown, "", "sent once, answer unclear; this vendor cannot recognise a resend")
		}
		p, err := search()
		if errors.Is(err, errLost) {
			return stopped(err)
		}
		if err != nil {
			return finish(createapi.Unknown, "", err.Error())
		}
		if p != nil {
			return finish(createapi.Created, p.ID, "found by reference")
		}
		doubt = false // an empty search after it could have shown: it never landed
	}
	if doubt {
		return finish(createapi.Unknown, "", "attempts ran out after an attempt that may have landed")
	}
	return finish(createapi.Failed, "", "attempts ran out; nothing was carried out")
}

func settleBySearch(f createapi.Features, search func() (*createapi.Payment, error),
	finish func(createapi.Status, string, string) (createapi.Status, error), why string) (createapi.Status, error) {
	if !f.References {
		return finish(createapi.Unknown, "", why)
	}
	p, err := search()
	if errors.Is(err, errLost) {
		return stopped(err)
	}
	if err != nil {
		return finish(createapi.Unknown, "", why+"; "+err.Error())
	}
	if p != nil {
		return finish(createapi.Created, p.ID, "found by reference")
	}
	return finish(createapi.Unknown, "", why+"; not found by reference")
}

// stopped: the claim went to another worker, so this call records nothing;
// a store failure while renewing is an error.
func stopped(err error) (createapi.Status, error) {
	if errors.Is(err, errLost) {
		return createapi.Pending, nil
	}
	return createapi.Pending, err
}
