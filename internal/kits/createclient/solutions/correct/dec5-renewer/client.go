// Package client is a correct create client in this style: goroutines: a
// background goroutine renews the claim on a ticker and reports a lost claim
// or a store error through an atomic flag; the call stops it (close of a done
// channel, then waits on a WaitGroup) before returning. The send path is
// written as a plain loop; eleven-minute lease. Written for the strangers'
// round of 5 December 2026 from the page, the starter and createapi only.
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

const (
	leaseTime = 11 * time.Minute
	renewEach = 3 * time.Minute
)

type keeper struct {
	lost   atomic.Bool
	mu     sync.Mutex
	err    error
	done   chan struct{}
	wg     sync.WaitGroup
	lastOK atomic.Int64 // unix nanos of the last successful claim
}

func startKeeper(ctx context.Context, store createapi.Store, id string) *keeper {
	k := &keeper{done: make(chan struct{})}
	k.lastOK.Store(time.Now().UnixNano())
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		t := time.NewTicker(renewEach)
		defer t.Stop()
		for {
			select {
			case <-k.done:
				return
			case <-t.C:
				ok, err := store.Claim(ctx, id, leaseTime)
				if err != nil || !ok {
					k.mu.Lock()
					if err == nil {
						err = errClaimLost
					}
					k.err = err
					k.mu.Unlock()
					k.lost.Store(true)
					return
				}
				k.lastOK.Store(time.Now().UnixNano())
			}
		}
	}()
	return k
}

var errClaimLost = errors.New("claim lost")

// ours: the claim is still ours with room for a call.
func (k *keeper) ours() bool {
	if k.lost.Load() {
		return false
	}
	return time.Since(time.Unix(0, k.lastOK.Load())) < leaseTime-2*time.Minute
}

func (k *keeper) stop() {
	close(k.done)
	k.wg.Wait()
}

func (k *keeper) failure() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err == nil {
		return errClaimLost
	}
	return k.err
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	began := time.Now()
	ok, err := store.Claim(ctx, operationID, leaseTime)
	if err != nil {
		return createapi.Pending, err
	}
	if !ok {
		return createapi.Pending, nil
	}
	k := startKeeper(ctx, store, operationID)
	defer k.stop()
	bail := func() (createapi.Status, error) {
		if err := k.failure(); !errors.Is(err, errClaimLost) {
			return createapi.Pending, err
		}
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
	var plan createapi.Plan
	doubt := op.Plan != nil
	lastMaybe := time.Now()
	if doubt {
		plan = *op.Plan
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		n := rand.Int63()
		if f.IdempotencyKeys {
			req.IdempotencyKey = fmt.Sprintf("k%d-%s", n, op.ID)
		}
		if f.References {
			req.Reference = fmt.Sprintf("r%d-%s", n, op.ID)
		}
		if plan, err = store.SavePlan(ctx, operationID, req); err != nil {
			return createapi.Pending, err
		}
		doubt = plan.Request != req
	}
	record := func(st createapi.Status, pay, note string) (createapi.Status, error) {
		if !k.ours() {
			return bail()
		}
		if err := store.Finish(ctx, operationID, st, pay, note); err != nil {
			return createapi.Pending, err
		}
		return st, nil
	}
	// lookFor: 1 found, 0 proved absent, -1 unknown, -2 claim gone.
	lookFor := func() (int, string) {
		time.Sleep(time.Until(lastMaybe.Add(f.LandsWithin + f.SearchLag + 2*time.Second)))
		wait := 20 * time.Second
		for {
			if !k.ours() {
				return -2, ""
			}
			got, err := vendor.Search(ctx, plan.Request.Reference)
			if err == nil {
				for _, p := range got {
					if p.Reference == plan.Request.Reference {
						return 1, p.ID
					}
				}
				return 0, ""
			}
			if time.Since(began) > 160*time.Minute {
				return -1, ""
			}
			time.Sleep(wait)
			if wait < 5*time.Minute {
				wait += wait / 2
			}
		}
	}
	byLook := func(why string) (createapi.Status, error) {
		if !f.References {
			return record(createapi.Unknown, "", why)
		}
		switch r, id := lookFor(); r {
		case 1:
			return record(createapi.Created, id, "found by reference")
		case -2:
			return bail()
		}
		return record(createapi.Unknown, "", why)
	}

	if doubt && !f.IdempotencyKeys {
		if !f.References {
			return record(createapi.Unknown, "", "planned before this call: may have been sent")
		}
		r, id := lookFor()
		switch r {
		case 1:
			return record(createapi.Created, id, "found by reference")
		case -2:
			return bail()
		case -1:
			return record(createapi.Unknown, "", "the search never answered")
		}
		doubt = false
	}
	var wait, after time.Duration = 2 * time.Second, 0
	for n := 0; n < 30; n++ {
		if n > 0 {
			if n >= 3 && time.Since(began) > 45*time.Minute {
				break
			}
			d := wait/2 + time.Duration(rand.Int63n(int64(wait)))
			if d < after {
				d = after
			}
			time.Sleep(d)
			if wait < time.Minute {
				wait *= 2
			}
			after = 0
		}
		if doubt && f.IdempotencyKeys && !time.Now().Add(f.LandsWithin).Before(plan.SavedAt.Add(f.KeyLifetime)) {
			return byLook("key past its lifetime")
		}
		if !k.ours() {
			return bail()
		}
		sent := time.Now()
		p, err := vendor.Create(ctx, plan.Request)
		if err == nil {
			return record(createapi.Created, p.ID, "")
		}
		var ce *createapi.ConnectError
		var te *createapi.TimeoutError
		var he *createapi.HTTPError
		switch {
		case errors.As(err, &ce):
			continue
		case errors.As(err, &te):
		case errors.As(err, &he) && (he.Status == 408 || he.Status == 429):
			after = he.RetryAfter
			continue
		case errors.As(err, &he) && (he.Status == 400 || he.Status == 422):
			if doubt {
				return record(createapi.Unknown, "", "refused after doubt")
			}
			return record(createapi.Failed, "", err.Error())
		case errors.As(err, &he) && he.Status >= 500 && he.Replayed:
			return byLook("saved server error replayed")
		case errors.As(err, &he) && (he.Status == 409 || he.Status >= 500):
		default:
			return record(createapi.Unknown, "", err.Error())
		}
		doubt, lastMaybe = true, sent
		if f.IdempotencyKeys {
			continue
		}
		if !f.References {
			return record(createapi.Unknown, "", "answer lost; cannot resend here")
		}
		r, id := lookFor()
		switch r {
		case 1:
			return record(createapi.Created, id, "found by reference")
		case -2:
			return bail()
		case -1:
			return record(createapi.Unknown, "", "the search never answered")
		}
		doubt = false
	}
	if doubt {
		return record(createapi.Unknown, "", "gave up in doubt")
	}
	return record(createapi.Failed, "", "gave up; nothing was carried out")
}
