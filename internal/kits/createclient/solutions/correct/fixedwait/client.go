// Package client is a correct create client in this style: one path per kind
// of vendor (keyed, reference-only, neither), each attempt run in its own
// goroutine and awaited with select against the context. Fixed 3s wait
// between tries (or Retry-After if longer); with keys, after a doubtful
// attempt it waits out LandsWithin and then resends. Lease 5m. Keys and
// references are spelled "<id>/<base36 random>".
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
	leaseC     = 5 * time.Minute
	fixedWaitC = 3 * time.Second
	triesC     = 4 // tries whose failure proves nothing was done
)

type outcome struct {
	p   createapi.Payment
	err error
	at  time.Time
}

type run struct {
	ctx      context.Context
	store    createapi.Store
	vendor   createapi.Vendor
	id       string
	f        createapi.Features
	plan     createapi.Plan
	maybe    bool      // some attempt may have landed
	firstAt  time.Time // first doubtful attempt sent
	lastAt   time.Time // latest doubtful attempt sent
	calm     int
	refusal  string
	replayed bool
}

func (r *run) send() (outcome, bool) {
	ch := make(chan outcome, 1)
	req := r.plan.Request
	at := time.Now()
	go func() {
		p, err := r.vendor.Create(r.ctx, req)
		ch <- outcome{p: p, err: err, at: at}
	}()
	select {
	case o := <-ch:
		return o, true
	case <-r.ctx.Done():
		return outcome{at: at}, false
	}
}

func (r *run) done(st createapi.Status, pid, note string) (createapi.Status, error) {
	if err := r.store.Finish(r.ctx, r.id, st, pid, note); err != nil {
		return createapi.Pending, err
	}
	return st, nil
}

func (r *run) markDoubt(at time.Time) {
	if !r.maybe {
		r.firstAt = at
	}
	r.maybe = true
	r.lastAt = at
}

// kinds of answer
const (
	aCreated = iota
	aRetry   // nothing done; wait and retry
	aRefused
	aDoubt
)

func (r *run) judge(o outcome) (int, time.Duration) {
	if o.err == nil {
		return aCreated, 0
	}
	var ce *createapi.ConnectError
	if errors.As(o.err, &ce) {
		return aRetry, 0
	}
	var he *createapi.HTTPError
	if !errors.As(o.err, &he) {
		return aDoubt, 0 // timeout
	}
	if he.Status == 408 || he.Status == 429 {
		return aRetry, he.RetryAfter
	}
	if he.Status == 400 || he.Status == 422 {
		return aRefused, 0
	}
	if he.Replayed {
		r.replayed = true
	}
	return aDoubt, 0
}

func pause(ra time.Duration) {
	w := fixedWaitC
	if ra > w {
		w = ra
	}
	time.Sleep(w)
}

// lookUp searches once the latest doubtful attempt could have landed and shown.
// It returns (paymentID, answered).
func (r *run) lookUp() (string, bool) {
	ready := r.lastAt.Add(r.f.LandsWithin).Add(r.f.SearchLag).Add(time.Second)
	if w := time.Until(ready); w > 0 {
		time.Sleep(w)
	}
	for i := 0; i < 5; i++ {
		found, err := r.vendor.Search(r.ctx, r.plan.Request.Reference)
		if err == nil {
			if len(found) > 0 {
				return found[0].ID, true
			}
			return "", true
		}
		time.Sleep(10 * time.Second)
	}
	return "", false
}

func (r *run) keyUsable() bool {
	return time.Now().Add(time.Minute).Before(r.plan.SavedAt.Add(r.f.KeyLifetime)) && !r.replayed
}

func (r *run) keyed() (createapi.Status, error) {
	for n := 0; n < 25; n++ {
		if r.maybe {
			if !r.keyUsable() {
				return r.fallback("cannot resend under the key")
			}
			// wait out the first doubtful attempt's landing window, then resend
			if w := time.Until(r.firstAt.Add(r.f.LandsWithin).Add(time.Second)); w > 0 {
				time.Sleep(w)
			}
		}
		o, ok := r.send()
		if !ok {
			r.markDoubt(o.at)
			return r.done(createapi.Unknown, "", "context ended with a request out")
		}
		kind, ra := r.judge(o)
		switch kind {
		case aCreated:
			return r.done(createapi.Created, o.p.ID, "")
		case aRetry:
			r.calm++
			if r.calm >= triesC {
				return r.giveUp(o.err.Error())
			}
			pause(ra)
		case aRefused:
			if !r.maybe {
				return r.done(createapi.Failed, "", o.err.Error())
			}
			r.refusal = o.err.Error()
			return r.fallback("refused after a doubtful attempt")
		case aDoubt:
			wasPast := r.maybe && !o.at.Before(r.firstAt.Add(r.f.LandsWithin))
			r.markDoubt(o.at)
			if wasPast {
				return r.fallback("still no answer after the landing window: " + o.err.Error())
			}
			if !r.replayed {
				pause(0)
			}
		}
	}
	return r.giveUp("out of tries")
}

// fallback settles a keyed doubt: by search if the vendor keeps references.
func (r *run) fallback(why string) (createapi.Status, error) {
	if !r.maybe {
		return r.done(createapi.Failed, "", why)
	}
	if !r.f.References {
		return r.done(createapi.Unknown, "", why)
	}
	pid, answered := r.lookUp()
	if pid != "" {
		return r.done(createapi.Created, pid, "found by reference")
	}
	if answered && (r.replayed || r.refusal != "") {
		return r.done(createapi.Failed, "", why+"; no payment carries the reference")
	}
	return r.done(createapi.Unknown, "", why)
}

func (r *run) referenced() (createapi.Status, error) {
	for n := 0; n < 25; n++ {
		if r.maybe {
			pid, answered := r.lookUp()
			if pid != "" {
				return r.done(createapi.Created, pid, "found by reference")
			}
			if !answered {
				return r.done(createapi.Unknown, "", "search never answered")
			}
			r.maybe = false // caught-up empty search: nothing landed
		}
		o, ok := r.send()
		if !ok {
			return r.done(createapi.Unknown, "", "context ended with a request out")
		}
		kind, ra := r.judge(o)
		switch kind {
		case aCreated:
			return r.done(createapi.Created, o.p.ID, "")
		case aRetry:
			r.calm++
			if r.calm >= triesC {
				return r.giveUp(o.err.Error())
			}
			pause(ra)
		case aRefused:
			return r.done(createapi.Failed, "", o.err.Error())
		case aDoubt:
			r.markDoubt(o.at)
		}
	}
	return r.giveUp("out of tries")
}

func (r *run) neither() (createapi.Status, error) {
	if r.maybe {
		return r.done(createapi.Unknown, "", "plan found: it may have been sent")
	}
	for {
		o, ok := r.send()
		if !ok {
			return r.done(createapi.Unknown, "", "context ended with a request out")
		}
		kind, ra := r.judge(o)
		switch kind {
		case aCreated:
			return r.done(createapi.Created, o.p.ID, "")
		case aRefused:
			return r.done(createapi.Failed, "", o.err.Error())
		case aDoubt:
			return r.done(createapi.Unknown, "", o.err.Error()+": may have landed, cannot resend")
		}
		r.calm++
		if r.calm >= triesC {
			return r.giveUp(o.err.Error())
		}
		pause(ra)
	}
}

func (r *run) giveUp(why string) (createapi.Status, error) {
	if r.maybe {
		return r.done(createapi.Unknown, "", why)
	}
	return r.done(createapi.Failed, "", "nothing was done: "+why)
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	mine, err := store.Claim(ctx, operationID, leaseC)
	if err != nil {
		return createapi.Pending, err
	}
	if !mine {
		return createapi.Pending, nil
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	r := &run{ctx: ctx, store: store, vendor: vendor, id: operationID, f: vendor.Features()}
	if op.Plan != nil {
		r.plan = *op.Plan
		r.markDoubt(time.Now())
	} else {
		tag := op.ID + "/" + strconv.FormatUint(uint64(rand.Int63()), 36)
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		if r.f.IdempotencyKeys {
			req.IdempotencyKey = tag
		}
		if r.f.References {
			req.Reference = tag
		}
		saved, err := store.SavePlan(ctx, operationID, req)
		if err != nil {
			return createapi.Pending, err
		}
		r.plan = saved
		if saved.Request != req {
			r.markDoubt(time.Now())
		}
	}
	if r.f.IdempotencyKeys {
		return r.keyed()
	}
	if r.f.References {
		return r.referenced()
	}
	return r.neither()
}
