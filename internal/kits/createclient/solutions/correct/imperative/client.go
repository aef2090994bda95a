// Package client is a correct create client written as one long function
// with no types of its own: the state is a handful of local variables, the
// key is the operation id and the plan's creation time in nanoseconds, the
// waits are "equal jitter" (half the ceiling fixed, half random) under a
// ceiling that doubles to 40 s, the lease is 14 minutes, renewed before
// every search, send and write, and a search that errors is retried for
// up to two hours. Where a search made after a
// doubtful attempt could have landed and shown finds nothing, the
// operation is recorded failed rather than unknown: the payment certainly
// does not exist.
package client

import (
	"context"
	"errors"
	"math/rand"
	"strconv"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

// CreatePayment settles one operation and returns its status.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	got, err := store.Claim(ctx, operationID, 14*time.Minute)
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
	feat := vendor.Features()

	inDoubt := false
	var doubtSince time.Time // when the latest doubtful attempt was sent
	var plan createapi.Plan
	if op.Plan != nil {
		plan = *op.Plan
		inDoubt = true
		doubtSince = time.Now()
	} else {
		id := operationID + ":" + strconv.FormatInt(time.Now().UnixNano(), 10) + ":" + strconv.Itoa(rand.Intn(1000000))
		want := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		if feat.IdempotencyKeys {
			want.IdempotencyKey = id
		}
		if feat.References {
			want.Reference = id
		}
		plan, err = store.SavePlan(ctx, operationID, want)
		if err != nil {
			return createapi.Pending, err
		}
		if plan.Request != want {
			inDoubt = true
			doubtSince = time.Now()
		}
	}

	// keep renews the claim before each step, so the lease outlasts the
	// call however long the index stays down; lost says another worker
	// has it now (or the store failed the claim: claimErr).
	var claimErr error
	lost := false
	keep := func() bool {
		ok, err := store.Claim(ctx, operationID, 14*time.Minute)
		if err != nil || !ok {
			lost, claimErr = true, err
			return false
		}
		return true
	}

	record := func(s createapi.Status, paymentID, note string) (createapi.Status, error) {
		if lost || !keep() {
			return createapi.Pending, claimErr
		}
		if err := store.Finish(ctx, operationID, s, paymentID, note); err != nil {
			return createapi.Pending, err
		}
		return s, nil
	}

	// lookUp waits until the doubtful attempt has landed or never will and
	// the index shows it, then searches, retrying a search that errors.
	// It answers the payment's id, or "" with proven true when the search
	// answered and found nothing, or "" and false when it never answered.
	lookUp := func() (string, bool) {
		ready := doubtSince.Add(feat.LandsWithin + feat.SearchLag + 2*time.Second)
		if time.Now().Before(ready) {
			time.Sleep(time.Until(ready))
		}
		giveUp := time.Now().Add(2 * time.Hour)
		pause := 5 * time.Second
		for {
			if !keep() {
				return "", false
			}
			list, err := vendor.Search(ctx, plan.Request.Reference)
			if err == nil {
				if len(list) > 0 {
					return list[0].ID, true
				}
				return "", true
			}
			if time.Now().Add(pause).After(giveUp) {
				return "", false
			}
			time.Sleep(pause)
			if pause < 10*time.Minute {
				pause = pause * 2
			}
		}
	}

	// settleByLookUp ends an operation whose doubt a resend cannot lift.
	settleByLookUp := func(why string) (createapi.Status, error) {
		if !feat.References {
			return record(createapi.Unknown, "", why)
		}
		paymentID, answered := lookUp()
		if paymentID != "" {
			return record(createapi.Created, paymentID, "found by reference")
		}
		if answered {
			return record(createapi.Failed, "", "nothing carries our reference after the doubtful attempt could have landed")
		}
		return record(createapi.Unknown, "", why+"; the search never answered")
	}

	ceiling := 2 * time.Second
	tries := 0
	for {
		if inDoubt && !feat.IdempotencyKeys {
			if !feat.References {
				return record(createapi.Unknown, "", "the answer was lost and this vendor cannot recognise a resend")
			}
			paymentID, answered := lookUp()
			if paymentID != "" {
				return record(createapi.Created, paymentID, "found by reference")
			}
			if !answered {
				return record(createapi.Unknown, "", "the answer was lost and the search never answered")
			}
			inDoubt = false // proven absent: the next send is a first send
		}
		if inDoubt && time.Since(plan.SavedAt) > feat.KeyLifetime-2*time.Minute {
			return settleByLookUp("the key is too old to protect a resend")
		}
		// Enough tries: at least six, and while an attempt is in doubt
		// under a key, until it has landed or never will.
		if tries >= 6 && !(inDoubt && feat.IdempotencyKeys && time.Since(doubtSince) <= feat.LandsWithin) {
			if inDoubt {
				return settleByLookUp("out of tries after an attempt in doubt")
			}
			return record(createapi.Failed, "", "out of tries, and nothing was sent")
		}
		tries++
		if !keep() {
			return createapi.Pending, claimErr
		}
		sent := time.Now()
		pay, err := vendor.Create(ctx, plan.Request)
		if err == nil {
			return record(createapi.Created, pay.ID, "")
		}
		wait := ceiling/2 + time.Duration(rand.Int63n(int64(ceiling/2)+1))
		var cErr *createapi.ConnectError
		var tErr *createapi.TimeoutError
		var hErr *createapi.HTTPError
		if errors.As(err, &cErr) {
			// nothing left the building
		} else if errors.As(err, &tErr) {
			inDoubt, doubtSince = true, sent
		} else if errors.As(err, &hErr) {
			if hErr.Status == 408 || hErr.Status == 429 {
				if wait < hErr.RetryAfter {
					wait = hErr.RetryAfter
				}
			} else if hErr.Status == 409 || hErr.Status >= 500 {
				inDoubt, doubtSince = true, sent
				if hErr.Replayed {
					return settleByLookUp("the vendor keeps replaying a saved server error")
				}
			} else if inDoubt {
				return record(createapi.Unknown, "", "refused after an attempt in doubt: "+hErr.Error())
			} else {
				return record(createapi.Failed, "", "refused: "+hErr.Error())
			}
		} else {
			return record(createapi.Unknown, "", "gave up waiting: "+err.Error())
		}
		time.Sleep(wait)
		if ceiling < 40*time.Second {
			ceiling *= 2
		}
	}
}
