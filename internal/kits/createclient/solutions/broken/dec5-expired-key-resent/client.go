// Package client is the dec5-iterators client with one defect: the key's
// lifetime is not checked ("a day is plenty"), so a plan saved 25 hours ago
// is resent under its forgotten key.
//
// It breaks: "No operation is created twice."
//
// defect: no-duplicate
package client

import (
	"context"
	"errors"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

const claimSpan = 5 * time.Minute

type run struct {
	ctx     context.Context
	store   createapi.Store
	vendor  createapi.Vendor
	id      string
	f       createapi.Features
	plan    createapi.Plan
	held    time.Time
	began   time.Time
	floor   time.Duration // the next pause is at least this long
	err     error         // why an iteration stopped early
	doubt   bool
	doubtAt time.Time
}

var errTaken = errors.New("taken over")

func (r *run) renew() bool {
	if time.Since(r.held) < claimSpan/3 {
		return true
	}
	ok, err := r.store.Claim(r.ctx, r.id, claimSpan)
	if err != nil {
		r.err = err
		return false
	}
	if !ok {
		r.err = errTaken
		return false
	}
	r.held = time.Now()
	return true
}

func (r *run) pause(d time.Duration) bool {
	for d > 0 {
		s := d
		if s > claimSpan/4 {
			s = claimSpan / 4
		}
		time.Sleep(s)
		d -= s
		if !r.renew() {
			return false
		}
	}
	return r.renew()
}

// attempts yields attempt numbers; it stops after max, or once at least
// three were made and the budget is spent.
func (r *run) attempts(max int, budget time.Duration) func(func(int) bool) {
	return func(yield func(int) bool) {
		prev := time.Second
		for i := 0; i < max; i++ {
			if i > 0 {
				if i >= 3 && time.Since(r.began) > budget {
					return
				}
				hi := prev * 3
				if hi > 3*time.Minute {
					hi = 3 * time.Minute
				}
				d := time.Second + time.Duration(rand.Int63n(int64(hi-time.Second)))
				prev = d
				if d < r.floor {
					d = r.floor
				}
				r.floor = 0
				if !r.pause(d) {
					return
				}
			} else if !r.renew() {
				return
			}
			if !yield(i) {
				return
			}
		}
	}
}

// searches yields the answers of searches made once everything sent by
// doubtAt could show, until the caller stops or time runs out.
func (r *run) searches() func(func([]createapi.Payment) bool) {
	return func(yield func([]createapi.Payment) bool) {
		if !r.pause(time.Until(r.doubtAt.Add(r.f.LandsWithin + r.f.SearchLag + time.Second))) {
			return
		}
		wait := 15 * time.Second
		for time.Since(r.began) < 170*time.Minute {
			got, err := r.vendor.Search(r.ctx, r.plan.Request.Reference)
			if err == nil {
				yield(got)
				return
			}
			if !r.pause(wait) {
				return
			}
			if wait < 6*time.Minute {
				wait *= 2
			}
		}
	}
}

// look: found payment, proved absent (nil, true), or nothing known (nil, false).
func (r *run) look() (*createapi.Payment, bool) {
	for got := range r.searches() {
		for i := range got {
			if got[i].Reference == r.plan.Request.Reference {
				return &got[i], true
			}
		}
		return nil, true
	}
	return nil, false
}

type result struct {
	st   createapi.Status
	pay  string
	note string
}

func (r *run) settleByLook(why string) result {
	if !r.f.References {
		return result{createapi.Unknown, "", why}
	}
	p, known := r.look()
	if p != nil {
		return result{createapi.Created, p.ID, "found by reference"}
	}
	if !known {
		return result{createapi.Unknown, "", why + "; the search did not answer"}
	}
	return result{createapi.Unknown, "", why}
}

func (r *run) keyTooOld() bool {
	return time.Now().Add(r.f.LandsWithin).After(r.plan.SavedAt.Add(r.f.KeyLifetime))
}

func (r *run) work() result {
	if r.doubt && !r.f.IdempotencyKeys {
		if !r.f.References {
			return result{createapi.Unknown, "", "a plan found at start may have been sent"}
		}
		p, known := r.look()
		if p != nil {
			return result{createapi.Created, p.ID, "found by reference"}
		}
		if !known {
			return result{createapi.Unknown, "", "the search did not answer"}
		}
		r.doubt = false
	}
	for range r.attempts(30, 45*time.Minute) {
		if r.doubt && r.f.IdempotencyKeys && r.keyTooOld() && false {
			return r.settleByLook("the key is too old to resend under")
		}
		at := time.Now()
		p, err := r.vendor.Create(r.ctx, r.plan.Request)
		if err == nil {
			return result{createapi.Created, p.ID, ""}
		}
		var ce *createapi.ConnectError
		var te *createapi.TimeoutError
		var he *createapi.HTTPError
		if errors.As(err, &ce) {
			continue
		}
		if errors.As(err, &he) {
			if he.Status == 408 || he.Status == 429 {
				r.floor = he.RetryAfter
				continue
			}
			if he.Status == 400 || he.Status == 422 {
				if r.doubt {
					return result{createapi.Unknown, "", "refused after doubt: " + err.Error()}
				}
				return result{createapi.Failed, "", err.Error()}
			}
			if he.Status >= 500 && he.Replayed {
				r.doubt = true
				return r.settleByLook("a saved server error is replayed")
			}
			if he.Status != 409 && he.Status < 500 {
				return result{createapi.Unknown, "", err.Error()}
			}
		} else if !errors.As(err, &te) {
			return result{createapi.Unknown, "", err.Error()}
		}
		r.doubt, r.doubtAt = true, at
		if r.f.IdempotencyKeys {
			continue
		}
		if !r.f.References {
			return result{createapi.Unknown, "", "sent; no way to tell whether it landed"}
		}
		p2, known := r.look()
		if p2 != nil {
			return result{createapi.Created, p2.ID, "found by reference"}
		}
		if !known {
			return result{createapi.Unknown, "", "the search did not answer"}
		}
		r.doubt = false
	}
	if r.err != nil {
		return result{}
	}
	if r.doubt {
		return result{createapi.Unknown, "", "gave up in doubt"}
	}
	return result{createapi.Failed, "", "gave up; nothing was carried out"}
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	r := &run{ctx: ctx, store: store, vendor: vendor, id: operationID, began: time.Now()}
	ok, err := store.Claim(ctx, operationID, claimSpan)
	if err != nil || !ok {
		return createapi.Pending, err
	}
	r.held = time.Now()
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	r.f = vendor.Features()
	if op.Plan != nil {
		r.plan = *op.Plan
		r.doubt, r.doubtAt = true, time.Now()
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		if r.f.IdempotencyKeys {
			req.IdempotencyKey = "create/" + op.ID
		}
		if r.f.References {
			req.Reference = "create/" + op.ID
		}
		r.plan, err = store.SavePlan(ctx, operationID, req)
		if err != nil {
			return createapi.Pending, err
		}
		if r.plan.Request != req {
			r.doubt, r.doubtAt = true, time.Now()
		}
	}
	res := r.work()
	if r.err == nil && !r.renew() {
		// fall through to the error handling below
	}
	if errors.Is(r.err, errTaken) {
		return createapi.Pending, nil
	}
	if r.err != nil {
		return createapi.Pending, r.err
	}
	if err := store.Finish(ctx, operationID, res.st, res.pay, res.note); err != nil {
		return createapi.Pending, err
	}
	return res.st, nil
}
