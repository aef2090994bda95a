// Package client is a verdict-table client with one defect: A replayed 5xx
// is treated like a fresh one and resent under the key until the attempts or
// the time run out.
//
// defect: no-replay-loop
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type verdict int

const (
	vOK        verdict = iota // payment returned
	vNotSent                  // connect error: nothing sent
	vWait                     // 408/429: nothing done, come back after wait
	vRefused                  // 400/422: read and refused
	vInFlight                 // 409: an earlier request under the key still runs
	vAmbiguous                // timeout or fresh 5xx
	vReplayed                 // 5xx replayed from the key's first request
)

type outcome struct {
	v       verdict
	payment createapi.Payment
	wait    time.Duration
	text    string
}

func classify(p createapi.Payment, err error) outcome {
	if err == nil {
		return outcome{v: vOK, payment: p}
	}
	var ce *createapi.ConnectError
	if errors.As(err, &ce) {
		return outcome{v: vNotSent, text: err.Error()}
	}
	var te *createapi.TimeoutError
	if errors.As(err, &te) {
		return outcome{v: vAmbiguous, text: err.Error()}
	}
	var he *createapi.HTTPError
	if errors.As(err, &he) {
		o := outcome{wait: he.RetryAfter, text: err.Error()}
		switch {
		case he.Status == 408 || he.Status == 429:
			o.v = vWait
		case he.Status == 400 || he.Status == 422:
			o.v = vRefused
		case he.Status == 409:
			o.v = vInFlight
		default:
			o.v = vAmbiguous
		}
		return o
	}
	return outcome{v: vAmbiguous, text: err.Error()}
}

func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

type runner struct {
	ctx     context.Context
	st      createapi.Store
	vd      createapi.Vendor
	f       createapi.Features
	id      string
	began   time.Time
	plan    createapi.Plan
	inDoubt bool      // something sent may have landed
	lastAmb time.Time // latest send that may have landed
	pause   time.Duration
}

func (r *runner) tooLate() bool { return time.Since(r.began) > 9*time.Minute }

func (r *runner) nap(least time.Duration) {
	d := r.pause + time.Duration(rand.Int63n(int64(r.pause)/4+1))
	if least > d {
		d = least
	}
	time.Sleep(d)
	r.pause = r.pause * 2
	if r.pause > 25*time.Second {
		r.pause = 25 * time.Second
	}
}

// record writes the status; after a store error it re-reads, and retries once.
func (r *runner) record(s createapi.Status, pid, note string) (createapi.Status, error) {
	err := r.st.Finish(r.ctx, r.id, s, pid, note)
	if err == nil {
		return s, nil
	}
	if op, gerr := r.st.Get(r.ctx, r.id); gerr == nil {
		if op.Status == s {
			return s, nil
		}
		if op.Status == createapi.Created || op.Status == createapi.Failed {
			return op.Status, nil
		}
	}
	if err2 := r.st.Finish(r.ctx, r.id, s, pid, note); err2 != nil {
		return createapi.Pending, fmt.Errorf("finish %s: %w", s, err2)
	}
	return s, nil
}

func (r *runner) ambiguous(sent time.Time) {
	r.inDoubt = true
	if sent.After(r.lastAmb) {
		r.lastAmb = sent
	}
}

// searchAfterDoubt: a found payment id, or whether an empty caught-up search proved absence.
func (r *runner) searchAfterDoubt() (string, bool) {
	if !r.f.References {
		return "", false
	}
	until := r.lastAmb.Add(r.f.LandsWithin + r.f.SearchLag + 2*time.Second)
	for tries := 0; tries < 30; tries++ {
		if d := time.Until(until); d > 0 {
			time.Sleep(d)
		}
		got, err := r.vd.Search(r.ctx, r.plan.Request.Reference)
		if err == nil {
			for _, p := range got {
				if p.Reference == r.plan.Request.Reference {
					return p.ID, false
				}
			}
			return "", true
		}
		if r.tooLate() {
			break
		}
		until = time.Now().Add(15 * time.Second)
	}
	return "", false
}

func (r *runner) doubtful(note string) (createapi.Status, error) {
	if pid, _ := r.searchAfterDoubt(); pid != "" {
		return r.record(createapi.Created, pid, "found by reference after: "+note)
	}
	return r.record(createapi.Unknown, "", note)
}

func (r *runner) ranOut(note string) (createapi.Status, error) {
	if r.inDoubt {
		return r.doubtful(note)
	}
	return r.record(createapi.Failed, "", note)
}

func (r *runner) send() (outcome, time.Time) {
	at := time.Now()
	p, err := r.vd.Create(r.ctx, r.plan.Request)
	return classify(p, err), at
}

// keyed: resend the saved plan under its key while the key is young.
func (r *runner) keyed() (createapi.Status, error) {
	for n := 0; n < 40; n++ {
		if r.tooLate() {
			return r.ranOut("keyed: out of time")
		}
		if time.Since(r.plan.SavedAt) >= r.f.KeyLifetime {
			if r.inDoubt {
				return r.doubtful("key older than its lifetime; a resend would be a new payment")
			}
			return r.record(createapi.Unknown, "", "key expired before send")
		}
		o, at := r.send()
		switch o.v {
		case vOK:
			return r.record(createapi.Created, o.payment.ID, "")
		case vNotSent:
			r.nap(0)
		case vWait:
			r.nap(o.wait)
		case vRefused:
			if r.inDoubt {
				return r.doubtful("refused after an ambiguous attempt: " + o.text)
			}
			return r.record(createapi.Failed, "", o.text)
		case vInFlight, vAmbiguous:
			r.ambiguous(at)
			r.nap(o.wait)
		case vReplayed:
			if r.lastAmb.IsZero() {
				r.lastAmb = at
			}
			r.inDoubt = true
			return r.doubtful("vendor replays its saved " + o.text)
		}
	}
	return r.ranOut("keyed: attempts ran out")
}

// referenced: a resend only after an empty search that has caught up.
func (r *runner) referenced() (createapi.Status, error) {
	for n := 0; n < 20; n++ {
		if r.tooLate() {
			return r.ranOut("referenced: out of time")
		}
		if r.inDoubt {
			pid, absent := r.searchAfterDoubt()
			if pid != "" {
				return r.record(createapi.Created, pid, "found by reference")
			}
			if !absent {
				return r.record(createapi.Unknown, "", "search could not prove absence")
			}
			r.inDoubt = false
		}
		o, at := r.send()
		switch o.v {
		case vOK:
			return r.record(createapi.Created, o.payment.ID, "")
		case vNotSent:
			r.nap(0)
		case vWait:
			r.nap(o.wait)
		case vRefused:
			return r.record(createapi.Failed, "", o.text)
		default:
			r.ambiguous(at)
		}
	}
	return r.ranOut("referenced: attempts ran out")
}

// blind: never resend once anything may have landed.
func (r *runner) blind() (createapi.Status, error) {
	if r.inDoubt {
		return r.record(createapi.Unknown, "", "plan found from an earlier process; may have been sent")
	}
	for n := 0; n < 8; n++ {
		o, _ := r.send()
		switch o.v {
		case vOK:
			return r.record(createapi.Created, o.payment.ID, "")
		case vNotSent:
			r.nap(0)
		case vWait:
			r.nap(o.wait)
		case vRefused:
			return r.record(createapi.Failed, "", o.text)
		default:
			return r.record(createapi.Unknown, "", "ambiguous at a vendor with neither key nor reference: "+o.text)
		}
	}
	return r.record(createapi.Failed, "", "nothing was ever sent successfully")
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	r := &runner{ctx: ctx, st: store, vd: vendor, id: operationID, began: time.Now(), pause: 800 * time.Millisecond}

	got, err := store.Claim(ctx, operationID, 13*time.Minute)
	if err != nil {
		if got, err = store.Claim(ctx, operationID, 13*time.Minute); err != nil {
			return createapi.Pending, err
		}
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		if op, err = store.Get(ctx, operationID); err != nil {
			return createapi.Pending, err
		}
	}
	if !got || op.Status != createapi.Pending {
		return op.Status, nil
	}
	r.f = vendor.Features()

	if op.Plan != nil {
		r.plan = *op.Plan
		r.ambiguous(r.began)
	} else {
		tag := fmt.Sprintf("%016x-%08x", fnv("operation:"+op.ID), uint32(rand.Int63()))
		want := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		if r.f.IdempotencyKeys {
			want.IdempotencyKey = tag
		}
		if r.f.References {
			want.Reference = tag
		}
		plan, serr := store.SavePlan(ctx, op.ID, want)
		if serr != nil {
			again, gerr := store.Get(ctx, op.ID)
			if gerr != nil || again.Plan == nil {
				return createapi.Pending, serr
			}
			plan = *again.Plan
		}
		r.plan = plan
		if plan.Request != want {
			r.ambiguous(r.began)
		}
	}

	switch {
	case r.f.IdempotencyKeys:
		return r.keyed()
	case r.f.References:
		return r.referenced()
	default:
		return r.blind()
	}
}
