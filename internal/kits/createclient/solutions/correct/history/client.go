// Package client is a correct create client in this style: recursive retry
// over an attempt history. Every attempt (and every settling search) is
// appended to a slice; a pure decision function reads the whole history and
// says what to do next, and step() recurses until it says stop. Lease
// exactly 15m, full-jitter backoff, keys spelled "k.<rand>.<id>".
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
	kindOK      = "ok"
	kindNoSend  = "nosend"  // connect error
	kindWait    = "wait"    // 408 / 429
	kindRefuse  = "refuse"  // 400 / 422
	kindDoubt   = "doubt"   // timeout / 409 / 5xx
	kindReplay  = "replay"  // replayed 5xx
	kindInherit = "inherit" // a plan someone else may have sent, at time of finding
	kindClear   = "clear"   // an empty search made once every doubt could have shown
	kindFound   = "found"   // a search that found the payment
	kindBlind   = "blind"   // searches that never answered
)

type entry struct {
	kind string
	at   time.Time
	ra   time.Duration
	pid  string
	msg  string
}

type caller struct {
	ctx    context.Context
	store  createapi.Store
	vendor createapi.Vendor
	id     string
	f      createapi.Features
	plan   createapi.Plan
	start  time.Time
}

func fullJitter(n int) time.Duration {
	ceil := 500 * time.Millisecond
	for i := 0; i < n && ceil < 16*time.Second; i++ {
		ceil *= 2
	}
	return time.Duration(rand.Int63n(int64(ceil))) + 100*time.Millisecond
}

func toEntry(at time.Time, p createapi.Payment, err error) entry {
	if err == nil {
		return entry{kind: kindOK, at: at, pid: p.ID}
	}
	e := entry{kind: kindDoubt, at: at, msg: err.Error()}
	var ce *createapi.ConnectError
	var he *createapi.HTTPError
	if errors.As(err, &ce) {
		e.kind = kindNoSend
	} else if errors.As(err, &he) {
		if he.Status == 408 || he.Status == 429 {
			e.kind, e.ra = kindWait, he.RetryAfter
		} else if he.Status == 400 || he.Status == 422 {
			e.kind = kindRefuse
		} else if he.Status >= 500 && he.Replayed {
			e.kind = kindReplay
		}
	}
	return e
}

// Derived facts about a history.
func openDoubts(h []entry) (n int, first, last time.Time) {
	for _, e := range h {
		switch e.kind {
		case kindClear:
			n = 0
		case kindDoubt, kindReplay, kindInherit:
			if n == 0 {
				first = e.at
			}
			n++
			last = e.at
		}
	}
	return
}

func count(h []entry, kinds ...string) int {
	c := 0
	for _, e := range h {
		for _, k := range kinds {
			if e.kind == k {
				c++
			}
		}
	}
	return c
}

func sends(h []entry) int {
	return count(h, kindOK, kindNoSend, kindWait, kindRefuse, kindDoubt, kindReplay)
}

func (c *caller) keyYoung() bool {
	return time.Now().Add(time.Minute).Before(c.plan.SavedAt.Add(c.f.KeyLifetime))
}

// next is the decision: "send", "search", or a final status with a note.
func (c *caller) next(h []entry) (string, createapi.Status, string, string) {
	last := h[len(h)-1]
	n, first, lastDoubt := openDoubts(h)
	switch last.kind {
	case kindOK, kindFound:
		return "", createapi.Created, last.pid, ""
	case kindBlind:
		return "", createapi.Unknown, "", "search never answered"
	case kindRefuse:
		if n == 0 {
			return "", createapi.Failed, "", last.msg
		}
		if c.f.References {
			return "search", "", "", ""
		}
		return "", createapi.Unknown, "", last.msg + " after a doubtful attempt"
	}
	if time.Since(c.start) > 9*time.Minute || sends(h) >= 30 {
		if n > 0 {
			return "", createapi.Unknown, "", "out of time"
		}
		return "", createapi.Failed, "", "never sent"
	}
	if count(h, kindNoSend, kindWait) >= 5 && (last.kind == kindNoSend || last.kind == kindWait) {
		if n > 0 {
			return "", createapi.Unknown, "", "gave up: " + last.msg
		}
		return "", createapi.Failed, "", "gave up before anything was sent: " + last.msg
	}
	if c.f.IdempotencyKeys && last.kind == kindClear && count(h, kindReplay) > 0 {
		// the key holds a saved server error: a resend only replays it
		return "", createapi.Failed, "", "saved server error, and no payment carries the reference"
	}
	if n == 0 {
		return "send", "", "", ""
	}
	// Something may have landed.
	if c.f.IdempotencyKeys {
		replayed := count(h, kindReplay) > 0
		// the latest send was a doubt made after the first doubt had surely landed or died
		settledWindow := last.kind == kindDoubt && !last.at.Before(first.Add(c.f.LandsWithin))
		if c.keyYoung() && !replayed && !settledWindow {
			return "send", "", "", ""
		}
		if !c.f.References {
			return "", createapi.Unknown, "", "may have landed: " + last.msg
		}
		if last.kind == kindClear {
			if replayed {
				return "", createapi.Failed, "", "saved server error, and no payment carries the reference"
			}
			return "", createapi.Unknown, "", "key past its lifetime"
		}
		return "search", "", "", ""
	}
	if c.f.References {
		_ = lastDoubt
		return "search", "", "", ""
	}
	return "", createapi.Unknown, "", "may have landed; this vendor offers no proof either way"
}

func (c *caller) search(h []entry) entry {
	_, _, lastDoubt := openDoubts(h)
	ready := lastDoubt.Add(c.f.LandsWithin + c.f.SearchLag + 2*time.Second)
	if d := time.Until(ready); d > 0 {
		time.Sleep(d)
	}
	for i := 0; i < 6; i++ {
		found, err := c.vendor.Search(c.ctx, c.plan.Request.Reference)
		if err == nil {
			if len(found) > 0 {
				return entry{kind: kindFound, at: time.Now(), pid: found[0].ID}
			}
			return entry{kind: kindClear, at: time.Now()}
		}
		time.Sleep(fullJitter(i + 3))
	}
	return entry{kind: kindBlind, at: time.Now()}
}

func (c *caller) step(h []entry) (createapi.Status, error) {
	action, st, pid, note := c.next(h)
	switch action {
	case "send":
		last := h[len(h)-1]
		wait := time.Duration(0)
		if last.kind != kindInherit && last.kind != kindClear && last.kind != "start" {
			wait = fullJitter(sends(h))
		}
		if last.kind == kindWait && last.ra > wait {
			wait = last.ra
		}
		if wait > 0 {
			time.Sleep(wait)
		}
		at := time.Now()
		p, err := c.vendor.Create(c.ctx, c.plan.Request)
		return c.step(append(h, toEntry(at, p, err)))
	case "search":
		// a refusal with open doubts, when settled by a search, ends the call
		if h[len(h)-1].kind == kindRefuse {
			e := c.search(h)
			if e.kind == kindClear {
				e = entry{kind: kindRefuse, at: e.at, msg: h[len(h)-1].msg + "; nothing landed"}
				return c.record(createapi.Failed, "", e.msg)
			}
			return c.step(append(h, e))
		}
		return c.step(append(h, c.search(h)))
	}
	return c.record(st, pid, note)
}

func (c *caller) record(st createapi.Status, pid, note string) (createapi.Status, error) {
	if err := c.store.Finish(c.ctx, c.id, st, pid, note); err != nil {
		return createapi.Pending, err
	}
	return st, nil
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	got, err := store.Claim(ctx, operationID, 15*time.Minute)
	if err != nil {
		return createapi.Pending, err
	}
	if !got {
		return createapi.Pending, nil
	}
	// Read again under the claim: the last holder may have settled or planned it.
	op, err = store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	c := &caller{ctx: ctx, store: store, vendor: vendor, id: operationID, f: vendor.Features(), start: time.Now()}
	h := []entry{{kind: "start", at: time.Now()}}
	if op.Plan != nil {
		c.plan = *op.Plan
		h = append(h, entry{kind: kindInherit, at: time.Now(), msg: "plan found at start"})
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		tag := "k." + strconv.FormatInt(rand.Int63(), 36) + "." + op.ID
		if c.f.IdempotencyKeys {
			req.IdempotencyKey = tag
		} else if c.f.References {
			req.Reference = tag
		}
		if c.f.References {
			req.Reference = tag
		}
		c.plan, err = store.SavePlan(ctx, operationID, req)
		if err != nil {
			return createapi.Pending, err
		}
		if c.plan.Request != req {
			h = append(h, entry{kind: kindInherit, at: time.Now(), msg: "planned by another process"})
		}
	}
	return c.step(h)
}
