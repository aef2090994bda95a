// Package client is a correct create client in this style: every vendor
// call (create and search) runs in a goroutine of its own and hands its
// result over a buffered channel, and the caller selects on that channel and
// the caller's context; the claim (eight minutes) is renewed before every
// send and the write; equal jitter over a ceiling that doubles to a minute;
// a table of statuses decides what an answer reveals. Written for the
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

type reveal int

const (
	revNothing reveal = iota + 1 // did nothing: try again (after Retry-After)
	revMaybe                     // may have landed
	revRefused                   // read and refused, ran nothing
)

// byStatus is what an HTTP error status reveals (V6, V9, V10, V11).
var byStatus = map[int]reveal{408: revNothing, 429: revNothing, 409: revMaybe, 400: revRefused, 422: revRefused}

const (
	lease       = 8 * time.Minute
	maxSends    = 4
	hardSends   = 14
	budget      = 40 * time.Minute
	searchTries = 6
)

type errLostClaim struct{}

func (*errLostClaim) Error() string { return "another worker holds the operation now" }

type job struct {
	ctx    context.Context
	store  createapi.Store
	vendor createapi.Vendor
	id     string
	f      createapi.Features
	plan   createapi.Plan
	start  time.Time

	doubt      bool
	firstDoubt time.Time // when the first attempt in doubt may have been sent
	lastDoubt  time.Time // when the latest one may have been sent
	keyBorn    time.Time // the earliest the key can have been first used
	sends      int
	storeErr   error // a renewal of the claim that failed
}

// CreatePayment creates the operation's payment at most once and records
// where it stands.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, fmt.Errorf("reading %s: %w", operationID, err)
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	ok, err := store.Claim(ctx, operationID, lease)
	if err != nil {
		return createapi.Pending, fmt.Errorf("claiming %s: %w", operationID, err)
	}
	if !ok {
		return createapi.Pending, nil
	}
	j := &job{ctx: ctx, store: store, vendor: vendor, id: operationID, f: vendor.Features(), start: time.Now()}
	if op.Plan != nil {
		// An earlier process saved it and may have sent it at any time
		// up to now.
		j.plan = *op.Plan
		j.markDoubt(time.Now())
		j.keyBorn = op.Plan.SavedAt
	} else {
		suffix := fmt.Sprintf("%x-%x", rand.Uint32(), rand.Uint32())
		req := createapi.Request{
			Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo,
			IdempotencyKey: "pay/" + op.ID + "/" + suffix, Reference: "pay/" + op.ID + "/" + suffix,
		}
		plan, err := store.SavePlan(ctx, operationID, req)
		if err != nil {
			return createapi.Pending, fmt.Errorf("saving the plan of %s: %w", operationID, err)
		}
		j.plan = plan
		if plan.Request != req {
			j.markDoubt(time.Now())
			j.keyBorn = plan.SavedAt
		}
	}
	status, paymentID, note := j.run()
	if j.storeErr != nil {
		return createapi.Pending, fmt.Errorf("renewing the claim of %s: %w", operationID, j.storeErr)
	}
	if status == createapi.Pending {
		return createapi.Pending, nil // the claim was lost: nothing recorded
	}
	return j.finish(status, paymentID, note)
}

func (j *job) markDoubt(at time.Time) {
	if !j.doubt {
		j.firstDoubt = at
	}
	j.doubt = true
	j.lastDoubt = at
}

// renew takes the claim again before a send or a write; false means another
// worker has it.
func (j *job) renew() (bool, error) {
	return j.store.Claim(j.ctx, j.id, lease)
}

func (j *job) finish(status createapi.Status, paymentID, note string) (createapi.Status, error) {
	ok, err := j.renew()
	if err != nil {
		return createapi.Pending, fmt.Errorf("renewing the claim of %s: %w", j.id, err)
	}
	if !ok {
		return createapi.Pending, nil
	}
	if err := j.store.Finish(j.ctx, j.id, status, paymentID, note); err != nil {
		return createapi.Pending, fmt.Errorf("recording %s for %s: %w", status, j.id, err)
	}
	return status, nil
}

func (j *job) sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-j.ctx.Done():
	case <-t.C:
	}
}

func backoff(n int) time.Duration {
	ceiling := time.Second << n
	if ceiling > time.Minute || ceiling <= 0 {
		ceiling = time.Minute
	}
	return ceiling/2 + time.Duration(rand.Int63n(int64(ceiling/2)))
}

// keyYoung: a request sent now, landing as late as LandsWithin, still runs
// while the vendor remembers the key from its earliest possible first use.
func (j *job) keyYoung() bool {
	if j.keyBorn.IsZero() {
		return true
	}
	return time.Now().Add(j.f.LandsWithin).Before(j.keyBorn.Add(j.f.KeyLifetime))
}

// run returns the status to record (Pending: the claim was lost).
func (j *job) run() (createapi.Status, string, string) {
	switch {
	case j.f.IdempotencyKeys:
		return j.keyed()
	case j.f.References:
		return j.referenced()
	default:
		return j.bare()
	}
}

// send renews the claim and sends the saved plan once.
func (j *job) send() (createapi.Payment, error) {
	ok, err := j.renew()
	if err != nil {
		j.storeErr = err
	}
	if err != nil || !ok {
		return createapi.Payment{}, &errLostClaim{}
	}
	j.sends++
	sentAt := time.Now()
	if j.keyBorn.IsZero() {
		j.keyBorn = sentAt
	}
	p, err := j.createAsync()
	if err != nil && j.reveals(err) == revMaybe {
		j.markDoubt(sentAt)
	}
	return p, err
}

type created struct {
	p   createapi.Payment
	err error
}

type found struct {
	list []createapi.Payment
	err  error
}

// errCallerGone: the caller's context ended before the answer came; the
// request may still land.
var errCallerGone = errors.New("the caller's context ended while waiting for the vendor")

func (j *job) createAsync() (createapi.Payment, error) {
	ch := make(chan created, 1)
	go func() {
		p, err := j.vendor.Create(j.ctx, j.plan.Request)
		ch <- created{p, err}
	}()
	select {
	case r := <-ch:
		return r.p, r.err
	case <-j.ctx.Done():
		return createapi.Payment{}, errCallerGone
	}
}

func (j *job) searchAsync() ([]createapi.Payment, error) {
	ch := make(chan found, 1)
	go func() {
		l, err := j.vendor.Search(j.ctx, j.plan.Request.Reference)
		ch <- found{l, err}
	}()
	select {
	case r := <-ch:
		return r.list, r.err
	case <-j.ctx.Done():
		return nil, j.ctx.Err()
	}
}

func (j *job) reveals(err error) reveal {
	var ce *createapi.ConnectError
	var te *createapi.TimeoutError
	var he *createapi.HTTPError
	switch {
	case errors.As(err, &ce):
		return revNothing
	case errors.As(err, &te):
		return revMaybe
	case errors.As(err, &he):
		if he.Replayed {
			return revRefused // a replay ran nothing; the first answer is what it was
		}
		if r, ok := byStatus[he.Status]; ok {
			return r
		}
		if he.Status >= 500 {
			return revMaybe
		}
		return revRefused
	}
	return revMaybe
}

func (j *job) waitFor(err error, n int) time.Duration {
	d := backoff(n)
	var he *createapi.HTTPError
	if errors.As(err, &he) && he.RetryAfter > d {
		d = he.RetryAfter + time.Duration(rand.Int63n(int64(time.Second)))
	}
	return d
}

// giveUpNow: enough sends, and the doubt (if any) is old enough that a send
// made since has had its chance to say how it ended.
func (j *job) giveUpNow() bool {
	if j.sends >= hardSends || time.Since(j.start) > budget {
		return true
	}
	if j.sends < maxSends {
		return false
	}
	return !j.doubt || time.Now().After(j.firstDoubt.Add(j.f.LandsWithin))
}

func (j *job) keyed() (createapi.Status, string, string) {
	for {
		if !j.keyYoung() {
			return j.afterKey("the key is past its lifetime")
		}
		p, err := j.send()
		if err == nil {
			return createapi.Created, p.ID, ""
		}
		var lost *errLostClaim
		if errors.As(err, &lost) {
			return createapi.Pending, "", ""
		}
		var he *createapi.HTTPError
		if errors.As(err, &he) && he.Replayed {
			return j.afterKey("the vendor replays a saved error")
		}
		if j.reveals(err) == revRefused {
			if j.doubt {
				return j.afterKey("refused after an attempt in doubt: " + err.Error())
			}
			return createapi.Failed, "", "refused: " + err.Error()
		}
		if j.giveUpNow() {
			return j.afterKey("gave up: " + err.Error())
		}
		j.sleep(j.waitFor(err, j.sends))
	}
}

// afterKey settles once nothing more may be sent under the key: a search
// that has caught up where the vendor keeps references, unknown otherwise.
func (j *job) afterKey(why string) (createapi.Status, string, string) {
	if !j.doubt {
		return createapi.Failed, "", why
	}
	if !j.f.References {
		return createapi.Unknown, "", why
	}
	found, ok := j.search()
	if !ok {
		return createapi.Unknown, "", why + "; the search failed"
	}
	if found != nil {
		return createapi.Created, found.ID, ""
	}
	return createapi.Failed, "", why + "; a search that caught up found nothing"
}

// search waits until every send could have landed and shown, then searches,
// trying a failed search again; ok is false when no search answered.
func (j *job) search() (*createapi.Payment, bool) {
	ready := j.lastDoubt.Add(j.f.LandsWithin + j.f.SearchLag + time.Second)
	if d := time.Until(ready); d > 0 {
		j.sleep(d)
	}
	for i := range searchTries {
		if i > 0 {
			j.sleep(5 * time.Second << i)
		}
		list, err := j.searchAsync()
		if err != nil {
			continue
		}
		for _, p := range list {
			if p.Reference == j.plan.Request.Reference {
				return &p, true
			}
		}
		return nil, true
	}
	return nil, false
}

func (j *job) referenced() (createapi.Status, string, string) {
	for {
		if j.doubt {
			found, ok := j.search()
			if !ok {
				return createapi.Unknown, "", "in doubt, and no search answered"
			}
			if found != nil {
				return createapi.Created, found.ID, ""
			}
			j.doubt = false // absent once it could have shown: resending is safe
		}
		if j.sends >= maxSends || time.Since(j.start) > budget {
			return createapi.Failed, "", "gave up; nothing sent can have landed"
		}
		p, err := j.send()
		if err == nil {
			return createapi.Created, p.ID, ""
		}
		var lost *errLostClaim
		if errors.As(err, &lost) {
			return createapi.Pending, "", ""
		}
		switch j.reveals(err) {
		case revRefused:
			if j.doubt {
				return createapi.Unknown, "", "refused after an attempt in doubt"
			}
			return createapi.Failed, "", "refused: " + err.Error()
		case revNothing:
			j.sleep(j.waitFor(err, j.sends))
		}
	}
}

func (j *job) bare() (createapi.Status, string, string) {
	if j.doubt {
		return createapi.Unknown, "", "an earlier process may have sent it, and this vendor cannot tell"
	}
	for {
		if j.sends >= maxSends || time.Since(j.start) > budget {
			return createapi.Failed, "", "gave up; nothing was sent"
		}
		p, err := j.send()
		if err == nil {
			return createapi.Created, p.ID, ""
		}
		var lost *errLostClaim
		if errors.As(err, &lost) {
			return createapi.Pending, "", ""
		}
		switch j.reveals(err) {
		case revMaybe:
			return createapi.Unknown, "", "may have landed: " + err.Error()
		case revRefused:
			return createapi.Failed, "", "refused: " + err.Error()
		}
		j.sleep(j.waitFor(err, j.sends))
	}
}
