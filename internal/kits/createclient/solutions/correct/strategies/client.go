// Package client is a correct create client with one strategy per kind of
// vendor behind a small interface: keys resend freely under the one key,
// references reconcile before a resend, neither never resends a doubt.
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

// strategy says whether an attempt may be sent now, given that an earlier
// one may have landed (sentAt is when the last such attempt was sent).
type strategy interface {
	mayResend(ctx context.Context, plan createapi.Plan, sentAt time.Time) (found *createapi.Payment, ok bool, why string)
}

type keyed struct{ f createapi.Features }

func (k keyed) mayResend(_ context.Context, plan createapi.Plan, _ time.Time) (*createapi.Payment, bool, string) {
	if time.Since(plan.SavedAt)+time.Hour > k.f.KeyLifetime {
		return nil, false, "the key may have expired"
	}
	return nil, true, ""
}

type referenced struct {
	f createapi.Features
	v createapi.Vendor
}

func (r referenced) mayResend(ctx context.Context, plan createapi.Plan, sentAt time.Time) (*createapi.Payment, bool, string) {
	time.Sleep(time.Until(sentAt.Add(r.f.LandsWithin + r.f.SearchLag + 500*time.Millisecond)))
	hits, err := searchAgain(ctx, r.v, plan.Request.Reference)
	if err != nil {
		return nil, false, "search failed: " + err.Error()
	}
	if len(hits) > 0 {
		return &hits[0], false, ""
	}
	return nil, true, ""
}

type neither struct{}

func (neither) mayResend(context.Context, createapi.Plan, time.Time) (*createapi.Payment, bool, string) {
	return nil, false, "the vendor has neither keys nor references"
}

func pick(v createapi.Vendor) strategy {
	f := v.Features()
	switch {
	case f.IdempotencyKeys:
		return keyed{f}
	case f.References:
		return referenced{f, v}
	}
	return neither{}
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	claimed, err := store.Claim(ctx, operationID, time.Minute*15)
	if err != nil {
		return createapi.Pending, fmt.Errorf("claim: %w", err)
	}
	if !claimed {
		return createapi.Pending, nil
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, fmt.Errorf("get: %w", err)
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	f := vendor.Features()
	doubt := op.Plan != nil
	var plan createapi.Plan
	if doubt {
		plan = *op.Plan
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		token := fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64())
		if f.IdempotencyKeys {
			req.IdempotencyKey = token
		}
		if f.References {
			req.Reference = token
		}
		plan, err = store.SavePlan(ctx, operationID, req)
		if err != nil {
			return createapi.Pending, fmt.Errorf("save plan: %w", err)
		}
		doubt = plan.Request != req
	}
	s := pick(vendor)
	settle := func(st createapi.Status, id, note string) (createapi.Status, error) {
		return st, store.Finish(ctx, operationID, st, id, note)
	}
	sentAt := time.Now()
	for attempt := 1; attempt <= 6; attempt++ {
		if doubt {
			found, ok, why := s.mayResend(ctx, plan, sentAt)
			if found != nil {
				return settle(createapi.Created, found.ID, "reconciled")
			}
			if !ok {
				return settle(createapi.Unknown, "", why)
			}
			if _, isKeyed := s.(keyed); !isKeyed {
				doubt = false
			}
		}
		sentAt = time.Now()
		p, err := vendor.Create(ctx, plan.Request)
		if err == nil {
			return settle(createapi.Created, p.ID, "")
		}
		pause := time.Duration(attempt) * 3 * time.Second
		var he *createapi.HTTPError
		var ce *createapi.ConnectError
		if errors.As(err, &ce) {
			time.Sleep(pause)
			continue
		}
		if !errors.As(err, &he) {
			doubt = true // timeout or a cancelled wait
			time.Sleep(pause)
			continue
		}
		switch {
		case he.Status == 408 || he.Status == 429:
			if he.RetryAfter > pause {
				pause = he.RetryAfter
			}
		case he.Status == 409 || he.Status >= 500:
			doubt = true
			if he.Replayed {
				return settle(createapi.Unknown, "", "the vendor keeps replaying "+he.Error())
			}
		case doubt:
			return settle(createapi.Unknown, "", "refused after an attempt in doubt: "+he.Error())
		default:
			return settle(createapi.Failed, "", he.Error())
		}
		time.Sleep(pause)
	}
	if doubt {
		return settle(createapi.Unknown, "", "out of attempts, last one in doubt")
	}
	return settle(createapi.Failed, "", "out of attempts, none sent")
}

// searchAgain searches for ref, and tries a search that fails twice more,
// 5s apart: a failed search looked nothing up.
func searchAgain(ctx context.Context, v createapi.Vendor, ref string) ([]createapi.Payment, error) {
	var hits []createapi.Payment
	var err error
	for i := 0; i < 3; i++ {
		if i > 0 {
			time.Sleep(5 * time.Second)
		}
		if hits, err = v.Search(ctx, ref); err == nil {
			return hits, nil
		}
	}
	return hits, err
}
