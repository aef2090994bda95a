// Package client is a correct create client in this style: table-driven
// classifier. Every vendor answer is mapped through a table to a verdict
// (ok, not sent, wait, refused, doubt, replayed doubt); one flat loop acts
// on the verdict. Lease 12m, exponential backoff capped at 20s, keys and
// references spelled "op-<id>-<random>".
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type verdict int

const (
	vOK       verdict = iota
	vNotSent          // connection never made
	vWait             // 408/429: nothing done, come back after Retry-After
	vRefused          // 400/422: read and refused
	vDoubt            // timeout, 409, 5xx: may have landed
	vReplayed         // a saved 5xx replayed under the key: may have landed, resending won't help
)

var httpTable = map[int]verdict{
	400: vRefused,
	422: vRefused,
	408: vWait,
	429: vWait,
	409: vDoubt,
}

const (
	leaseA     = 12 * time.Minute
	budgetA    = 10 * time.Minute
	maxCalmA   = 6  // attempts that got no final answer and cannot have landed
	maxSendsA  = 40 // all sends
	keyMarginA = 2 * time.Minute
)

func classify(err error) (verdict, time.Duration) {
	if err == nil {
		return vOK, 0
	}
	var ce *createapi.ConnectError
	if errors.As(err, &ce) {
		return vNotSent, 0
	}
	var te *createapi.TimeoutError
	if errors.As(err, &te) {
		return vDoubt, 0
	}
	var he *createapi.HTTPError
	if errors.As(err, &he) {
		if v, ok := httpTable[he.Status]; ok {
			return v, he.RetryAfter
		}
		if he.Status >= 500 && he.Replayed {
			return vReplayed, 0
		}
		return vDoubt, 0
	}
	return vDoubt, 0
}

func backoffA(n int) time.Duration {
	d := time.Second
	for i := 0; i < n && d < 20*time.Second; i++ {
		d *= 2
	}
	if d > 20*time.Second {
		d = 20 * time.Second
	}
	return d
}

func sleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	ok, err := store.Claim(ctx, operationID, leaseA)
	if err != nil {
		return createapi.Pending, err
	}
	if !ok {
		return createapi.Pending, nil
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	f := vendor.Features()
	deadline := time.Now().Add(budgetA)

	finish := func(st createapi.Status, pid, note string) (createapi.Status, error) {
		if err := store.Finish(ctx, operationID, st, pid, note); err != nil {
			return createapi.Pending, err
		}
		return st, nil
	}

	var plan createapi.Plan
	doubt := false
	var firstDoubt, lastDoubt time.Time
	if op.Plan != nil {
		plan = *op.Plan
		doubt = true
		firstDoubt, lastDoubt = time.Now(), time.Now()
	} else {
		mine := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		token := fmt.Sprintf("op-%s-%x", op.ID, uint64(rand.Int63()))
		if f.IdempotencyKeys {
			mine.IdempotencyKey = token
		}
		if f.References {
			mine.Reference = token
		}
		plan, err = store.SavePlan(ctx, operationID, mine)
		if err != nil {
			return createapi.Pending, err
		}
		if plan.Request != mine {
			// Another process planned it first: it may have sent it.
			doubt = true
			firstDoubt, lastDoubt = time.Now(), time.Now()
		}
	}

	keyAlive := func() bool {
		return time.Now().Add(keyMarginA).Before(plan.SavedAt.Add(f.KeyLifetime))
	}

	// searchSettle waits until every doubtful attempt could have landed and
	// shown, then searches. found: created; empty: proven absent; else unsure.
	searchSettle := func() (string, bool, bool) {
		sleepUntil(lastDoubt.Add(f.LandsWithin + f.SearchLag + time.Second))
		for i := 0; i < 8 && time.Now().Before(deadline); i++ {
			found, err := vendor.Search(ctx, plan.Request.Reference)
			if err == nil {
				if len(found) > 0 {
					return found[0].ID, true, true
				}
				return "", false, true
			}
			time.Sleep(backoffA(i + 2))
		}
		return "", false, false
	}

	replayed := false
	calm, sends := 0, 0
	for {
		if doubt {
			canResend := f.IdempotencyKeys && keyAlive() && !replayed
			if !canResend {
				if !f.References {
					return finish(createapi.Unknown, "", "may have landed; no way to tell")
				}
				pid, found, sure := searchSettle()
				if found {
					return finish(createapi.Created, pid, "found by reference")
				}
				if !sure {
					return finish(createapi.Unknown, "", "search never answered")
				}
				if f.IdempotencyKeys {
					if replayed {
						return finish(createapi.Failed, "", "saved 5xx replayed and no payment carries the reference")
					}
					return finish(createapi.Unknown, "", "key expired; cannot resend under it")
				}
				doubt = false // proven: nothing landed
			}
		}
		if time.Now().After(deadline) || sends >= maxSendsA {
			if doubt {
				return finish(createapi.Unknown, "", "out of time")
			}
			return finish(createapi.Failed, "", "never sent")
		}
		sentAt := time.Now()
		sends++
		p, err := vendor.Create(ctx, plan.Request)
		v, ra := classify(err)
		switch v {
		case vOK:
			return finish(createapi.Created, p.ID, "")
		case vNotSent, vWait:
			calm++
			if calm >= maxCalmA {
				if doubt {
					return finish(createapi.Unknown, "", "gave up: "+err.Error())
				}
				return finish(createapi.Failed, "", "gave up, nothing landed: "+err.Error())
			}
			w := backoffA(calm)
			if ra > w {
				w = ra
			}
			time.Sleep(w)
		case vRefused:
			if !doubt {
				return finish(createapi.Failed, "", err.Error())
			}
			if f.References {
				pid, found, sure := searchSettle()
				if found {
					return finish(createapi.Created, pid, "found by reference")
				}
				if sure {
					return finish(createapi.Failed, "", err.Error()+"; nothing landed")
				}
			}
			return finish(createapi.Unknown, "", err.Error()+" after an attempt that may have landed")
		case vDoubt, vReplayed:
			if !doubt {
				firstDoubt = sentAt
			}
			doubt = true
			lastDoubt = sentAt
			if v == vReplayed {
				replayed = true
			}
			if f.IdempotencyKeys && !replayed && !sentAt.Before(firstDoubt.Add(f.LandsWithin)) {
				// This one was sent after the first doubtful one must have
				// landed, and still no answer says which.
				replayed = true // stop resending; settle below
			}
			if f.IdempotencyKeys && !replayed {
				time.Sleep(backoffA(sends))
			}
		}
	}
}
