// Package client is a correct create client, the reference's design written
// with a range over a non-constant integer,
// a form the interpreter could not run before internal/gointerp's
// interp_classes.go.
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

const (
	maxAttempts = 8
	lease       = 10 * time.Minute
)

// CreatePayment settles one operation and returns its status.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	ok, err := store.Claim(ctx, operationID, lease)
	if err != nil {
		return createapi.Pending, err
	}
	if !ok {
		// Another worker owns it; it will record the outcome.
		return createapi.Pending, nil
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	c := &creator{store: store, vendor: vendor, id: operationID, f: vendor.Features()}
	if op.Plan != nil {
		// An earlier process saved this plan and may have sent it: its
		// answer is lost to us, so the first attempt is already in doubt.
		c.plan, c.doubt, c.lastSent = *op.Plan, true, time.Now()
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		key := newKey()
		if c.f.IdempotencyKeys {
			req.IdempotencyKey = key
		}
		if c.f.References {
			req.Reference = key
		}
		if c.plan, err = store.SavePlan(ctx, operationID, req); err != nil {
			return createapi.Pending, err
		}
		if c.plan.Request != req {
			// Someone saved a plan first: treat it as theirs, maybe sent.
			c.doubt, c.lastSent = true, time.Now()
		}
	}
	return c.run(ctx)
}

type creator struct {
	store    createapi.Store
	vendor   createapi.Vendor
	id       string
	f        createapi.Features
	plan     createapi.Plan
	doubt    bool      // an attempt may have landed
	lastSent time.Time // when the last attempt in doubt was sent
}

func (c *creator) run(ctx context.Context) (createapi.Status, error) {
	backoff := time.Second
	n := maxAttempts
	for range n {
		if c.doubt && !c.f.IdempotencyKeys {
			if !c.f.References {
				return c.finish(ctx, createapi.Unknown, "", "sent to a vendor with neither keys nor references and the answer was lost: match by amount, payee and time")
			}
			found, err := c.settledSearch(ctx)
			if err != nil || found != "" {
				return c.found(ctx, found, err)
			}
			c.doubt = false // nothing landed: a resend is a first send
		}
		if c.f.IdempotencyKeys && c.doubt && time.Since(c.plan.SavedAt) >= c.f.KeyLifetime-time.Minute {
			// The vendor has forgotten (or is about to forget) the key:
			// a resend would run as a new payment.
			return c.lookUpOrUnknown(ctx, "the key has expired and an attempt may have landed")
		}
		if c.doubt {
			c.lastSent = time.Now()
		}
		sentAt := time.Now()
		p, err := c.vendor.Create(ctx, c.plan.Request)
		if err == nil {
			return c.finish(ctx, createapi.Created, p.ID, "")
		}
		var connect *createapi.ConnectError
		var timeout *createapi.TimeoutError
		var httpErr *createapi.HTTPError
		switch {
		case errors.As(err, &connect):
			// Never sent: nothing to doubt.
		case errors.As(err, &timeout):
			c.doubt, c.lastSent = true, sentAt
		case errors.As(err, &httpErr):
			switch s := httpErr.Status; {
			case s == 408 || s == 429:
				if httpErr.RetryAfter > backoff {
					backoff = httpErr.RetryAfter
				}
			case s == 409:
				// Our key is still running somewhere: it may yet land.
				c.doubt, c.lastSent = true, sentAt
			case s >= 500:
				c.doubt, c.lastSent = true, sentAt
				if httpErr.Replayed {
					return c.lookUpOrUnknown(ctx, "the vendor replays a saved server error for this key")
				}
			default:
				if c.doubt {
					return c.finish(ctx, createapi.Unknown, "", fmt.Sprintf("refused (%s) after an attempt whose answer was lost", httpErr))
				}
				return c.finish(ctx, createapi.Failed, "", "refused: "+httpErr.Error())
			}
		default:
			// The caller gave up: we cannot tell what happened.
			return c.finish(ctx, createapi.Unknown, "", "stopped waiting: "+err.Error())
		}
		time.Sleep(backoff)
		if backoff < time.Minute {
			backoff *= 2
		}
	}
	if c.doubt {
		return c.lookUpOrUnknown(ctx, "attempts used up after an attempt whose answer was lost")
	}
	return c.finish(ctx, createapi.Failed, "", "attempts used up; none was sent")
}

// settledSearch waits until an attempt in doubt would have landed and
// shown in search, then searches.
func (c *creator) settledSearch(ctx context.Context) (string, error) {
	if wait := time.Until(c.lastSent.Add(c.f.LandsWithin + c.f.SearchLag + time.Second)); wait > 0 {
		time.Sleep(wait)
	}
	found, err := searchAgain(ctx, c.vendor, c.plan.Request.Reference)
	if err != nil {
		return "", err
	}
	if len(found) > 0 {
		return found[0].ID, nil
	}
	return "", nil
}

func (c *creator) found(ctx context.Context, id string, err error) (createapi.Status, error) {
	if err != nil {
		return c.finish(ctx, createapi.Unknown, "", "search failed: "+err.Error())
	}
	return c.finish(ctx, createapi.Created, id, "found by reference")
}

func (c *creator) lookUpOrUnknown(ctx context.Context, why string) (createapi.Status, error) {
	if c.f.References {
		id, err := c.settledSearch(ctx)
		if err == nil && id != "" {
			return c.finish(ctx, createapi.Created, id, "found by reference")
		}
	}
	return c.finish(ctx, createapi.Unknown, "", why)
}

func (c *creator) finish(ctx context.Context, s createapi.Status, paymentID, note string) (createapi.Status, error) {
	if err := c.store.Finish(ctx, c.id, s, paymentID, note); err != nil {
		return createapi.Pending, err
	}
	return s, nil
}

func newKey() string {
	const hex = "0123456789abcdef"
	b := make([]byte, 32)
	for i := range b {
		b[i] = hex[rand.Intn(len(hex))]
	}
	return string(b)
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
