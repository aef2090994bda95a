// Package client is the dec6-embedded client with one defect: a twenty-minute lease, over the queue's fifteen minutes.
//
// defect: lease-bound
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

type pacer interface {
	Pause(ctx context.Context, d time.Duration)
	Next(attempt int) time.Duration
}

type expPacer struct{ base, cap time.Duration }

func (p expPacer) Pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (p expPacer) Next(attempt int) time.Duration {
	c := p.base
	for i := 1; i < attempt && c < p.cap; i++ {
		c *= 2
	}
	if c > p.cap {
		c = p.cap
	}
	return time.Duration(rand.Int63n(int64(c))) + 5*time.Millisecond
}

type worker struct {
	sync.Mutex
	createapi.Features
	pacer

	ctx    context.Context
	store  createapi.Store
	vendor createapi.Vendor
	opID   string
	req    createapi.Request

	began      time.Time
	keyStart   time.Time
	inDoubt    bool
	doubtStart time.Time
	doubtLast  time.Time
	sends      int
	lost       bool
	storeErr   error
}

type step int

const (
	stepAgain step = iota
	stepDone
)

type end struct {
	status  createapi.Status
	payment string
	why     string
}

const sevenMinutes = 20 * time.Minute

// CreatePayment creates the operation's payment at most once.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, fmt.Errorf("operation %s: %w", operationID, err)
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	got, err := store.Claim(ctx, operationID, sevenMinutes)
	if err != nil {
		return createapi.Pending, fmt.Errorf("operation %s: claim: %w", operationID, err)
	}
	if !got {
		return createapi.Pending, nil
	}
	w := &worker{
		Features: vendor.Features(),
		pacer:    expPacer{base: 1500 * time.Millisecond, cap: 80 * time.Second},
		ctx:      ctx, store: store, vendor: vendor, opID: operationID, began: time.Now(),
	}
	if op.Plan != nil {
		w.req, w.keyStart = op.Plan.Request, op.Plan.SavedAt
		w.doubt(w.began)
	} else {
		key := fmt.Sprintf("%s/%016x", op.ID, rand.Uint64())
		mine := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo, IdempotencyKey: key, Reference: key}
		plan, err := store.SavePlan(ctx, operationID, mine)
		if err != nil {
			return createapi.Pending, fmt.Errorf("operation %s: plan: %w", operationID, err)
		}
		w.req = plan.Request
		if plan.Request != mine {
			w.keyStart = plan.SavedAt
			w.doubt(w.began)
		}
	}
	var e end
	switch {
	case w.IdempotencyKeys:
		e = w.drive(w.keyedStep)
	case w.References:
		e = w.drive(w.refStep)
	default:
		e = w.drive(w.bareStep)
	}
	if w.storeErr != nil {
		return createapi.Pending, fmt.Errorf("operation %s: store: %w", operationID, w.storeErr)
	}
	if w.lost || !w.holds() {
		if w.storeErr != nil {
			return createapi.Pending, fmt.Errorf("operation %s: store: %w", operationID, w.storeErr)
		}
		return createapi.Pending, nil
	}
	if err := store.Finish(ctx, operationID, e.status, e.payment, e.why); err != nil {
		return createapi.Pending, fmt.Errorf("operation %s: finish: %w", operationID, err)
	}
	return e.status, nil
}

// drive calls one until it says done.
func (w *worker) drive(one func(*end) step) end {
	var e end
	for one(&e) == stepAgain {
	}
	return e
}

func (w *worker) doubt(at time.Time) {
	w.Lock()
	defer w.Unlock()
	if !w.inDoubt {
		w.doubtStart = at
	}
	w.inDoubt, w.doubtLast = true, at
}

func (w *worker) clearDoubt() {
	w.Lock()
	w.inDoubt = false
	w.Unlock()
}

func (w *worker) doubtful() bool {
	w.Lock()
	defer w.Unlock()
	return w.inDoubt
}

func (w *worker) holds() bool {
	ok, err := w.store.Claim(w.ctx, w.opID, sevenMinutes)
	if err != nil {
		w.storeErr = err
		return false
	}
	w.lost = !ok
	return ok
}

// what an error reveals
const (
	nothing = "nothing"
	maybe   = "maybe"
	refused = "refused"
	replay  = "replay"
)

func reveal(err error) (string, time.Duration) {
	var ce *createapi.ConnectError
	var he *createapi.HTTPError
	if errors.As(err, &ce) {
		return nothing, 0
	}
	if !errors.As(err, &he) {
		return maybe, 0 // a timeout
	}
	switch {
	case he.Replayed:
		return replay, 0
	case he.Status == 408, he.Status == 429:
		return nothing, he.RetryAfter
	case he.Status == 409, he.Status >= 500:
		return maybe, 0
	}
	return refused, 0
}

// fire sends the plan once; ok false means the claim is gone.
func (w *worker) fire() (p createapi.Payment, err error, ok bool) {
	if !w.holds() {
		return p, nil, false
	}
	at := time.Now()
	if w.keyStart.IsZero() {
		w.keyStart = at
	}
	w.sends++
	p, err = w.vendor.Create(w.ctx, w.req)
	if err != nil {
		if r, _ := reveal(err); r == maybe {
			w.doubt(at)
		}
	}
	return p, err, true
}

func (w *worker) pauseAfter(err error) {
	d := w.Next(w.sends)
	if _, ra := reveal(err); ra > d {
		d = ra + time.Duration(rand.Int63n(int64(time.Second)))
	}
	w.Pause(w.ctx, d)
}

func (w *worker) search() (createapi.Payment, bool, bool) {
	if d := time.Until(w.doubtLast.Add(w.LandsWithin + w.SearchLag + time.Second)); d > 0 {
		w.Pause(w.ctx, d)
	}
	for i := 0; i < 5; i++ {
		if i > 0 {
			w.Pause(w.ctx, time.Duration(i)*6*time.Second)
		}
		ps, err := w.vendor.Search(w.ctx, w.req.Reference)
		if err != nil {
			continue
		}
		for _, p := range ps {
			if p.Reference == w.req.Reference {
				return p, true, true
			}
		}
		return createapi.Payment{}, false, true
	}
	return createapi.Payment{}, false, false
}

func (w *worker) conclude(e *end, why string) step {
	switch {
	case !w.doubtful():
		*e = end{createapi.Failed, "", why}
	case !w.References:
		*e = end{createapi.Unknown, "", why}
	default:
		p, found, ok := w.search()
		switch {
		case !ok:
			*e = end{createapi.Unknown, "", why + "; no search answered"}
		case found:
			*e = end{createapi.Created, p.ID, ""}
		default:
			*e = end{createapi.Failed, "", why + "; absent once it could have shown"}
		}
	}
	return stepDone
}

func (w *worker) keyedStep(e *end) step {
	if !time.Now().Add(w.LandsWithin).Before(w.keyStart.Add(w.KeyLifetime)) && !w.keyStart.IsZero() {
		return w.conclude(e, "key past its lifetime")
	}
	p, err, ok := w.fire()
	if !ok {
		return stepDone
	}
	if err == nil {
		*e = end{createapi.Created, p.ID, ""}
		return stepDone
	}
	r, _ := reveal(err)
	switch {
	case r == replay:
		return w.conclude(e, "replayed saved error")
	case r == refused && w.doubtful():
		return w.conclude(e, "refused after doubt")
	case r == refused:
		*e = end{createapi.Failed, "", err.Error()}
		return stepDone
	}
	if w.sends >= 15 || time.Since(w.began) > 40*time.Minute ||
		(w.sends >= 5 && (!w.doubtful() || time.Now().After(w.doubtStart.Add(w.LandsWithin)))) {
		return w.conclude(e, "no final answer: "+err.Error())
	}
	w.pauseAfter(err)
	return stepAgain
}

func (w *worker) refStep(e *end) step {
	if w.doubtful() {
		p, found, ok := w.search()
		if !ok {
			*e = end{createapi.Unknown, "", "no search answered"}
			return stepDone
		}
		if found {
			*e = end{createapi.Created, p.ID, ""}
			return stepDone
		}
		w.clearDoubt()
	}
	if w.sends >= 5 || time.Since(w.began) > 40*time.Minute {
		*e = end{createapi.Failed, "", "attempts used up; none can have landed"}
		return stepDone
	}
	p, err, ok := w.fire()
	if !ok {
		return stepDone
	}
	if err == nil {
		*e = end{createapi.Created, p.ID, ""}
		return stepDone
	}
	if r, _ := reveal(err); r == refused || r == replay {
		*e = end{createapi.Failed, "", err.Error()}
		return stepDone
	} else if r == nothing {
		w.pauseAfter(err)
	}
	return stepAgain
}

func (w *worker) bareStep(e *end) step {
	if w.doubtful() {
		*e = end{createapi.Unknown, "", "may have been sent; the vendor cannot tell a resend"}
		return stepDone
	}
	if w.sends >= 5 || time.Since(w.began) > 40*time.Minute {
		*e = end{createapi.Failed, "", "nothing was sent"}
		return stepDone
	}
	p, err, ok := w.fire()
	if !ok {
		return stepDone
	}
	if err == nil {
		*e = end{createapi.Created, p.ID, ""}
		return stepDone
	}
	switch r, _ := reveal(err); r {
	case refused, replay:
		*e = end{createapi.Failed, "", err.Error()}
		return stepDone
	case nothing:
		w.pauseAfter(err)
	}
	return stepAgain
}
