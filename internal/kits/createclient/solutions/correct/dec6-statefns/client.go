// Package client is a correct create client in this style: a state machine
// of state functions (each returns the next, wrapped in a struct as the page
// asks), the call's facts in one struct, the final status written by a
// deferred func on the way out (with a recover that lets nothing escape
// half-recorded), a map of funcs from HTTP status to what it reveals, and a
// ten-minute lease renewed before each send and the write; the waits are
// equal jitter over a ceiling that doubles from 1 s to 64 s. Written for the
// strangers' round of 6 December 2026 from the page, the starter and
// createapi only.
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type machine struct {
	ctx    context.Context
	store  createapi.Store
	vendor createapi.Vendor
	id     string
	feat   createapi.Features
	req    createapi.Request

	t0        time.Time
	keyT      time.Time
	doubt     bool
	doubtT0   time.Time
	doubtT1   time.Time
	sends     int
	lastErr   error
	status    createapi.Status
	paymentID string
	why       string
	abandon   bool  // claim lost: record nothing
	storeErr  error // a store call failed: record nothing, return it
}

type stateFn struct{ f func(*machine) stateFn }

var stop = stateFn{}

const leaseTime = 10 * time.Minute

// reveals maps an HTTP status to what it says about the request (filled in
// init: its funcs lead back to it).
var reveals map[int]func(*machine, time.Time) stateFn

func init() {
	reveals = map[int]func(*machine, time.Time) stateFn{
		408: func(m *machine, _ time.Time) stateFn {
			return stateFn{func(m *machine) stateFn { return m.waitThenSend() }}
		},
		429: func(m *machine, _ time.Time) stateFn {
			return stateFn{func(m *machine) stateFn { return m.waitThenSend() }}
		},
		409: func(m *machine, at time.Time) stateFn {
			m.markDoubt(at)
			return stateFn{func(m *machine) stateFn { return m.afterDoubt() }}
		},
		400: func(m *machine, _ time.Time) stateFn { return stateFn{func(m *machine) stateFn { return m.refused() }} },
		422: func(m *machine, _ time.Time) stateFn { return stateFn{func(m *machine) stateFn { return m.refused() }} },
	}
}

// CreatePayment creates the operation's payment at most once.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (status createapi.Status, err error) {
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, fmt.Errorf("%s: get: %w", operationID, err)
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	ok, err := store.Claim(ctx, operationID, leaseTime)
	if err != nil {
		return createapi.Pending, fmt.Errorf("%s: claim: %w", operationID, err)
	}
	if !ok {
		return createapi.Pending, nil
	}
	m := &machine{ctx: ctx, store: store, vendor: vendor, id: operationID, feat: vendor.Features(), t0: time.Now()}
	if op.Plan != nil {
		m.req, m.keyT = op.Plan.Request, op.Plan.SavedAt
		m.markDoubt(m.t0)
	} else {
		k := fmt.Sprintf("%s#%x", op.ID, rand.Int63())
		want := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo, IdempotencyKey: k, Reference: k}
		plan, err := store.SavePlan(ctx, operationID, want)
		if err != nil {
			return createapi.Pending, fmt.Errorf("%s: save plan: %w", operationID, err)
		}
		m.req = plan.Request
		if plan.Request != want {
			m.keyT = plan.SavedAt
			m.markDoubt(m.t0)
		}
	}

	// The one place that records: on the way out, whatever path ended.
	defer func() {
		if r := recover(); r != nil {
			status, err = createapi.Pending, fmt.Errorf("%s: stopped by a panic, nothing recorded: %v", operationID, r)
			return
		}
		if m.storeErr != nil {
			status, err = createapi.Pending, fmt.Errorf("%s: store: %w", operationID, m.storeErr)
			return
		}
		if m.abandon || !m.renew() {
			status, err = createapi.Pending, nil
			if m.storeErr != nil {
				err = fmt.Errorf("%s: store: %w", operationID, m.storeErr)
			}
			return
		}
		if ferr := store.Finish(ctx, operationID, m.status, m.paymentID, m.why); ferr != nil {
			status, err = createapi.Pending, fmt.Errorf("%s: finish: %w", operationID, ferr)
			return
		}
		status, err = m.status, nil
	}()

	for s := (stateFn{func(m *machine) stateFn { return m.begin() }}); s.f != nil; {
		s = s.f(m)
	}
	return m.status, nil
}

func (m *machine) markDoubt(at time.Time) {
	if !m.doubt {
		m.doubtT0 = at
	}
	m.doubt, m.doubtT1 = true, at
}

func (m *machine) renew() bool {
	ok, err := m.store.Claim(m.ctx, m.id, leaseTime)
	if err != nil {
		m.storeErr = err
		return false
	}
	if !ok {
		m.abandon = true
	}
	return ok
}

func (m *machine) end(s createapi.Status, pid, why string) stateFn {
	m.status, m.paymentID, m.why = s, pid, why
	return stop
}

func (m *machine) sleep(d time.Duration) {
	select {
	case <-m.ctx.Done():
	case <-time.After(d):
	}
}

func (m *machine) begin() stateFn {
	switch {
	case !m.doubt:
		return stateFn{func(m *machine) stateFn { return m.send() }}
	case m.feat.IdempotencyKeys:
		return stateFn{func(m *machine) stateFn { return m.send() }}
	case m.feat.References:
		return stateFn{func(m *machine) stateFn { return m.searchBeforeResend() }}
	}
	return m.end(createapi.Unknown, "", "a plan found at start may have been sent; this vendor cannot tell a resend")
}

func (m *machine) send() stateFn {
	if m.feat.IdempotencyKeys && !m.keyT.IsZero() && !time.Now().Add(m.feat.LandsWithin).Before(m.keyT.Add(m.feat.KeyLifetime)) {
		return m.conclude("the key is past its lifetime")
	}
	if !m.renew() {
		return stop
	}
	at := time.Now()
	if m.keyT.IsZero() {
		m.keyT = at
	}
	m.sends++
	p, err := m.vendor.Create(m.ctx, m.req)
	m.lastErr = err
	if err == nil {
		return m.end(createapi.Created, p.ID, "")
	}
	var ce *createapi.ConnectError
	var he *createapi.HTTPError
	switch {
	case errors.As(err, &ce):
		return stateFn{func(m *machine) stateFn { return m.waitThenSend() }}
	case errors.As(err, &he):
		if he.Replayed {
			return m.conclude("a saved error replayed")
		}
		if next, ok := reveals[he.Status]; ok {
			return next(m, at)
		}
		if he.Status >= 500 {
			m.markDoubt(at)
			return stateFn{func(m *machine) stateFn { return m.afterDoubt() }}
		}
		return stateFn{func(m *machine) stateFn { return m.refused() }}
	}
	m.markDoubt(at) // a timeout
	return stateFn{func(m *machine) stateFn { return m.afterDoubt() }}
}

func (m *machine) outOfTries() bool {
	if m.sends >= 15 || time.Since(m.t0) > 40*time.Minute {
		return true
	}
	if m.sends < 5 {
		return false
	}
	return !m.doubt || (m.feat.IdempotencyKeys && time.Now().After(m.doubtT0.Add(m.feat.LandsWithin)))
}

func (m *machine) waitThenSend() stateFn {
	if m.outOfTries() {
		return m.conclude("no final answer")
	}
	ceiling := time.Second << min(m.sends, 6)
	d := ceiling/2 + time.Duration(rand.Int63n(int64(ceiling/2)))
	var he *createapi.HTTPError
	if errors.As(m.lastErr, &he) && he.RetryAfter > d {
		d = he.RetryAfter + time.Duration(rand.Int63n(int64(time.Second)))
	}
	m.sleep(d)
	if m.doubt && !m.feat.IdempotencyKeys {
		return stateFn{func(m *machine) stateFn { return m.searchBeforeResend() }}
	}
	return stateFn{func(m *machine) stateFn { return m.send() }}
}

func (m *machine) afterDoubt() stateFn {
	switch {
	case m.feat.IdempotencyKeys:
		return stateFn{func(m *machine) stateFn { return m.waitThenSend() }}
	case m.feat.References:
		return stateFn{func(m *machine) stateFn { return m.searchBeforeResend() }}
	}
	return m.end(createapi.Unknown, "", "may have landed, and this vendor cannot tell a resend: "+m.lastErr.Error())
}

func (m *machine) refused() stateFn {
	if m.doubt {
		return m.conclude("refused after an attempt in doubt: " + m.lastErr.Error())
	}
	return m.end(createapi.Failed, "", "refused: "+m.lastErr.Error())
}

// search: found, answered.
func (m *machine) search() (createapi.Payment, bool, bool) {
	if d := time.Until(m.doubtT1.Add(m.feat.LandsWithin + m.feat.SearchLag + time.Second)); d > 0 {
		m.sleep(d)
	}
	for i := 0; i < 5; i++ {
		if i > 0 {
			m.sleep(time.Duration(5*i) * time.Second)
		}
		ps, err := m.vendor.Search(m.ctx, m.req.Reference)
		if err != nil {
			continue
		}
		for _, p := range ps {
			if p.Reference == m.req.Reference {
				return p, true, true
			}
		}
		return createapi.Payment{}, false, true
	}
	return createapi.Payment{}, false, false
}

func (m *machine) searchBeforeResend() stateFn {
	p, found, answered := m.search()
	switch {
	case !answered:
		return m.end(createapi.Unknown, "", "in doubt, and no search answered")
	case found:
		return m.end(createapi.Created, p.ID, "")
	}
	m.doubt = false
	if m.outOfTries() {
		return m.end(createapi.Failed, "", "attempts used up; none landed")
	}
	return stateFn{func(m *machine) stateFn { return m.send() }}
}

// conclude: nothing more goes out.
func (m *machine) conclude(why string) stateFn {
	if !m.doubt {
		return m.end(createapi.Failed, "", why)
	}
	if !m.feat.References {
		return m.end(createapi.Unknown, "", why)
	}
	p, found, answered := m.search()
	switch {
	case !answered:
		return m.end(createapi.Unknown, "", why+"; no search answered")
	case found:
		return m.end(createapi.Created, p.ID, "")
	}
	return m.end(createapi.Failed, "", why+"; absent once it could have shown")
}
