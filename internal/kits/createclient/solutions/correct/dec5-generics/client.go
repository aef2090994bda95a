// Package client is a correct create client in this style: generics: a
// type-set constraint (~int64) instantiated with time.Duration, a generic
// Maybe, and a generic retry driver whose step returns a decision; equal
// jitter; a seven-minute lease. Written for the strangers' round of 5
// December 2026 from the page, the starter and createapi only.
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

type integer interface{ ~int64 }

func clamp[T integer](v, lo, hi T) T {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func larger[T integer](a, b T) T {
	if a > b {
		return a
	}
	return b
}

type maybe[T any] struct {
	val T
	ok  bool
}

func some[T any](v T) maybe[T] { return maybe[T]{val: v, ok: true} }

type decision int

const (
	retry decision = iota
	settle
)

// loop calls body until it settles, the tries run out, or it fails.
func loop[R any](tries int, pause func(int) time.Duration, body func(int) (decision, R, error)) (R, bool, error) {
	var zero R
	for i := 0; i < tries; i++ {
		if i > 0 {
			time.Sleep(pause(i))
		}
		d, r, err := body(i)
		if err != nil {
			return zero, false, err
		}
		if d == settle {
			return r, true, nil
		}
	}
	return zero, false, nil
}

const leaseFor = 7 * time.Minute

var errGone = errors.New("claim lost")

type verdict struct {
	st   createapi.Status
	pay  string
	note string
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	t0 := time.Now()
	if ok, err := store.Claim(ctx, operationID, leaseFor); err != nil || !ok {
		return createapi.Pending, err
	}
	last := time.Now()
	keep := func() error {
		if time.Since(last) < 2*time.Minute {
			return nil
		}
		ok, err := store.Claim(ctx, operationID, leaseFor)
		if err == nil && !ok {
			err = errGone
		}
		if err == nil {
			last = time.Now()
		}
		return err
	}
	rest := func(d time.Duration) error {
		for d > 0 {
			s := clamp[time.Duration](d, 0, time.Minute)
			time.Sleep(s)
			d -= s
			if err := keep(); err != nil {
				return err
			}
		}
		return nil
	}
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	feat := vendor.Features()
	doubtful := op.Plan != nil
	var plan createapi.Plan
	if doubtful {
		plan = *op.Plan
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		token := strconvID(op.ID)
		if feat.IdempotencyKeys {
			req.IdempotencyKey = "idem-" + token
		}
		if feat.References {
			req.Reference = "ref-" + token
		}
		if plan, err = store.SavePlan(ctx, operationID, req); err != nil {
			return createapi.Pending, err
		}
		doubtful = plan.Request != req
	}
	since := time.Now()

	find := func() (maybe[createapi.Payment], error) {
		if err := rest(time.Until(since.Add(feat.LandsWithin + feat.SearchLag + time.Second))); err != nil {
			return maybe[createapi.Payment]{}, err
		}
		pause := func(i int) time.Duration {
			return clamp[time.Duration](time.Duration(i)*20*time.Second, time.Second, 10*time.Minute)
		}
		r, ok, err := loop[maybe[createapi.Payment]](40, pause, func(i int) (decision, maybe[createapi.Payment], error) {
			if err := keep(); err != nil {
				return settle, maybe[createapi.Payment]{}, err
			}
			got, err := vendor.Search(ctx, plan.Request.Reference)
			if err != nil {
				return retry, maybe[createapi.Payment]{}, nil
			}
			for _, p := range got {
				if p.Reference == plan.Request.Reference {
					return settle, some[createapi.Payment](p), nil
				}
			}
			return settle, maybe[createapi.Payment]{}, nil
		})
		if err != nil {
			return maybe[createapi.Payment]{}, err
		}
		if !ok {
			return maybe[createapi.Payment]{}, errors.New("the search kept failing")
		}
		return r, nil
	}
	// byReference: a verdict from a search, or ok=false when the search proved
	// absence (a resend is then safe).
	byReference := func(why string) (verdict, bool, error) {
		m, err := find()
		if errors.Is(err, errGone) {
			return verdict{}, true, err
		}
		if err != nil {
			return verdict{createapi.Unknown, "", why + ": " + err.Error()}, true, nil
		}
		if m.ok {
			return verdict{createapi.Created, m.val.ID, "found by reference"}, true, nil
		}
		return verdict{createapi.Unknown, "", why}, false, nil
	}

	var v verdict
	decided := false
	if doubtful && !feat.IdempotencyKeys {
		if !feat.References {
			v, decided = verdict{createapi.Unknown, "", "an earlier plan may have been sent"}, true
		} else {
			v, decided, err = byReference("an earlier plan may have been sent")
			if decided {
				doubtful = true
			} else {
				doubtful = false
			}
		}
	}
	if !decided {
		var floor time.Duration
		pause := func(i int) time.Duration {
			c := clamp[time.Duration](time.Second<<uint(i), time.Second, 2*time.Minute)
			return larger[time.Duration](c/2+time.Duration(rand.Int63n(int64(c/2))), floor)
		}
		v, decided, err = loop[verdict](30, pause, func(i int) (decision, verdict, error) {
			floor = 0
			if i >= 3 && time.Since(t0) > 40*time.Minute {
				return settle, verdict{}, nil // an empty verdict: out of time
			}
			if err := keep(); err != nil {
				return settle, verdict{}, err
			}
			if doubtful && feat.IdempotencyKeys && time.Now().Add(feat.LandsWithin).After(plan.SavedAt.Add(feat.KeyLifetime)) {
				if feat.References {
					v, _, err := byReference("the key is too old to resend under")
					return settle, v, err
				}
				return settle, verdict{createapi.Unknown, "", "the key is too old to resend under"}, nil
			}
			at := time.Now()
			p, err := vendor.Create(ctx, plan.Request)
			if err == nil {
				return settle, verdict{createapi.Created, p.ID, ""}, nil
			}
			var ce *createapi.ConnectError
			var he *createapi.HTTPError
			if errors.As(err, &ce) {
				return retry, verdict{}, nil
			}
			if errors.As(err, &he) {
				switch {
				case he.Status == 408 || he.Status == 429:
					floor = he.RetryAfter
					return retry, verdict{}, nil
				case he.Status == 400 || he.Status == 422:
					if doubtful {
						return settle, verdict{createapi.Unknown, "", "refused after doubt"}, nil
					}
					return settle, verdict{createapi.Failed, "", err.Error()}, nil
				case he.Status >= 500 && he.Replayed:
					doubtful = true
					if feat.References {
						v, _, err := byReference("a saved server error is replayed")
						return settle, v, err
					}
					return settle, verdict{createapi.Unknown, "", "a saved server error is replayed"}, nil
				case he.Status != 409 && he.Status < 500:
					return settle, verdict{createapi.Unknown, "", err.Error()}, nil
				}
			}
			doubtful, since = true, at
			if feat.IdempotencyKeys {
				return retry, verdict{}, nil
			}
			if !feat.References {
				return settle, verdict{createapi.Unknown, "", "no way to tell if it landed"}, nil
			}
			v, ok, err := byReference("not found")
			if err != nil || ok {
				return settle, v, err
			}
			doubtful = false
			return retry, verdict{}, nil
		})
		if errors.Is(err, errGone) {
			return createapi.Pending, nil
		}
		if err != nil {
			return createapi.Pending, err
		}
	} else if errors.Is(err, errGone) {
		return createapi.Pending, nil
	} else if err != nil {
		return createapi.Pending, err
	}
	if v.st == "" {
		v = verdict{createapi.Failed, "", "gave up; nothing was carried out"}
		if doubtful {
			v = verdict{createapi.Unknown, "", "gave up in doubt"}
		}
	}
	if err := keep(); err != nil {
		if errors.Is(err, errGone) {
			return createapi.Pending, nil
		}
		return createapi.Pending, err
	}
	if err := store.Finish(ctx, operationID, v.st, v.pay, v.note); err != nil {
		return createapi.Pending, err
	}
	return v.st, nil
}

// strconvID makes a token unique to this operation and this plan.
func strconvID(id string) string {
	return fmt.Sprintf("%s.%x", id, rand.Uint32())
}
