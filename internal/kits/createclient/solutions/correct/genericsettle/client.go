// Package client is a correct create client in this style: small generic
// helpers (a first-match over a slice, a bounded retry that returns the
// last value), a classification of each attempt into a fixed set of
// kinds, and a single settle step that looks the payment up when the
// vendor keeps references. The lease is the page's bound, exactly 15
// minutes. After a replayed 5xx it searches once the first ambiguous
// attempt could have landed and shown (the replay ran nothing) and records
// failed on an empty search.
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
	claimFor   = 15 * time.Minute
	maxSends   = 10
	maxLookups = 3
)

// firstWhere returns the first element of xs that ok accepts.
func firstWhere[T any](xs []T, ok func(T) bool) (T, bool) {
	for _, x := range xs {
		if ok(x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}

// tryUpTo calls f up to n times, waiting gap between tries, until it
// returns no error; it returns the last result.
func tryUpTo[T any](n int, gap time.Duration, f func() (T, error)) (T, error) {
	var v T
	var err error
	for i := 0; i < n; i++ {
		if i > 0 {
			time.Sleep(gap)
		}
		if v, err = f(); err == nil {
			return v, nil
		}
	}
	return v, err
}

type kind int

const (
	kCreated   kind = iota
	kNotSent        // connection never made
	kWait           // 408 / 429
	kAmbiguous      // timeout, 409, fresh 5xx
	kReplayed       // a saved 5xx replayed: ran nothing
	kRefused        // 400 / 422
	kStopped        // the caller's context ended
)

func classify(err error) (kind, time.Duration) {
	var ce *createapi.ConnectError
	var te *createapi.TimeoutError
	var he *createapi.HTTPError
	switch {
	case err == nil:
		return kCreated, 0
	case errors.As(err, &ce):
		return kNotSent, 0
	case errors.As(err, &te):
		return kAmbiguous, 0
	case errors.As(err, &he):
		switch {
		case he.Status == 408 || he.Status == 429:
			return kWait, he.RetryAfter
		case he.Status == 400 || he.Status == 422:
			return kRefused, 0
		case he.Status >= 500 && he.Replayed:
			return kReplayed, 0
		}
		return kAmbiguous, 0
	}
	return kStopped, 0
}

type job struct {
	store  createapi.Store
	vendor createapi.Vendor
	id     string
	f      createapi.Features
	req    createapi.Request
	// inDoubt: some attempt may have landed; lastAmbiguous is when the
	// latest such attempt was sent.
	inDoubt       bool
	lastAmbiguous time.Time
}

// CreatePayment creates the operation's payment at most once and records
// where it stands.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	got, err := store.Claim(ctx, operationID, claimFor)
	if err != nil {
		return createapi.Pending, err
	}
	if !got {
		return createapi.Pending, nil
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	j := &job{store: store, vendor: vendor, id: operationID, f: vendor.Features()}
	if op.Plan != nil {
		j.req, j.inDoubt, j.lastAmbiguous = op.Plan.Request, true, time.Now()
		return j.drive(ctx, op.Plan.SavedAt)
	}
	tag := operationID + "-" + strconv.FormatInt(rand.Int63(), 36)
	req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
	if j.f.IdempotencyKeys {
		req.IdempotencyKey = tag
	}
	if j.f.References {
		req.Reference = tag
	}
	plan, err := store.SavePlan(ctx, operationID, req)
	if err != nil {
		return createapi.Pending, err
	}
	j.req = plan.Request
	if plan.Request != req {
		j.inDoubt, j.lastAmbiguous = true, time.Now()
	}
	return j.drive(ctx, plan.SavedAt)
}

func (j *job) record(ctx context.Context, s createapi.Status, paymentID, note string) (createapi.Status, error) {
	if err := j.store.Finish(ctx, j.id, s, paymentID, note); err != nil {
		return createapi.Pending, err
	}
	return s, nil
}

// lookUp searches once every ambiguous attempt could have landed and
// shown; it reports the payment found, or whether the search answered.
func (j *job) lookUp(ctx context.Context) (string, bool) {
	ready := j.lastAmbiguous.Add(j.f.LandsWithin + j.f.SearchLag + time.Second)
	if d := time.Until(ready); d > 0 {
		time.Sleep(d)
	}
	found, err := tryUpTo(maxLookups, 5*time.Second, func() ([]createapi.Payment, error) {
		return j.vendor.Search(ctx, j.req.Reference)
	})
	if err != nil {
		return "", false
	}
	if p, ok := firstWhere(found, func(p createapi.Payment) bool { return p.Reference == j.req.Reference }); ok {
		return p.ID, true
	}
	return "", true
}

// settle ends a call whose attempts cannot tell more: with references a
// search decides; without, unknown.
func (j *job) settle(ctx context.Context, why string) (createapi.Status, error) {
	if !j.f.References {
		return j.record(ctx, createapi.Unknown, "", why)
	}
	id, answered := j.lookUp(ctx)
	switch {
	case id != "":
		return j.record(ctx, createapi.Created, id, "found by reference")
	case answered:
		return j.record(ctx, createapi.Failed, "", "no payment carries our reference: "+why)
	}
	return j.record(ctx, createapi.Unknown, "", "search failed: "+why)
}

func (j *job) drive(ctx context.Context, savedAt time.Time) (createapi.Status, error) {
	wait := time.Second
	for sends := 0; sends < maxSends; sends++ {
		if j.inDoubt && !j.f.IdempotencyKeys {
			if !j.f.References {
				return j.record(ctx, createapi.Unknown, "", "answer lost at a vendor with neither keys nor references")
			}
			id, answered := j.lookUp(ctx)
			if id != "" {
				return j.record(ctx, createapi.Created, id, "found by reference")
			}
			if !answered {
				return j.record(ctx, createapi.Unknown, "", "search failed after an ambiguous attempt")
			}
			j.inDoubt = false
		}
		if j.inDoubt && time.Since(savedAt) >= j.f.KeyLifetime-time.Minute {
			return j.settle(ctx, "the key may have expired")
		}
		sentAt := time.Now()
		p, err := j.vendor.Create(ctx, j.req)
		k, retryAfter := classify(err)
		switch k {
		case kCreated:
			return j.record(ctx, createapi.Created, p.ID, "")
		case kAmbiguous:
			j.inDoubt, j.lastAmbiguous = true, sentAt
		case kReplayed:
			// The replay ran nothing; the doubt is the first attempt's.
			return j.settle(ctx, "the vendor replays a saved server error")
		case kRefused:
			if j.inDoubt {
				return j.record(ctx, createapi.Unknown, "", "refused after an ambiguous attempt: "+err.Error())
			}
			return j.record(ctx, createapi.Failed, "", "refused: "+err.Error())
		case kStopped:
			return j.record(ctx, createapi.Unknown, "", "caller stopped: "+err.Error())
		}
		d := wait
		if retryAfter > d {
			d = retryAfter
		}
		time.Sleep(d)
		if wait < 30*time.Second {
			wait *= 2
		}
	}
	if j.inDoubt {
		if j.f.References {
			return j.settle(ctx, "attempts used up after an ambiguous attempt")
		}
		return j.record(ctx, createapi.Unknown, "", "attempts used up after an ambiguous attempt")
	}
	return j.record(ctx, createapi.Failed, "", "attempts used up; none was sent")
}
