// Package client is a correct create client that gives every attempt a
// deadline of its own (4 s, shorter than the HTTP client's), keeps its
// state in a struct with small methods, waits a constant 2 s give or take
// half (never less than a Retry-After), keys as "<operation>/<random>",
// and claims for eight minutes.
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type payer struct {
	ctx    context.Context
	store  createapi.Store
	vendor createapi.Vendor
	id     string
	has    createapi.Features
	plan   createapi.Plan

	// unsure is set while something sent may have landed; unsureAt is
	// when the first such attempt went out, lastAt when the latest did.
	unsure           bool
	unsureAt, lastAt time.Time
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	got, err := store.Claim(ctx, operationID, 8*time.Minute)
	switch {
	case err != nil:
		return createapi.Pending, fmt.Errorf("claiming %s: %w", operationID, err)
	case !got:
		return createapi.Pending, nil // someone else is on it
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, fmt.Errorf("reading %s: %w", operationID, err)
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	p := &payer{ctx: ctx, store: store, vendor: vendor, id: operationID, has: vendor.Features()}
	if err := p.loadOrSavePlan(op); err != nil {
		return createapi.Pending, err
	}
	return p.attempts()
}

func (p *payer) loadOrSavePlan(op createapi.Operation) error {
	if op.Plan != nil {
		// Written by a process before us, which may have sent it.
		p.plan = *op.Plan
		p.markUnsure(time.Now())
		return nil
	}
	req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
	name := fmt.Sprintf("%s/%d", p.id, rand.Int63())
	if p.has.IdempotencyKeys {
		req.IdempotencyKey = name
	}
	if p.has.References {
		req.Reference = name
	}
	plan, err := p.store.SavePlan(p.ctx, p.id, req)
	if err != nil {
		return fmt.Errorf("saving the plan of %s: %w", p.id, err)
	}
	p.plan = plan
	if plan.Request != req {
		p.markUnsure(time.Now())
	}
	return nil
}

func (p *payer) markUnsure(at time.Time) {
	if !p.unsure {
		p.unsureAt = at
	}
	p.unsure, p.lastAt = true, at
}

func (p *payer) record(st createapi.Status, paymentID, note string) (createapi.Status, error) {
	if err := p.store.Finish(p.ctx, p.id, st, paymentID, note); err != nil {
		return createapi.Pending, fmt.Errorf("recording %s as %s: %w", p.id, st, err)
	}
	return st, nil
}

// lookUp waits until the latest attempt in doubt would show in search,
// then searches for the plan's reference.
func (p *payer) lookUp() (string, error) {
	time.Sleep(time.Until(p.lastAt.Add(p.has.LandsWithin + p.has.SearchLag + time.Second)))
	found, err := searchAgain(p.ctx, p.vendor, p.plan.Request.Reference)
	if err != nil {
		return "", err
	}
	for _, f := range found {
		return f.ID, nil
	}
	return "", nil
}

func (p *payer) giveUp(why string) (createapi.Status, error) {
	if p.has.References {
		if id, err := p.lookUp(); err == nil && id != "" {
			return p.record(createapi.Created, id, "found by reference")
		}
	}
	return p.record(createapi.Unknown, "", why)
}

// keepGoing says whether attempt n may go out.
func (p *payer) keepGoing(n int) bool {
	if n <= 6 {
		return true
	}
	return p.unsure && p.has.IdempotencyKeys && time.Since(p.unsureAt) < p.has.LandsWithin+2*time.Second
}

func (p *payer) attempts() (createapi.Status, error) {
	for n := 1; ; n++ {
		if p.unsure && !p.has.IdempotencyKeys {
			if !p.has.References {
				return p.record(createapi.Unknown, "", "sent where a repeat cannot be recognised, and no answer came")
			}
			id, err := p.lookUp()
			if err != nil {
				return p.record(createapi.Unknown, "", "could not search for the payment: "+err.Error())
			}
			if id != "" {
				return p.record(createapi.Created, id, "found by reference")
			}
			p.unsure = false
		}
		if p.unsure && time.Since(p.plan.SavedAt) > p.has.KeyLifetime-10*time.Minute {
			return p.giveUp("the key would be forgotten before a resend could use it")
		}
		at := time.Now()
		actx, cancel := context.WithTimeout(p.ctx, 4*time.Second)
		pay, err := p.vendor.Create(actx, p.plan.Request)
		cancel()
		if err == nil {
			return p.record(createapi.Created, pay.ID, "")
		}
		floor, done, st, why := p.judge(err, at)
		if done {
			if st == createapi.Unknown {
				return p.giveUp(why)
			}
			return p.record(st, "", why)
		}
		if !p.keepGoing(n + 1) {
			break
		}
		d := time.Second + time.Duration(rand.Float64()*float64(2*time.Second))
		if d < floor {
			d = floor
		}
		time.Sleep(d)
	}
	if p.unsure {
		return p.giveUp("out of attempts with one in doubt")
	}
	return p.record(createapi.Failed, "", "out of attempts, none of which was sent")
}

// judge reads a failed attempt sent at at: how long to wait at least,
// and, if the run is over, with what status and why.
func (p *payer) judge(err error, at time.Time) (floor time.Duration, done bool, st createapi.Status, why string) {
	var conn *createapi.ConnectError
	var late *createapi.TimeoutError
	var h *createapi.HTTPError
	switch {
	case errors.As(err, &conn):
		return 0, false, "", ""
	case errors.As(err, &late), errors.Is(err, context.DeadlineExceeded) && p.ctx.Err() == nil:
		p.markUnsure(at) // sent, and no answer in time
		return 0, false, "", ""
	case errors.As(err, &h):
		switch {
		case h.Status == 408, h.Status == 429:
			return h.RetryAfter, false, "", ""
		case h.Status == 409:
			p.markUnsure(at)
			return 0, false, "", ""
		case h.Status >= 500:
			p.markUnsure(at)
			if h.Replayed {
				return 0, true, createapi.Unknown, "the vendor keeps replaying a saved " + h.Error()
			}
			return 0, false, "", ""
		case p.unsure:
			return 0, true, createapi.Unknown, "refused after an attempt in doubt: " + h.Error()
		}
		return 0, true, createapi.Failed, "refused: " + h.Error()
	}
	// The caller is gone; an attempt may be on its way.
	p.markUnsure(at)
	return 0, true, createapi.Unknown, "the caller stopped waiting: " + err.Error()
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
