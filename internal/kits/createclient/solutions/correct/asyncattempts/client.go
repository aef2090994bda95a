// Package client is a correct create client written the way a service
// team often writes one: each attempt runs in a goroutine of its own and
// the caller selects on its answer and on the caller's context; the key is
// one random number in base 36 behind the operation id; the waits are
// decorrelated jitter; seven tries, and at a keyed vendor as many more as
// it takes for an attempt in doubt to be settled; the claim's lease is 12
// minutes; settling goes through one closure.
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
	claimFor = 12 * time.Minute
	tries    = 7
	minWait  = 300 * time.Millisecond
	maxWait  = 45 * time.Second
)

type answer struct {
	p   createapi.Payment
	err error
}

// send runs one attempt in its own goroutine; the channel has room for the
// answer, so the goroutine ends even when nobody reads it.
func send(ctx context.Context, v createapi.Vendor, req createapi.Request) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		p, err := v.Create(ctx, req)
		ch <- answer{p, err}
	}()
	return ch
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	mine, err := store.Claim(ctx, operationID, claimFor)
	if err != nil {
		return createapi.Pending, err
	}
	if !mine {
		return createapi.Pending, nil
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	settle := func(st createapi.Status, paymentID, note string) (createapi.Status, error) {
		if err := store.Finish(ctx, operationID, st, paymentID, note); err != nil {
			return createapi.Pending, err
		}
		return st, nil
	}
	feat := vendor.Features()

	// inDoubt: something sent may have landed; since: when the latest such
	// attempt went out.
	// firstDoubt: when the first attempt in doubt went out (a keyed
	// vendor settles it once it can no longer be running).
	var plan createapi.Plan
	inDoubt, since, firstDoubt := false, time.Time{}, time.Time{}
	doubt := func(at time.Time) {
		if !inDoubt || firstDoubt.IsZero() {
			firstDoubt = at
		}
		inDoubt, since = true, at
	}
	if op.Plan != nil {
		plan = *op.Plan
		doubt(time.Now())
	} else {
		tag := "op:" + operationID + ":" + strconv.FormatInt(rand.Int63(), 36)
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		if feat.IdempotencyKeys {
			req.IdempotencyKey = tag
		}
		if feat.References {
			req.Reference = tag
		}
		saved, err := store.SavePlan(ctx, operationID, req)
		if err != nil {
			return createapi.Pending, err
		}
		plan = saved
		if saved.Request != req {
			doubt(time.Now())
		}
	}

	// search looks for the plan's payment once anything sent at since
	// would have landed and shown.
	search := func() (string, error) {
		ready := since.Add(feat.LandsWithin + feat.SearchLag + 2*time.Second)
		if d := time.Until(ready); d > 0 {
			time.Sleep(d)
		}
		found, err := searchAgain(ctx, vendor, plan.Request.Reference)
		if err != nil || len(found) == 0 {
			return "", err
		}
		return found[0].ID, nil
	}
	unknownUnlessFound := func(why string) (createapi.Status, error) {
		if feat.References {
			if id, err := search(); err == nil && id != "" {
				return settle(createapi.Created, id, "found by its reference")
			}
		}
		return settle(createapi.Unknown, "", why)
	}

	// more: another attempt is due, to make up the tries or, at a keyed
	// vendor, until the first attempt in doubt can no longer be running.
	// It is asked before the wait: the attempt after it goes out whatever
	// the clock says then.
	more := func(try int) bool {
		return try <= tries || inDoubt && feat.IdempotencyKeys && time.Since(firstDoubt) <= feat.LandsWithin+time.Second
	}
	wait := minWait
	for try := 1; ; try++ {
		if inDoubt {
			switch {
			case !feat.IdempotencyKeys && !feat.References:
				return settle(createapi.Unknown, "", "an attempt may have landed at a vendor that cannot recognise a repeat")
			case !feat.IdempotencyKeys:
				id, err := search()
				if err != nil {
					return settle(createapi.Unknown, "", "the search for an attempt in doubt failed: "+err.Error())
				}
				if id != "" {
					return settle(createapi.Created, id, "found by its reference")
				}
				inDoubt, firstDoubt = false, time.Time{} // it did not land: the next send is a first one
			case time.Since(plan.SavedAt)+5*time.Minute >= feat.KeyLifetime:
				return unknownUnlessFound("the key is too old to protect a resend")
			}
		}
		sentAt := time.Now()
		var a answer
		select {
		case a = <-send(ctx, vendor, plan.Request):
		case <-ctx.Done():
			return settle(createapi.Unknown, "", "the caller stopped waiting with an attempt in flight")
		}
		if a.err == nil {
			return settle(createapi.Created, a.p.ID, "")
		}
		var conn *createapi.ConnectError
		var slow *createapi.TimeoutError
		var hErr *createapi.HTTPError
		floor := time.Duration(0)
		switch {
		case errors.As(a.err, &conn):
			// nothing left us
		case errors.As(a.err, &slow):
			doubt(sentAt)
		case errors.As(a.err, &hErr) && (hErr.Status == 408 || hErr.Status == 429):
			floor = hErr.RetryAfter
		case errors.As(a.err, &hErr) && (hErr.Status == 409 || hErr.Status >= 500):
			doubt(sentAt)
			if hErr.Replayed {
				return unknownUnlessFound("the vendor replays a saved server error under this key")
			}
		case errors.As(a.err, &hErr):
			if inDoubt {
				return unknownUnlessFound("refused after an attempt whose answer was lost: " + hErr.Error())
			}
			return settle(createapi.Failed, "", "refused: "+hErr.Error())
		default:
			return settle(createapi.Unknown, "", "no answer: "+a.err.Error())
		}
		if !more(try + 1) {
			break
		}
		// Decorrelated jitter: between the floor and three times the last
		// wait, capped; never shorter than what the vendor asked.
		next := minWait + time.Duration(rand.Int63n(int64(3*wait)))
		if next > maxWait {
			next = maxWait
		}
		if next < floor {
			next = floor
		}
		wait = next
		time.Sleep(next)
	}
	if inDoubt {
		return unknownUnlessFound("attempts used up after an attempt whose answer was lost")
	}
	return settle(createapi.Failed, "", "attempts used up; nothing was sent")
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
