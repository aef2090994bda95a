// Package client is a correct create client in this style: the vendor's
// errors are translated into error types of the file's own (pointer
// receivers), the sending loop is labelled and left with break and continue
// from inside switches, the note recorded with the status is a struct
// printed with %+v, and the waits double from 2 s with +-25% jitter; an
// eleven-minute lease renewed before each send and the write. Written for the
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

// errNoEffect: the vendor did nothing (no connection, 408, 429).
type errNoEffect struct {
	wait time.Duration
	why  string
}

func (e *errNoEffect) Error() string {
	return fmt.Sprintf("no effect (%s), retry after %v", e.why, e.wait)
}

// errUncertain: the request may have been carried out.
type errUncertain struct {
	sentAt time.Time
	cause  error
}

func (e *errUncertain) Error() string { return "uncertain: " + e.cause.Error() }

// errRefusal: read and refused, ran nothing.
type errRefusal struct{ status int }

func (e *errRefusal) Error() string { return fmt.Sprintf("refused with %d", e.status) }

// errReplay: a saved server error answered again.
type errReplay struct {
	status int
	code   string
}

func (e *errReplay) Error() string { return fmt.Sprintf("replayed %d %s", e.status, e.code) }

func translate(err error, sentAt time.Time) error {
	var ce *createapi.ConnectError
	var te *createapi.TimeoutError
	var he *createapi.HTTPError
	switch {
	case errors.As(err, &ce):
		return &errNoEffect{why: "no connection"}
	case errors.As(err, &te):
		return &errUncertain{sentAt: sentAt, cause: err}
	case errors.As(err, &he):
		switch {
		case he.Replayed:
			return &errReplay{status: he.Status, code: he.Code}
		case he.Status == 408 || he.Status == 429:
			return &errNoEffect{wait: he.RetryAfter, why: fmt.Sprint(he.Status)}
		case he.Status == 409 || he.Status >= 500:
			return &errUncertain{sentAt: sentAt, cause: err}
		}
		return &errRefusal{status: he.Status}
	}
	return &errUncertain{sentAt: sentAt, cause: err}
}

type note struct {
	Sends  int
	Doubt  bool
	Reason string
}

const (
	hold        = 11 * time.Minute
	minSends    = 5
	maxSends    = 15
	callBudget  = 40 * time.Minute
	baseBackoff = 2 * time.Second
)

func jittered(n int) time.Duration {
	d := baseBackoff << min(n-1, 5)
	return d*3/4 + time.Duration(rand.Int63n(int64(d/2)))
}

// CreatePayment creates the operation's payment at most once.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, fmt.Errorf("createpayment %s: get: %w", operationID, err)
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	claimed, err := store.Claim(ctx, operationID, hold)
	if err != nil {
		return createapi.Pending, fmt.Errorf("createpayment %s: claim: %w", operationID, err)
	}
	if !claimed {
		return createapi.Pending, nil
	}
	ft := vendor.Features()
	t0 := time.Now()

	var req createapi.Request
	var keyEpoch time.Time
	var doubts []*errUncertain // every attempt that may have landed
	if op.Plan != nil {
		req, keyEpoch = op.Plan.Request, op.Plan.SavedAt
		doubts = append(doubts, &errUncertain{sentAt: t0, cause: errors.New("plan found at start")})
	} else {
		k := fmt.Sprintf("op:%s:%d", op.ID, rand.Int63())
		r := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo, IdempotencyKey: k, Reference: k}
		plan, err := store.SavePlan(ctx, operationID, r)
		if err != nil {
			return createapi.Pending, fmt.Errorf("createpayment %s: save plan: %w", operationID, err)
		}
		req = plan.Request
		if req != r {
			keyEpoch = plan.SavedAt
			doubts = append(doubts, &errUncertain{sentAt: t0, cause: errors.New("someone else's plan")})
		}
	}
	wait := func(d time.Duration) {
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
	latestDoubt := func() time.Time { return doubts[len(doubts)-1].sentAt }
	// lookUp searches once every send may have shown; answered false: no
	// search answered.
	lookUp := func() (id string, found, answered bool) {
		if d := time.Until(latestDoubt().Add(ft.LandsWithin + ft.SearchLag + time.Second)); d > 0 {
			wait(d)
		}
		for i := 0; i < 5; i++ {
			if i > 0 {
				wait(4 * time.Second * time.Duration(i))
			}
			ps, err := vendor.Search(ctx, req.Reference)
			if err != nil {
				continue
			}
			for _, p := range ps {
				if p.Reference == req.Reference {
					return p.ID, true, true
				}
			}
			return "", false, true
		}
		return "", false, false
	}

	status, paymentID := createapi.Unknown, ""
	n := note{}
	sends := 0
	var storeErr error
	lost := false

sending:
	for {
		// References only: a resend after doubt needs an empty search that
		// has caught up.
		if len(doubts) > 0 && !ft.IdempotencyKeys {
			if !ft.References {
				n.Reason = "the vendor cannot recognise a resend"
				status = createapi.Unknown
				break sending
			}
			id, found, answered := lookUp()
			switch {
			case !answered:
				n.Reason, status = "no search answered", createapi.Unknown
				break sending
			case found:
				status, paymentID = createapi.Created, id
				break sending
			}
			doubts = nil
		}
		if ft.IdempotencyKeys && !keyEpoch.IsZero() && !time.Now().Add(ft.LandsWithin).Before(keyEpoch.Add(ft.KeyLifetime)) {
			n.Reason = "key past its lifetime"
			break sending
		}
		ok, err := store.Claim(ctx, operationID, hold)
		if err != nil {
			storeErr = err
			break sending
		}
		if !ok {
			lost = true
			break sending
		}
		sentAt := time.Now()
		if keyEpoch.IsZero() {
			keyEpoch = sentAt
		}
		sends++
		p, raw := vendor.Create(ctx, req)
		if raw == nil {
			status, paymentID = createapi.Created, p.ID
			break sending
		}
		e := translate(raw, sentAt)
		var ne *errNoEffect
		var ue *errUncertain
		var re *errRefusal
		var rp *errReplay
		pause := jittered(sends)
		switch {
		case errors.As(e, &rp):
			n.Reason = e.Error()
			break sending
		case errors.As(e, &re):
			n.Reason = e.Error()
			if len(doubts) == 0 {
				status = createapi.Failed
				doubts = nil
				break sending
			}
			break sending
		case errors.As(e, &ue):
			doubts = append(doubts, ue)
		case errors.As(e, &ne):
			if ne.wait > pause {
				pause = ne.wait + time.Duration(rand.Int63n(int64(time.Second)))
			}
		}
		if sends >= maxSends || time.Since(t0) > callBudget {
			n.Reason = "out of sends"
			break sending
		}
		if sends >= minSends && (len(doubts) == 0 || time.Now().After(doubts[0].sentAt.Add(ft.LandsWithin))) {
			if ft.IdempotencyKeys || len(doubts) == 0 {
				n.Reason = "out of sends"
				break sending
			}
		}
		wait(pause)
		continue sending
	}

	if storeErr != nil {
		return createapi.Pending, fmt.Errorf("createpayment %s: renew claim: %w", operationID, storeErr)
	}
	if lost {
		return createapi.Pending, nil
	}
	if status == createapi.Unknown && paymentID == "" {
		// Nothing final came back: settle from the doubts.
		switch {
		case len(doubts) == 0:
			status = createapi.Failed
		case ft.References:
			id, found, answered := lookUp()
			switch {
			case !answered:
				n.Reason += "; no search answered"
			case found:
				status, paymentID = createapi.Created, id
			default:
				status = createapi.Failed
				n.Reason += "; absent once it could have shown"
			}
		}
	}
	n.Sends, n.Doubt = sends, len(doubts) > 0
	ok, err := store.Claim(ctx, operationID, hold)
	if err != nil {
		return createapi.Pending, fmt.Errorf("createpayment %s: renew claim: %w", operationID, err)
	}
	if !ok {
		return createapi.Pending, nil
	}
	if err := store.Finish(ctx, operationID, status, paymentID, fmt.Sprintf("%+v", n)); err != nil {
		return createapi.Pending, fmt.Errorf("createpayment %s: finish: %w", operationID, err)
	}
	return status, nil
}
