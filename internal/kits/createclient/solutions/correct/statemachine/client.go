// Package client is a correct create client written as an explicit state
// machine: every outcome of an attempt moves the operation to a named
// state, and each state decides the next step.
package client

import (
	"context"
	"errors"
	"math/rand"
	"strconv"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type state int

const (
	fresh   state = iota // nothing has left, or what left provably did not land
	inDoubt              // something may have landed
	done
)

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	if ok, err := store.Claim(ctx, operationID, 5*time.Minute); err != nil || !ok {
		return createapi.Pending, err
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	feat := vendor.Features()
	st := fresh
	var plan createapi.Plan
	if op.Plan != nil {
		plan, st = *op.Plan, inDoubt
	} else {
		want := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		id := strconv.FormatInt(rand.Int63(), 36) + strconv.FormatInt(rand.Int63(), 36)
		if feat.IdempotencyKeys {
			want.IdempotencyKey = "ik-" + id
		}
		if feat.References {
			want.Reference = "ref-" + id
		}
		if plan, err = store.SavePlan(ctx, operationID, want); err != nil {
			return createapi.Pending, err
		}
		if plan.Request != want {
			st = inDoubt
		}
	}
	record := func(s createapi.Status, pay, note string) (createapi.Status, error) {
		if err := store.Finish(ctx, operationID, s, pay, note); err != nil {
			return createapi.Pending, err
		}
		return s, nil
	}
	doubtSince := time.Now()
	wait := 2 * time.Second
	for tries := 0; tries < 10 && st != done; tries++ {
		if st == inDoubt {
			switch {
			case feat.IdempotencyKeys && time.Since(plan.SavedAt) > feat.KeyLifetime/2:
				// Too close to the key's end to trust a resend.
				return record(createapi.Unknown, "", "key too old to resend")
			case !feat.IdempotencyKeys && !feat.References:
				return record(createapi.Unknown, "", "no way to tell whether it landed")
			case !feat.IdempotencyKeys:
				time.Sleep(time.Until(doubtSince.Add(feat.LandsWithin + feat.SearchLag + 2*time.Second)))
				hits, err := searchAgain(ctx, vendor, plan.Request.Reference)
				if err != nil {
					return record(createapi.Unknown, "", "search failed")
				}
				if len(hits) > 0 {
					return record(createapi.Created, hits[0].ID, "found by search")
				}
				st = fresh
			}
		}
		sent := time.Now()
		pay, err := vendor.Create(ctx, plan.Request)
		var he *createapi.HTTPError
		var ce *createapi.ConnectError
		switch {
		case err == nil:
			return record(createapi.Created, pay.ID, "")
		case errors.As(err, &ce):
		case errors.As(err, &he) && (he.Status == 408 || he.Status == 429):
			if he.RetryAfter > wait {
				wait = he.RetryAfter
			}
		case errors.As(err, &he) && (he.Status == 400 || he.Status == 422):
			if st == inDoubt {
				return record(createapi.Unknown, "", "refused after a lost answer")
			}
			return record(createapi.Failed, "", he.Error())
		case errors.As(err, &he) && he.Replayed:
			return record(createapi.Unknown, "", "saved error replayed")
		default: // timeout, 409, 5xx, cancelled
			if st != inDoubt {
				doubtSince = sent
			}
			st = inDoubt
			if !feat.IdempotencyKeys {
				doubtSince = sent
			}
		}
		time.Sleep(wait)
		wait *= 2
		if wait > 2*time.Minute {
			wait = 2 * time.Minute
		}
	}
	if st == inDoubt {
		return record(createapi.Unknown, "", "gave up in doubt")
	}
	return record(createapi.Failed, "", "gave up; nothing was sent")
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
