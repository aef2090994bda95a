// Package client is a correct create client in this style: one small
// type per kind of vendor (keyed, reference-only, neither), each
// embedding a shared base that holds the store, the plan and the doubt,
// and renews its 15-minute claim before every send and every write, so
// the lease outlasts each call it covers and never the page's bound. The
// base's methods are promoted; the vendor is a named field.
package client

import (
	"context"
	"errors"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

const (
	leaseLen = 15 * time.Minute
	tries    = 8
)

var errLost = errors.New("claim lost to another worker")

type base struct {
	store    createapi.Store
	vendor   createapi.Vendor
	id       string
	f        createapi.Features
	plan     createapi.Plan
	doubt    bool
	doubtAt  time.Time
	backoff  time.Duration
	attempts int
}

// renew takes the claim again for a full lease before the next step.
func (b *base) renew(ctx context.Context) error {
	ok, err := b.store.Claim(ctx, b.id, leaseLen)
	if err != nil {
		return err
	}
	if !ok {
		return errLost
	}
	return nil
}

func (b *base) done(ctx context.Context, s createapi.Status, pay, note string) (createapi.Status, error) {
	if err := b.renew(ctx); err != nil {
		return b.stop(err)
	}
	if err := b.store.Finish(ctx, b.id, s, pay, note); err != nil {
		return createapi.Pending, err
	}
	return s, nil
}

func (b *base) stop(err error) (createapi.Status, error) {
	if errors.Is(err, errLost) {
		return createapi.Pending, nil
	}
	return createapi.Pending, err
}

// send makes one attempt and sorts its answer; final is set when the
// answer ends the call.
type result struct {
	pay     createapi.Payment
	final   bool
	refused error
	replay  bool
	stopped error
}

func (b *base) send(ctx context.Context) (result, error) {
	if err := b.renew(ctx); err != nil {
		return result{}, err
	}
	b.attempts++
	at := time.Now()
	p, err := b.vendor.Create(ctx, b.plan.Request)
	if err == nil {
		return result{pay: p, final: true}, nil
	}
	var ce *createapi.ConnectError
	var te *createapi.TimeoutError
	var he *createapi.HTTPError
	wait := b.backoff
	switch {
	case errors.As(err, &ce):
	case errors.As(err, &te):
		b.doubt, b.doubtAt = true, at
	case errors.As(err, &he):
		switch {
		case he.Status == 408 || he.Status == 429:
			if he.RetryAfter > wait {
				wait = he.RetryAfter
			}
		case he.Status == 400 || he.Status == 422:
			return result{final: true, refused: err}, nil
		case he.Status >= 500 && he.Replayed:
			return result{final: true, replay: true}, nil
		default:
			b.doubt, b.doubtAt = true, at
		}
	default:
		return result{final: true, stopped: err}, nil
	}
	time.Sleep(wait)
	if b.backoff < 40*time.Second {
		b.backoff *= 2
	}
	return result{}, nil
}

// ended turns a final result into the recorded status.
func (b *base) ended(ctx context.Context, r result) (createapi.Status, error) {
	switch {
	case r.refused != nil && b.doubt:
		return b.done(ctx, createapi.Unknown, "", "refused after an attempt in doubt: "+r.refused.Error())
	case r.refused != nil:
		return b.done(ctx, createapi.Failed, "", "refused: "+r.refused.Error())
	case r.stopped != nil:
		return b.done(ctx, createapi.Unknown, "", "stopped: "+r.stopped.Error())
	}
	return b.done(ctx, createapi.Created, r.pay.ID, "")
}

// search looks the reference up once an attempt in doubt would show,
// trying a failed search again.
func (b *base) search(ctx context.Context) (id string, answered bool) {
	if d := time.Until(b.doubtAt.Add(b.f.LandsWithin + b.f.SearchLag + time.Second)); d > 0 {
		time.Sleep(d)
	}
	for i := 0; i < 3; i++ {
		if i > 0 {
			time.Sleep(10 * time.Second)
		}
		found, err := b.vendor.Search(ctx, b.plan.Request.Reference)
		if err != nil {
			continue
		}
		if len(found) > 0 {
			return found[0].ID, true
		}
		return "", true
	}
	return "", false
}

type keyed struct{ *base }

func (k keyed) run(ctx context.Context) (createapi.Status, error) {
	for k.attempts < tries {
		if k.doubt && time.Since(k.plan.SavedAt) > k.f.KeyLifetime-2*time.Minute {
			return k.unsure(ctx, "the key may have been forgotten")
		}
		r, err := k.send(ctx)
		if err != nil {
			return k.stop(err)
		}
		if r.replay {
			return k.unsure(ctx, "a saved server error is replayed")
		}
		if r.final {
			return k.ended(ctx, r)
		}
	}
	if k.doubt {
		return k.unsure(ctx, "attempts used up in doubt")
	}
	return k.done(ctx, createapi.Failed, "", "attempts used up; none was sent")
}

// unsure settles a doubt the key cannot: by reference where the vendor
// keeps one, else unknown.
func (k keyed) unsure(ctx context.Context, why string) (createapi.Status, error) {
	if k.f.References {
		if id, _ := k.search(ctx); id != "" {
			return k.done(ctx, createapi.Created, id, "found by reference")
		}
	}
	return k.done(ctx, createapi.Unknown, "", why)
}

type referenced struct{ *base }

func (r referenced) run(ctx context.Context) (createapi.Status, error) {
	for r.attempts < tries {
		if r.doubt {
			id, answered := r.search(ctx)
			if id != "" {
				return r.done(ctx, createapi.Created, id, "found by reference")
			}
			if !answered {
				return r.done(ctx, createapi.Unknown, "", "search kept failing")
			}
			r.doubt = false
		}
		res, err := r.send(ctx)
		if err != nil {
			return r.stop(err)
		}
		if res.final && !res.replay {
			return r.ended(ctx, res)
		}
	}
	if r.doubt {
		if id, _ := r.search(ctx); id != "" {
			return r.done(ctx, createapi.Created, id, "found by reference")
		}
		return r.done(ctx, createapi.Unknown, "", "attempts used up in doubt")
	}
	return r.done(ctx, createapi.Failed, "", "attempts used up; none was sent")
}

type plain struct{ *base }

func (p plain) run(ctx context.Context) (createapi.Status, error) {
	for p.attempts < tries {
		if p.doubt {
			return p.done(ctx, createapi.Unknown, "", "sent to a vendor that cannot recognise a repeat; the answer was lost")
		}
		res, err := p.send(ctx)
		if err != nil {
			return p.stop(err)
		}
		if res.final && !res.replay {
			return p.ended(ctx, res)
		}
	}
	if p.doubt {
		return p.done(ctx, createapi.Unknown, "", "attempts used up in doubt")
	}
	return p.done(ctx, createapi.Failed, "", "attempts used up; none was sent")
}

type runner interface {
	run(ctx context.Context) (createapi.Status, error)
}

// CreatePayment creates the operation's payment at most once and records
// where it stands.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	b := &base{store: store, vendor: vendor, id: operationID, f: vendor.Features(), backoff: time.Second}
	if err := b.renew(ctx); err != nil {
		return b.stop(err)
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	if op.Plan != nil {
		b.plan, b.doubt, b.doubtAt = *op.Plan, true, time.Now()
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		token := make([]byte, 20)
		for i := range token {
			token[i] = "abcdefghijklmnopqrstuvwxyz234567"[rand.Intn(32)]
		}
		if b.f.IdempotencyKeys {
			req.IdempotencyKey = string(token)
		}
		if b.f.References {
			req.Reference = string(token)
		}
		if b.plan, err = store.SavePlan(ctx, operationID, req); err != nil {
			return createapi.Pending, err
		}
		if b.plan.Request != req {
			b.doubt, b.doubtAt = true, time.Now()
		}
	}
	var r runner
	switch {
	case b.f.IdempotencyKeys:
		r = keyed{b}
	case b.f.References:
		r = referenced{b}
	default:
		r = plain{b}
	}
	return r.run(ctx)
}
