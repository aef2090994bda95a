// Package client is a correct create client whose key is derived from the
// operation's own id rather than drawn at random: the same on every
// attempt and every restart by construction, distinct per operation. It
// keeps its retry loop flat and its decisions in one function.
package client

import (
	"context"
	"errors"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type verdict int

const (
	retry verdict = iota
	retryInDoubt
	refused
	hopeless // a saved error keeps coming back
)

func judge(err error) (verdict, time.Duration) {
	var he *createapi.HTTPError
	if !errors.As(err, &he) {
		var ce *createapi.ConnectError
		if errors.As(err, &ce) {
			return retry, 0
		}
		return retryInDoubt, 0
	}
	switch {
	case he.Status == 408 || he.Status == 429:
		return retry, he.RetryAfter
	case he.Status == 409:
		return retryInDoubt, 0
	case he.Status >= 500 && he.Replayed:
		return hopeless, 0
	case he.Status >= 500:
		return retryInDoubt, 0
	}
	return refused, 0
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	ok, err := store.Claim(ctx, operationID, 3*time.Minute)
	if err != nil || !ok {
		return createapi.Pending, err
	}
	op, err := store.Get(ctx, operationID)
	if err != nil || op.Status != createapi.Pending {
		return op.Status, err
	}
	f := vendor.Features()
	doubt, last := false, time.Now()
	var plan createapi.Plan
	if op.Plan != nil {
		plan, doubt = *op.Plan, true
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		if f.IdempotencyKeys {
			req.IdempotencyKey = "create:" + op.ID
		}
		if f.References {
			req.Reference = "op/" + op.ID
		}
		if plan, err = store.SavePlan(ctx, op.ID, req); err != nil {
			return createapi.Pending, err
		}
		doubt = plan.Request != req
	}
	end := func(s createapi.Status, pay, note string) (createapi.Status, error) {
		if err := store.Finish(ctx, op.ID, s, pay, note); err != nil {
			return createapi.Pending, err
		}
		return s, nil
	}
	for i := 0; i < 7; i++ {
		if doubt && f.IdempotencyKeys && time.Since(plan.SavedAt) >= f.KeyLifetime-10*time.Minute {
			return end(createapi.Unknown, "", "expired key")
		}
		if doubt && !f.IdempotencyKeys {
			if !f.References {
				return end(createapi.Unknown, "", "cannot tell; reconcile")
			}
			if d := time.Until(last.Add(f.LandsWithin + f.SearchLag + time.Second)); d > 0 {
				time.Sleep(d)
			}
			hits, err := searchAgain(ctx, vendor, plan.Request.Reference)
			if err != nil {
				return end(createapi.Unknown, "", "search failed")
			}
			if len(hits) > 0 {
				return end(createapi.Created, hits[0].ID, "found")
			}
			doubt = false
		}
		last = time.Now()
		p, err := vendor.Create(ctx, plan.Request)
		if err == nil {
			return end(createapi.Created, p.ID, "")
		}
		v, after := judge(err)
		switch v {
		case refused:
			if doubt {
				return end(createapi.Unknown, "", "refused after doubt")
			}
			return end(createapi.Failed, "", err.Error())
		case hopeless:
			return end(createapi.Unknown, "", "replayed error")
		case retryInDoubt:
			doubt = true
		}
		time.Sleep(longer(after, time.Duration(1<<i)*time.Second))
	}
	if doubt {
		return end(createapi.Unknown, "", "attempts exhausted in doubt")
	}
	return end(createapi.Failed, "", "attempts exhausted")
}

// longer is max for durations (the interpreter has no min or max builtin).
func longer(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
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
