// Package client is the dec6-rangefunc client with one defect: at a vendor with references only, the search after an uncertain attempt is made at once, not once the attempt could have landed and shown.
//
// defect: search-before-resend
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

const nineMinutes = 9 * time.Minute

// paced yields 1, 2, ... up to limit, sleeping before each yield after the
// first for as long as gap says.
func paced(ctx context.Context, limit int, gap func(n int) time.Duration) func(func(int) bool) {
	return func(yield func(int) bool) {
		for n := 1; n <= limit; n++ {
			if n > 1 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(gap(n - 1)):
				}
			}
			if !yield(n) {
				return
			}
		}
	}
}

// carrying yields the payments of list whose reference is ref.
func carrying(list []createapi.Payment, ref string) func(func(createapi.Payment) bool) {
	return func(yield func(createapi.Payment) bool) {
		for _, p := range list {
			if p.Reference == ref && !yield(p) {
				return
			}
		}
	}
}

// CreatePayment creates the operation's payment at most once.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	if ok, err := store.Claim(ctx, operationID, nineMinutes); err != nil || !ok {
		return createapi.Pending, err
	}
	feat := vendor.Features()
	began := time.Now()

	var (
		req                  createapi.Request
		doubt                bool
		firstDoubt, lastSent time.Time
		keyFrom              time.Time
		storeErr             error
		lostClaim            bool
	)
	noteDoubt := func(at time.Time) {
		if !doubt {
			firstDoubt = at
		}
		doubt = true
	}
	if op.Plan != nil {
		req, keyFrom = op.Plan.Request, op.Plan.SavedAt
		noteDoubt(began)
		lastSent = began
	} else {
		tag := operationID + "-" + strconv.FormatUint(rand.Uint64(), 36)
		want := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo, IdempotencyKey: tag, Reference: tag}
		plan, err := store.SavePlan(ctx, operationID, want)
		if err != nil {
			return createapi.Pending, err
		}
		req = plan.Request
		if req != want {
			keyFrom = plan.SavedAt
			noteDoubt(began)
			lastSent = began
		}
	}
	held := func() bool {
		ok, err := store.Claim(ctx, operationID, nineMinutes)
		if err != nil {
			storeErr = err
			return false
		}
		lostClaim = !ok
		return ok
	}
	sleep := func(d time.Duration) {
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
	var lastErr error
	gap := func(n int) time.Duration {
		ceiling := time.Second << min(n, 6)
		d := time.Duration(rand.Int63n(int64(ceiling))) + time.Millisecond
		var he *createapi.HTTPError
		if errors.As(lastErr, &he) && he.RetryAfter > d {
			d = he.RetryAfter + time.Duration(rand.Int63n(int64(time.Second)))
		}
		return d
	}
	// search waits until every send may have landed and shown; ok false
	// means no search answered.
	search := func() (p createapi.Payment, found, ok bool) {
		if d := time.Until(lastSent); d > 0 {
			sleep(d)
		}
		for try := range 5 {
			if try > 0 {
				sleep(time.Duration(3*try) * time.Second)
			}
			list, err := vendor.Search(ctx, req.Reference)
			if err != nil {
				continue
			}
			for p := range carrying(list, req.Reference) {
				return p, true, true
			}
			return createapi.Payment{}, false, true
		}
		return createapi.Payment{}, false, false
	}
	keyOK := func() bool {
		return keyFrom.IsZero() || time.Now().Add(feat.LandsWithin).Before(keyFrom.Add(feat.KeyLifetime))
	}
	// kind of an error: 'n' nothing ran, 'm' may have landed, 'r' refused,
	// 'p' a replayed saved error.
	kindOf := func(err error) byte {
		var ce *createapi.ConnectError
		var he *createapi.HTTPError
		switch {
		case errors.As(err, &ce):
			return 'n'
		case errors.As(err, &he):
			switch {
			case he.Replayed:
				return 'p'
			case he.Status == 408, he.Status == 429:
				return 'n'
			case he.Status == 409, he.Status >= 500:
				return 'm'
			}
			return 'r'
		}
		return 'm' // a timeout
	}

	status, payment, note := createapi.Unknown, "", ""
	decided := false
	settle := func(s createapi.Status, id, why string) { status, payment, note, decided = s, id, why, true }
	afterSending := func(why string) {
		switch {
		case !doubt:
			settle(createapi.Failed, "", why)
		case !feat.References:
			settle(createapi.Unknown, "", why)
		default:
			p, found, ok := search()
			switch {
			case !ok:
				settle(createapi.Unknown, "", why+"; no search answered")
			case found:
				settle(createapi.Created, p.ID, "")
			default:
				settle(createapi.Failed, "", why+"; a search that caught up found nothing")
			}
		}
	}

	limit := 16
	if !feat.IdempotencyKeys {
		limit = 5
	}
	if !feat.IdempotencyKeys && !feat.References && doubt {
		settle(createapi.Unknown, "", "a plan from an earlier process may have been sent")
	}
	for n := range paced(ctx, limit, gap) {
		if decided {
			break
		}
		if !feat.IdempotencyKeys && doubt {
			// references only: resend only after a search that caught up
			// found nothing.
			p, found, ok := search()
			if !ok {
				settle(createapi.Unknown, "", "in doubt and no search answered")
				break
			}
			if found {
				settle(createapi.Created, p.ID, "")
				break
			}
			doubt = false
		}
		if feat.IdempotencyKeys && !keyOK() {
			afterSending("the key is past its lifetime")
			break
		}
		if !held() {
			break
		}
		sentAt := time.Now()
		if keyFrom.IsZero() {
			keyFrom = sentAt
		}
		lastSent = sentAt
		p, err := vendor.Create(ctx, req)
		lastErr = err
		if err == nil {
			settle(createapi.Created, p.ID, "")
			break
		}
		k := kindOf(err)
		if k == 'm' {
			noteDoubt(sentAt)
			if !feat.IdempotencyKeys && !feat.References {
				settle(createapi.Unknown, "", err.Error())
				break
			}
		}
		if k == 'p' {
			afterSending("saved error replayed")
			break
		}
		if k == 'r' {
			if doubt {
				afterSending("refused after doubt: " + err.Error())
			} else {
				settle(createapi.Failed, "", err.Error())
			}
			break
		}
		last := n == limit || time.Since(began) > 45*time.Minute
		if feat.IdempotencyKeys && !last && n >= 5 && (!doubt || time.Now().After(firstDoubt.Add(feat.LandsWithin))) {
			last = true
		}
		if !feat.IdempotencyKeys && n >= 5 && !doubt {
			last = true
		}
		if last {
			afterSending("no final answer: " + err.Error())
			break
		}
	}
	if storeErr != nil {
		return createapi.Pending, fmt.Errorf("store: %w", storeErr)
	}
	if lostClaim || !decided {
		return createapi.Pending, nil
	}
	if !held() {
		if storeErr != nil {
			return createapi.Pending, fmt.Errorf("store: %w", storeErr)
		}
		return createapi.Pending, nil
	}
	if err := store.Finish(ctx, operationID, status, payment, note); err != nil {
		return createapi.Pending, fmt.Errorf("finish: %w", err)
	}
	return status, nil
}
