// Package client is the dec6-labelled client with one defect: the search that settles doubt waits for LandsWithin but forgets the search index's SearchLag.
//
// defect: search-before-resend
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type limits struct {
	fewest, most int // sends before giving up with no doubt, and ever
	searches     int // search tries per look-up
}

var limitsFor = map[string]limits{
	"keys": {fewest: 5, most: 14, searches: 4},
	"refs": {fewest: 4, most: 8, searches: 5},
	"bare": {fewest: 4, most: 4, searches: 0},
}

const (
	sixMinutes = 6 * time.Minute
	hourish    = 40 * time.Minute
)

// CreatePayment creates the operation's payment at most once.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, fmt.Errorf("get %q: %w", operationID, err)
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	if ok, err := store.Claim(ctx, operationID, sixMinutes); err != nil {
		return createapi.Pending, fmt.Errorf("claim %q: %w", operationID, err)
	} else if !ok {
		return createapi.Pending, nil
	}
	feat := vendor.Features()
	kind := "bare"
	if feat.IdempotencyKeys {
		kind = "keys"
	} else if feat.References {
		kind = "refs"
	}
	lim := limitsFor[kind]
	start := time.Now()

	var req createapi.Request
	var keyFrom, doubtFirst, doubtLast time.Time
	doubt := false
	if op.Plan != nil {
		req, keyFrom = op.Plan.Request, op.Plan.SavedAt
		doubt, doubtFirst, doubtLast = true, start, start
	} else {
		k := fmt.Sprintf("%s.%d", op.ID, rand.Int63())
		mine := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo, IdempotencyKey: k, Reference: k}
		plan, err := store.SavePlan(ctx, operationID, mine)
		if err != nil {
			return createapi.Pending, fmt.Errorf("save plan %q: %w", operationID, err)
		}
		req = plan.Request
		if req != mine {
			keyFrom = plan.SavedAt
			doubt, doubtFirst, doubtLast = true, start, start
		}
	}

	sleep := func(d time.Duration) {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
	renew := func() (bool, error) { return store.Claim(ctx, operationID, sixMinutes) }

	// lookUp searches once every send could have landed and shown.
	lookUp := func() (id string, found, answered bool) {
		if d := time.Until(doubtLast.Add(feat.LandsWithin + time.Second)); d > 0 {
			sleep(d)
		}
	tries:
		for i := range lim.searches {
			if i > 0 {
				sleep(time.Duration(i) * 8 * time.Second)
			}
			ps, err := vendor.Search(ctx, req.Reference)
			if err != nil {
				continue tries
			}
			answered = true
			for _, p := range ps {
				if p.Reference == req.Reference {
					id, found = p.ID, true
					break tries
				}
			}
			break tries
		}
		return id, found, answered
	}

	status, payID, why := createapi.Unknown, "", ""
	sends := 0
	var lastErr error
	mustSearch := false // settle by search once nothing more is sent

rounds:
	for {
		if doubt && kind == "bare" {
			why = "may have landed; this vendor cannot recognise a resend"
			break rounds
		}
		if doubt && kind == "refs" {
			id, found, answered := lookUp()
			switch {
			case found:
				status, payID = createapi.Created, id
				break rounds
			case !answered:
				why = "in doubt, and no search answered"
				break rounds
			}
			doubt = false // absent once it could have shown: resending is safe
			if sends >= lim.most || time.Since(start) > hourish {
				status, why = createapi.Failed, "attempts used up; none landed"
				break rounds
			}
		}
		if kind == "keys" && !keyFrom.IsZero() && !time.Now().Add(feat.LandsWithin).Before(keyFrom.Add(feat.KeyLifetime)) {
			why, mustSearch = "key past its lifetime", feat.References
			break rounds
		}
		ok, err := renew()
		if err != nil {
			return createapi.Pending, fmt.Errorf("renew claim %q: %w", operationID, err)
		}
		if !ok {
			return createapi.Pending, nil
		}
		at := time.Now()
		if keyFrom.IsZero() {
			keyFrom = at
		}
		sends++
		p, err := vendor.Create(ctx, req)
		lastErr = err
		if err == nil {
			status, payID = createapi.Created, p.ID
			break rounds
		}
		var ce *createapi.ConnectError
		var he *createapi.HTTPError
		switch {
		case errors.As(err, &ce):
		case errors.As(err, &he) && he.Replayed:
			why, mustSearch = "saved error replayed", feat.References
			break rounds
		case errors.As(err, &he) && (he.Status == 408 || he.Status == 429):
		case errors.As(err, &he) && he.Status != 409 && he.Status < 500:
			if doubt {
				why, mustSearch = "refused after doubt", feat.References
			} else {
				status, why = createapi.Failed, "refused: "+err.Error()
			}
			break rounds
		default: // a timeout, a 409, a fresh 5xx
			if !doubt {
				doubtFirst = at
			}
			doubt, doubtLast = true, at
		}
		if sends >= lim.most || time.Since(start) > hourish ||
			(sends >= lim.fewest && (!doubt || (kind == "keys" && time.Now().After(doubtFirst.Add(feat.LandsWithin))))) {
			why, mustSearch = "no final answer: "+err.Error(), feat.References && doubt
			break rounds
		}
		ceiling := time.Second << min(sends, 6)
		d := time.Duration(rand.Int63n(int64(ceiling))) + time.Millisecond
		if he != nil {
			d = max(d, he.RetryAfter+time.Duration(rand.Int63n(int64(time.Second))))
		}
		sleep(d)
	}

	if mustSearch && doubt {
		id, found, answered := lookUp()
		switch {
		case found:
			status, payID = createapi.Created, id
		case !answered:
			status, why = createapi.Unknown, why+"; no search answered"
		default:
			status, why = createapi.Failed, why+"; absent once it could have shown"
		}
	} else if status == createapi.Unknown && payID == "" && !doubt {
		status = createapi.Failed
		if why == "" && lastErr != nil {
			why = lastErr.Error()
		}
	}

	ok, err := renew()
	if err != nil {
		return createapi.Pending, fmt.Errorf("renew claim %q: %w", operationID, err)
	}
	if !ok {
		return createapi.Pending, nil
	}
	if err := store.Finish(ctx, operationID, status, payID, why); err != nil {
		return createapi.Pending, fmt.Errorf("finish %q: %w", operationID, err)
	}
	return status, nil
}
