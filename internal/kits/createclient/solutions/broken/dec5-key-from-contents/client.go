// Package client is the dec5-statemachine client with one defect: the key and
// reference are derived from the payment's contents ("same payment, same
// key"), so two honest operations with the same amount, payee and memo share
// one.
//
// It breaks: "Every request for an operation carries the same key (or
// reference ...), and no two operations share one."
//
// defect: one-key
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type state string

const (
	sClaim   state = "claim"
	sLoad    state = "load"
	sPlan    state = "plan"
	sSend    state = "send"
	sPause   state = "pause"
	sLook    state = "look"
	sRecord  state = "record"
	sStopped state = "stopped"
)

type machine struct {
	ctx    context.Context
	store  createapi.Store
	vendor createapi.Vendor
	id     string

	op       createapi.Operation
	f        createapi.Features
	plan     createapi.Plan
	t0       time.Time
	claimed  time.Time
	sends    int
	floor    time.Duration
	doubt    bool
	doubtAt  time.Time
	lookWhy  string // why we look: "" means a proof of absence allows a resend
	searches int

	final  createapi.Status
	payID  string
	note   string
	result createapi.Status
	err    error
}

const span = 8 * time.Minute

func (m *machine) renew() bool {
	if time.Since(m.claimed) < 2*time.Minute {
		return true
	}
	ok, err := m.store.Claim(m.ctx, m.id, span)
	if err != nil {
		m.result, m.err = createapi.Pending, err
		return false
	}
	if !ok {
		m.result, m.err = createapi.Pending, nil
		return false
	}
	m.claimed = time.Now()
	return true
}

func (m *machine) sleep(d time.Duration) bool {
	for d > 0 {
		s := d
		if s > time.Minute {
			s = time.Minute
		}
		time.Sleep(s)
		d -= s
		if !m.renew() {
			return false
		}
	}
	return m.renew()
}

func (m *machine) settle(st createapi.Status, pay, note string) state {
	m.final, m.payID, m.note = st, pay, note
	return sRecord
}

func (m *machine) step(s state) state {
	switch s {
	case sClaim:
		ok, err := m.store.Claim(m.ctx, m.id, span)
		if err != nil || !ok {
			m.result, m.err = createapi.Pending, err
			return sStopped
		}
		m.claimed = time.Now()
		return sLoad
	case sLoad:
		op, err := m.store.Get(m.ctx, m.id)
		if err != nil {
			m.result, m.err = createapi.Pending, err
			return sStopped
		}
		if op.Status != createapi.Pending {
			m.result = op.Status
			return sStopped
		}
		m.op, m.f = op, m.vendor.Features()
		return sPlan
	case sPlan:
		if m.op.Plan != nil {
			m.plan = *m.op.Plan
			m.doubt, m.doubtAt = true, time.Now()
		} else {
			req := createapi.Request{Amount: m.op.Amount, Currency: m.op.Currency, Payee: m.op.Payee, Memo: m.op.Memo}
			name := fmt.Sprintf("%d:%s:%s:%s", m.op.Amount, m.op.Currency, m.op.Payee, m.op.Memo)
			if m.f.IdempotencyKeys {
				req.IdempotencyKey = name
			}
			if m.f.References {
				req.Reference = name
			}
			p, err := m.store.SavePlan(m.ctx, m.id, req)
			if err != nil {
				m.result, m.err = createapi.Pending, err
				return sStopped
			}
			m.plan = p
			if p.Request != req {
				m.doubt, m.doubtAt = true, time.Now()
			}
		}
		if m.doubt && !m.f.IdempotencyKeys {
			if !m.f.References {
				return m.settle(createapi.Unknown, "", "planned earlier: may have been sent")
			}
			m.lookWhy = ""
			return sLook
		}
		return sSend
	case sSend:
		if m.doubt && m.f.IdempotencyKeys && !time.Now().Add(m.f.LandsWithin).Before(m.plan.SavedAt.Add(m.f.KeyLifetime)) {
			if m.f.References {
				m.lookWhy = "the key may have been forgotten"
				return sLook
			}
			return m.settle(createapi.Unknown, "", "the key may have been forgotten")
		}
		if !m.renew() {
			return sStopped
		}
		m.sends++
		at := time.Now()
		p, err := m.vendor.Create(m.ctx, m.plan.Request)
		if err == nil {
			return m.settle(createapi.Created, p.ID, "")
		}
		var ce *createapi.ConnectError
		var te *createapi.TimeoutError
		var he *createapi.HTTPError
		switch {
		case errors.As(err, &ce):
			return sPause
		case errors.As(err, &te):
		case !errors.As(err, &he):
			return m.settle(createapi.Unknown, "", err.Error())
		case he.Status == 408 || he.Status == 429:
			m.floor = he.RetryAfter
			return sPause
		case he.Status == 400 || he.Status == 422:
			if m.doubt {
				return m.settle(createapi.Unknown, "", "refused after doubt")
			}
			return m.settle(createapi.Failed, "", err.Error())
		case he.Status >= 500 && he.Replayed:
			m.doubt = true
			if m.f.References {
				m.lookWhy = "saved server error replayed"
				return sLook
			}
			return m.settle(createapi.Unknown, "", "saved server error replayed")
		case he.Status == 409 || he.Status >= 500:
		default:
			return m.settle(createapi.Unknown, "", err.Error())
		}
		m.doubt, m.doubtAt = true, at
		if m.f.IdempotencyKeys {
			return sPause
		}
		if !m.f.References {
			return m.settle(createapi.Unknown, "", "may have landed; this vendor cannot tell")
		}
		m.lookWhy = ""
		return sLook
	case sPause:
		if m.sends >= 30 || (m.sends >= 3 && time.Since(m.t0) > 45*time.Minute) {
			if m.doubt {
				return m.settle(createapi.Unknown, "", "gave up in doubt")
			}
			return m.settle(createapi.Failed, "", "gave up; nothing was carried out")
		}
		c := time.Second << uint(m.sends)
		if c > 3*time.Minute || c <= 0 {
			c = 3 * time.Minute
		}
		d := time.Duration(rand.Int63n(int64(c))) + time.Millisecond
		if d < m.floor {
			d = m.floor
		}
		m.floor = 0
		if !m.sleep(d) {
			return sStopped
		}
		return sSend
	case sLook:
		if m.searches == 0 {
			if !m.sleep(time.Until(m.doubtAt.Add(m.f.LandsWithin + m.f.SearchLag + time.Second))) {
				return sStopped
			}
		}
		m.searches++
		found, err := m.vendor.Search(m.ctx, m.plan.Request.Reference)
		if err != nil {
			if time.Since(m.t0) > 170*time.Minute {
				return m.settle(createapi.Unknown, "", "the search never answered")
			}
			w := time.Duration(m.searches) * 40 * time.Second
			if w > 6*time.Minute {
				w = 6 * time.Minute
			}
			if !m.sleep(w) {
				return sStopped
			}
			return sLook
		}
		m.searches = 0
		for _, p := range found {
			if p.Reference == m.plan.Request.Reference {
				return m.settle(createapi.Created, p.ID, "found by reference")
			}
		}
		if m.lookWhy != "" {
			return m.settle(createapi.Unknown, "", m.lookWhy)
		}
		m.doubt = false
		if m.sends == 0 {
			return sSend
		}
		return sPause
	case sRecord:
		if !m.renew() {
			return sStopped
		}
		if err := m.store.Finish(m.ctx, m.id, m.final, m.payID, m.note); err != nil {
			m.result, m.err = createapi.Pending, err
			return sStopped
		}
		m.result = m.final
		return sStopped
	}
	panic("no such state: " + string(s))
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	m := &machine{ctx: ctx, store: store, vendor: vendor, id: operationID, t0: time.Now()}
	for s := sClaim; s != sStopped; {
		s = m.step(s)
	}
	return m.result, m.err
}
