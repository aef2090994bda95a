// Package client is the dec5-tabledriven client with one defect: a search
// that fails is read as an empty answer.
//
// It breaks: "At a vendor with references only, a resend after an uncertain
// attempt follows an empty search made once that attempt could have landed
// and shown" (a search that fails found nothing and proves nothing).
//
// defect: search-before-resend
package client

import (
	"context"
	"errors"
	"math/rand"
	"strconv"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type class int

const (
	cSent    class = iota // success
	cNotSent              // connect error
	cWait                 // 408, 429: did nothing
	cRefused              // 400, 422
	cMaybe                // timeout, 409, 5xx
	cReplay               // saved 5xx
	cOdd
)

var statusClass = map[int]class{400: cRefused, 422: cRefused, 408: cWait, 429: cWait, 409: cMaybe}

type retryPolicy struct {
	base, ceiling time.Duration
	jitter        float64 // share of the pause that is random
}

var policies = map[class]retryPolicy{
	cNotSent: {time.Second, time.Minute, 0.5},
	cWait:    {2 * time.Second, 2 * time.Minute, 0.3},
	cMaybe:   {3 * time.Second, 3 * time.Minute, 0.5},
}

type path struct {
	resendInDoubt bool // a keyed vendor recognises the resend
	canSearch     bool
}

func pathFor(f createapi.Features) path {
	return map[[2]bool]path{
		{true, true}:   {true, true},
		{true, false}:  {true, false},
		{false, true}:  {false, true},
		{false, false}: {false, false},
	}[[2]bool{f.IdempotencyKeys, f.References}]
}

func classify(err error) (class, time.Duration) {
	if err == nil {
		return cSent, 0
	}
	var ce *createapi.ConnectError
	var te *createapi.TimeoutError
	var he *createapi.HTTPError
	if errors.As(err, &ce) {
		return cNotSent, 0
	}
	if errors.As(err, &te) {
		return cMaybe, 0
	}
	if !errors.As(err, &he) {
		return cOdd, 0
	}
	if he.Status >= 500 {
		if he.Replayed {
			return cReplay, 0
		}
		return cMaybe, 0
	}
	c, ok := statusClass[he.Status]
	if !ok {
		return cOdd, 0
	}
	return c, he.RetryAfter
}

func pauseFor(c class, n int, floor time.Duration) time.Duration {
	p, ok := policies[c]
	if !ok {
		p = policies[cMaybe]
	}
	d := p.base
	for i := 0; i < n && d < p.ceiling; i++ {
		d *= 2
	}
	if d > p.ceiling {
		d = p.ceiling
	}
	random := time.Duration(float64(d) * p.jitter)
	d = d - random + time.Duration(rand.Int63n(int64(random)+1))
	if d < floor {
		d = floor
	}
	if d <= 0 {
		d = time.Millisecond
	}
	return d
}

const (
	leaseMax   = 15 * time.Minute
	renewAfter = 4 * time.Minute
)

var errYielded = errors.New("another worker has the operation")

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	start := time.Now()
	got, err := store.Claim(ctx, operationID, leaseMax)
	if err != nil || !got {
		return createapi.Pending, err
	}
	renewed := time.Now()
	claim := func() error {
		if time.Since(renewed) < renewAfter {
			return nil
		}
		ok, err := store.Claim(ctx, operationID, leaseMax)
		if err != nil {
			return err
		}
		if !ok {
			return errYielded
		}
		renewed = time.Now()
		return nil
	}
	sleep := func(d time.Duration) error {
		for d > 0 {
			s := d
			if s > 2*time.Minute {
				s = 2 * time.Minute
			}
			time.Sleep(s)
			d -= s
			if err := claim(); err != nil {
				return err
			}
		}
		return claim()
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	f := vendor.Features()
	pa := pathFor(f)
	doubt := op.Plan != nil
	doubtSince := time.Now()
	var plan createapi.Plan
	if doubt {
		plan = *op.Plan
	} else {
		tag := op.ID + ":" + strconv.FormatInt(rand.Int63(), 36)
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		if f.IdempotencyKeys {
			req.IdempotencyKey = tag
		}
		if f.References {
			req.Reference = tag
		}
		if plan, err = store.SavePlan(ctx, operationID, req); err != nil {
			return createapi.Pending, err
		}
		doubt = plan.Request != req
	}
	end := func(st createapi.Status, pay, note string) (createapi.Status, error) {
		if err := claim(); err != nil {
			return quit(err)
		}
		if err := store.Finish(ctx, operationID, st, pay, note); err != nil {
			return createapi.Pending, err
		}
		return st, nil
	}
	// probe: found id, or "" with proved=true when absent.
	probe := func() (id string, proved bool, err error) {
		if err := sleep(time.Until(doubtSince.Add(f.LandsWithin + f.SearchLag + time.Second))); err != nil {
			return "", false, err
		}
		for i := 0; ; i++ {
			ps, serr := vendor.Search(ctx, plan.Request.Reference)
			if serr == nil || true {
				for _, p := range ps {
					if p.Reference == plan.Request.Reference {
						return p.ID, true, nil
					}
				}
				return "", true, nil
			}
			if time.Since(start) > 165*time.Minute {
				return "", false, nil
			}
			if err := sleep(pauseFor(cMaybe, i+2, 0)); err != nil {
				return "", false, err
			}
		}
	}
	settleByProbe := func(why string) (createapi.Status, error) {
		if !pa.canSearch {
			return end(createapi.Unknown, "", why)
		}
		id, _, err := probe()
		if err != nil {
			return quit(err)
		}
		if id != "" {
			return end(createapi.Created, id, "found by reference")
		}
		return end(createapi.Unknown, "", why)
	}
	// doubt at a vendor that cannot recognise a resend must be cleared first
	clear := func() (createapi.Status, bool, error) {
		if !pa.canSearch {
			st, err := end(createapi.Unknown, "", "may have been sent; this vendor cannot recognise a resend")
			return st, true, err
		}
		id, proved, err := probe()
		if err != nil {
			st, err := quit(err)
			return st, true, err
		}
		if id != "" {
			st, err := end(createapi.Created, id, "found by reference")
			return st, true, err
		}
		if !proved {
			st, err := end(createapi.Unknown, "", "the search never answered")
			return st, true, err
		}
		return "", false, nil
	}
	if doubt && !pa.resendInDoubt {
		if st, done, err := clear(); done {
			return st, err
		}
		doubt = false
	}
	var floor time.Duration
	last := cNotSent
	for n := 0; n < 30; n++ {
		if n > 0 {
			if n >= 3 && time.Since(start) > 45*time.Minute {
				break
			}
			if err := sleep(pauseFor(last, n, floor)); err != nil {
				return quit(err)
			}
			floor = 0
		}
		if doubt && pa.resendInDoubt && !time.Now().Add(f.LandsWithin).Before(plan.SavedAt.Add(f.KeyLifetime)) {
			return settleByProbe("the key may be forgotten")
		}
		if err := claim(); err != nil {
			return quit(err)
		}
		at := time.Now()
		pay, err := vendor.Create(ctx, plan.Request)
		c, ra := classify(err)
		last = c
		switch c {
		case cSent:
			return end(createapi.Created, pay.ID, "")
		case cNotSent:
		case cWait:
			floor = ra
		case cRefused:
			if doubt {
				return end(createapi.Unknown, "", "refused after doubt")
			}
			return end(createapi.Failed, "", err.Error())
		case cReplay:
			return settleByProbe("saved server error replayed")
		case cMaybe:
			doubt, doubtSince = true, at
			if !pa.resendInDoubt {
				if st, done, err := clear(); done {
					return st, err
				}
				doubt = false
			}
		default:
			return end(createapi.Unknown, "", err.Error())
		}
	}
	if doubt {
		return end(createapi.Unknown, "", "gave up in doubt")
	}
	return end(createapi.Failed, "", "gave up; nothing was carried out")
}

func quit(err error) (createapi.Status, error) {
	if errors.Is(err, errYielded) {
		return createapi.Pending, nil
	}
	return createapi.Pending, err
}
