// Package client is the dec5-embedding client with one defect: a failing
// Finish is ignored and the status is returned as if recorded.
//
// It breaks: "A call that returns no error returns the status the store
// holds" and "A call whose store call failed ... returns an error".
//
// defect: store-errors-returned
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type ledger struct {
	sync.Mutex
	inDoubt  bool
	doubtAt  time.Time
	attempts int
	notes    []string
}

func (l *ledger) mark(at time.Time) {
	l.Lock()
	l.inDoubt, l.doubtAt = true, at
	l.Unlock()
}

func (l *ledger) doubtful() bool {
	l.Lock()
	defer l.Unlock()
	return l.inDoubt
}

func (l *ledger) clearDoubt() {
	l.Lock()
	l.inDoubt = false
	l.Unlock()
}

func (l *ledger) note(s string) {
	l.Lock()
	l.notes = append(l.notes, s)
	l.Unlock()
}

type claim struct {
	store createapi.Store
	ctx   context.Context
	id    string
	span  time.Duration
	since time.Time
	gone  bool
}

var errOusted = errors.New("ousted")

func (c *claim) take() (bool, error) {
	ok, err := c.store.Claim(c.ctx, c.id, c.span)
	if err == nil && ok {
		c.since = time.Now()
	}
	return ok, err
}

func (c *claim) refresh() error {
	if c.gone {
		return errOusted
	}
	if time.Since(c.since) < c.span/3 {
		return nil
	}
	ok, err := c.take()
	if err != nil {
		return err
	}
	if !ok {
		c.gone = true
		return errOusted
	}
	return nil
}

func (c *claim) wait(d time.Duration) error {
	for d > 0 {
		s := d
		if s > c.span/4 {
			s = c.span / 4
		}
		time.Sleep(s)
		d -= s
		if err := c.refresh(); err != nil {
			return err
		}
	}
	return c.refresh()
}

type attempt struct {
	*ledger
	claim
	vendor createapi.Vendor
	feat   createapi.Features
	plan   createapi.Plan
	start  time.Time
}

func (a *attempt) search() (id string, proved bool, err error) {
	if err := a.wait(time.Until(a.doubtAt.Add(a.feat.LandsWithin + a.feat.SearchLag + time.Second))); err != nil {
		return "", false, err
	}
	pause := 30 * time.Second
	for time.Since(a.start) < 170*time.Minute {
		found, serr := a.vendor.Search(a.ctx, a.plan.Request.Reference)
		if serr == nil {
			for _, p := range found {
				if p.Reference == a.plan.Request.Reference {
					return p.ID, true, nil
				}
			}
			return "", true, nil
		}
		a.note("search failed: " + serr.Error())
		if err := a.wait(pause); err != nil {
			return "", false, err
		}
		if pause < 4*time.Minute {
			pause *= 2
		}
	}
	return "", false, nil
}

type end struct {
	st      createapi.Status
	payment string
	why     string
}

func (a *attempt) viaSearch(why string) (end, error) {
	if !a.feat.References {
		return end{createapi.Unknown, "", why}, nil
	}
	id, _, err := a.search()
	if err != nil {
		return end{}, err
	}
	if id != "" {
		return end{createapi.Created, id, "found by reference"}, nil
	}
	return end{createapi.Unknown, "", why}, nil
}

// resolve clears doubt at a vendor without keys; ok=false means it may resend.
func (a *attempt) resolve() (end, bool, error) {
	if !a.feat.References {
		return end{createapi.Unknown, "", "may have landed; this vendor cannot tell"}, true, nil
	}
	id, proved, err := a.search()
	if err != nil {
		return end{}, true, err
	}
	if id != "" {
		return end{createapi.Created, id, "found by reference"}, true, nil
	}
	if !proved {
		return end{createapi.Unknown, "", "the search never answered"}, true, nil
	}
	a.clearDoubt()
	return end{}, false, nil
}

func (a *attempt) go_() (end, error) {
	if a.doubtful() && !a.feat.IdempotencyKeys {
		if e, done, err := a.resolve(); done {
			return e, err
		}
	}
	var floor time.Duration
	step := 1500 * time.Millisecond
	for a.attempts = 0; a.attempts < 25; a.attempts++ {
		if a.attempts > 0 {
			if a.attempts >= 3 && time.Since(a.start) > 40*time.Minute {
				break
			}
			d := step/2 + time.Duration(rand.Int63n(int64(step/2)))
			if d < floor {
				d = floor
			}
			floor = 0
			if err := a.wait(d); err != nil {
				return end{}, err
			}
			if step < 100*time.Second {
				step *= 2
			}
		}
		if a.doubtful() && a.feat.IdempotencyKeys && time.Now().Add(a.feat.LandsWithin).After(a.plan.SavedAt.Add(a.feat.KeyLifetime)) {
			return a.viaSearch("key too old to resend")
		}
		if err := a.refresh(); err != nil {
			return end{}, err
		}
		sent := time.Now()
		p, err := a.vendor.Create(a.ctx, a.plan.Request)
		if err == nil {
			return end{createapi.Created, p.ID, ""}, nil
		}
		a.note(err.Error())
		var ce *createapi.ConnectError
		var te *createapi.TimeoutError
		var he *createapi.HTTPError
		switch {
		case errors.As(err, &ce):
			continue
		case errors.As(err, &he) && (he.Status == 429 || he.Status == 408):
			floor = he.RetryAfter
			continue
		case errors.As(err, &he) && (he.Status == 400 || he.Status == 422):
			if a.doubtful() {
				return end{createapi.Unknown, "", "refused after doubt"}, nil
			}
			return end{createapi.Failed, "", err.Error()}, nil
		case errors.As(err, &he) && he.Status >= 500 && he.Replayed:
			a.mark(a.doubtAt)
			return a.viaSearch("saved server error replayed")
		case errors.As(err, &te), errors.As(err, &he) && (he.Status == 409 || he.Status >= 500):
			a.mark(sent)
		default:
			return end{createapi.Unknown, "", err.Error()}, nil
		}
		if a.feat.IdempotencyKeys {
			continue
		}
		if e, done, err := a.resolve(); done {
			return e, err
		}
	}
	if a.doubtful() {
		return end{createapi.Unknown, "", "gave up in doubt"}, nil
	}
	return end{createapi.Failed, "", "gave up; nothing was carried out"}, nil
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	a := &attempt{ledger: &ledger{}, claim: claim{store: store, ctx: ctx, id: operationID, span: 9 * time.Minute}, vendor: vendor, start: time.Now()}
	ok, err := a.take()
	if err != nil || !ok {
		return createapi.Pending, err
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	a.feat = vendor.Features()
	if op.Plan != nil {
		a.plan = *op.Plan
		a.mark(time.Now())
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		tok := fmt.Sprintf("%s/%x", op.ID, rand.Uint64())
		if a.feat.IdempotencyKeys {
			req.IdempotencyKey = tok
		}
		if a.feat.References {
			req.Reference = tok
		}
		if a.plan, err = store.SavePlan(ctx, operationID, req); err != nil {
			return createapi.Pending, err
		}
		if a.plan.Request != req {
			a.mark(time.Now())
		}
	}
	e, err := a.go_()
	if err == nil {
		err = a.refresh()
	}
	if errors.Is(err, errOusted) {
		return createapi.Pending, nil
	}
	if err != nil {
		return createapi.Pending, err
	}
	_ = store.Finish(ctx, operationID, e.st, e.payment, e.why)
	return e.st, nil
}
