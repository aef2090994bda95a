// Package client is a correct create client in this style: iterators.
// Attempts come from a push iterator (a function that calls yield per
// attempt until yield says stop), waits from a generator closure, and a
// store call that fails is tried once more before the error is returned,
// so a database blip does not cost a redelivery. After a replayed 5xx at
// a vendor with references it searches once the first attempt in doubt
// could show, and records failed if nothing carries the reference. Lease
// 12 minutes.
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

const lease = 12 * time.Minute

// attempts calls yield with 1, 2, ... up to n, until yield returns false.
func attempts(n int) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for i := 1; i <= n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

// waits returns a generator of backoff waits: 1s, 2s, 4s ... capped.
func waits(limit time.Duration) func() time.Duration {
	next := time.Second
	return func() time.Duration {
		d := next
		if next < limit {
			next *= 2
		}
		return d
	}
}

// twice runs f, and once more if it fails.
func twice(f func() error) error {
	if err := f(); err == nil {
		return nil
	}
	time.Sleep(time.Second)
	return f()
}

type state struct {
	ctx      context.Context
	store    createapi.Store
	vendor   createapi.Vendor
	id       string
	feat     createapi.Features
	req      createapi.Request
	savedAt  time.Time
	doubt    bool
	firstAmb time.Time // when the first attempt in doubt was sent
	lastAmb  time.Time // when the latest one was
	status   createapi.Status
	err      error
}

func (s *state) finish(st createapi.Status, pay, note string) {
	s.err = twice(func() error { return s.store.Finish(s.ctx, s.id, st, pay, note) })
	if s.err != nil {
		s.status = createapi.Pending
		return
	}
	s.status = st
}

func (s *state) markDoubt(at time.Time) {
	if !s.doubt {
		s.firstAmb = at
	}
	s.doubt, s.lastAmb = true, at
}

// lookUp searches after every attempt in doubt could show; id "" with ok
// means an empty answer, !ok that no search answered.
func (s *state) lookUp() (id string, ok bool) {
	if d := time.Until(s.lastAmb.Add(s.feat.LandsWithin + s.feat.SearchLag + 500*time.Millisecond)); d > 0 {
		time.Sleep(d)
	}
	next := waits(time.Minute)
	for try := 0; try < 3; try++ {
		if try > 0 {
			time.Sleep(next())
		}
		found, err := s.vendor.Search(s.ctx, s.req.Reference)
		if err != nil {
			continue
		}
		for _, p := range found {
			return p.ID, true
		}
		return "", true
	}
	return "", false
}

// CreatePayment creates the operation's payment at most once and records
// where it stands.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	var ok bool
	if err := twice(func() (err error) { ok, err = store.Claim(ctx, operationID, lease); return }); err != nil {
		return createapi.Pending, err
	}
	if !ok {
		return createapi.Pending, nil
	}
	var op createapi.Operation
	if err := twice(func() (err error) { op, err = store.Get(ctx, operationID); return }); err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	s := &state{ctx: ctx, store: store, vendor: vendor, id: operationID, feat: vendor.Features()}
	if op.Plan != nil {
		s.req, s.savedAt = op.Plan.Request, op.Plan.SavedAt
		s.markDoubt(time.Now())
	} else {
		mark := fmt.Sprintf("op-%s-%08x%08x", operationID, rand.Uint32(), rand.Uint32())
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		if s.feat.IdempotencyKeys {
			req.IdempotencyKey = mark
		}
		if s.feat.References {
			req.Reference = mark
		}
		var plan createapi.Plan
		if err := twice(func() (err error) { plan, err = store.SavePlan(ctx, operationID, req); return }); err != nil {
			return createapi.Pending, err
		}
		s.req, s.savedAt = plan.Request, plan.SavedAt
		if plan.Request != req {
			s.markDoubt(time.Now())
		}
	}
	s.run()
	return s.status, s.err
}

func (s *state) run() {
	next := waits(time.Minute)
	settled := false
	attempts(9)(func(n int) bool {
		if s.doubt && !s.feat.IdempotencyKeys {
			if !s.feat.References {
				s.finish(createapi.Unknown, "", "answer lost; this vendor cannot tell a repeat")
				settled = true
				return false
			}
			id, ok := s.lookUp()
			switch {
			case id != "":
				s.finish(createapi.Created, id, "found by reference")
				settled = true
				return false
			case !ok:
				s.finish(createapi.Unknown, "", "no search answered")
				settled = true
				return false
			}
			s.doubt = false
		}
		if s.doubt && time.Since(s.savedAt) >= s.feat.KeyLifetime-time.Minute {
			s.inDoubtEnd("the key may be forgotten")
			settled = true
			return false
		}
		at := time.Now()
		p, err := s.vendor.Create(s.ctx, s.req)
		var he *createapi.HTTPError
		var ce *createapi.ConnectError
		var te *createapi.TimeoutError
		pause := next()
		switch {
		case err == nil:
			s.finish(createapi.Created, p.ID, "")
			settled = true
			return false
		case errors.As(err, &ce):
		case errors.As(err, &te):
			s.markDoubt(at)
		case errors.As(err, &he) && (he.Status == 408 || he.Status == 429):
			if he.RetryAfter > pause {
				pause = he.RetryAfter
			}
		case errors.As(err, &he) && (he.Status == 400 || he.Status == 422):
			if s.doubt {
				s.finish(createapi.Unknown, "", "refused after doubt: "+err.Error())
			} else {
				s.finish(createapi.Failed, "", "refused: "+err.Error())
			}
			settled = true
			return false
		case errors.As(err, &he) && he.Replayed:
			// Ran nothing: the doubt is that of the attempts before it.
			s.inDoubtEnd("a saved server error is replayed")
			settled = true
			return false
		case errors.As(err, &he):
			s.markDoubt(at)
		default:
			s.finish(createapi.Unknown, "", "stopped: "+err.Error())
			settled = true
			return false
		}
		time.Sleep(pause)
		return true
	})
	if settled {
		return
	}
	if s.doubt {
		s.inDoubtEnd("attempts used up in doubt")
		return
	}
	s.finish(createapi.Failed, "", "attempts used up; none was sent")
}

// inDoubtEnd ends a call in doubt: a search settles it where there are
// references, else unknown.
func (s *state) inDoubtEnd(why string) {
	if s.feat.References {
		id, ok := s.lookUp()
		switch {
		case id != "":
			s.finish(createapi.Created, id, "found by reference")
			return
		case ok:
			s.finish(createapi.Failed, "", "nothing carries the reference: "+why)
			return
		}
	}
	s.finish(createapi.Unknown, "", why)
}
