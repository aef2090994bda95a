// Package client is a correct create client in this style: generics (a
// clamp over a ~int64 type set instantiated with time.Duration, a generic
// "first where" over search results, a generic result type), one strategy
// per kind of vendor in a package-level map of funcs keyed by the kind, a
// 12-minute lease renewed before each send and the write, decorrelated
// jitter. Written for the strangers' round of 6 December 2026 from the page,
// the starter and createapi only.
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

type durationish interface{ ~int64 }

func clamp[D durationish](v, lo, hi D) D {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func firstWhere[T any](xs []T, ok func(T) bool) (T, bool) {
	for _, x := range xs {
		if ok(x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}

// settled is a verdict: the status to record, with its payment id and note.
type settled[S ~string] struct {
	status  S
	payment string
	note    string
}

type kind int

const (
	kindKeys kind = iota
	kindRefs
	kindBare
)

type state struct {
	ctx    context.Context
	store  createapi.Store
	vendor createapi.Vendor
	id     string
	feat   createapi.Features
	req    createapi.Request
	begun  time.Time

	inDoubt    bool
	doubtFrom  time.Time
	doubtUntil time.Time // the latest send in doubt
	keySince   time.Time
	sent       int
	lastWait   time.Duration
	lost       bool  // the claim went to another worker
	storeErr   error // a store call failed
}

type verdict = settled[createapi.Status]

var strategies = map[kind]func(*state) verdict{
	kindKeys: func(s *state) verdict { return s.withKeys() },
	kindRefs: func(s *state) verdict { return s.withRefs() },
	kindBare: func(s *state) verdict { return s.bare() },
}

const (
	claimFor   = 12 * time.Minute
	fewest     = 5
	most       = 15
	deadline   = 45 * time.Minute
	firstPause = 800 * time.Millisecond
	longest    = 90 * time.Second
)

// CreatePayment creates the operation's payment at most once.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, fmt.Errorf("get %s: %w", operationID, err)
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	if ok, err := store.Claim(ctx, operationID, claimFor); err != nil {
		return createapi.Pending, fmt.Errorf("claim %s: %w", operationID, err)
	} else if !ok {
		return createapi.Pending, nil
	}
	s := &state{ctx: ctx, store: store, vendor: vendor, id: operationID, feat: vendor.Features(), begun: time.Now(), lastWait: firstPause}
	if op.Plan != nil {
		s.req, s.keySince = op.Plan.Request, op.Plan.SavedAt
		s.doubt(time.Now())
	} else {
		tag := op.ID + "~" + strconv.FormatInt(rand.Int63(), 36)
		mine := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo, IdempotencyKey: tag, Reference: tag}
		plan, err := store.SavePlan(ctx, operationID, mine)
		if err != nil {
			return createapi.Pending, fmt.Errorf("save plan %s: %w", operationID, err)
		}
		s.req = plan.Request
		if plan.Request != mine {
			s.keySince = plan.SavedAt
			s.doubt(time.Now())
		}
	}
	k := kindBare
	if s.feat.IdempotencyKeys {
		k = kindKeys
	} else if s.feat.References {
		k = kindRefs
	}
	v := strategies[k](s)
	if s.storeErr != nil {
		return createapi.Pending, fmt.Errorf("store, for %s: %w", operationID, s.storeErr)
	}
	if s.lost || !s.renew() {
		if s.storeErr != nil {
			return createapi.Pending, fmt.Errorf("store, for %s: %w", operationID, s.storeErr)
		}
		return createapi.Pending, nil
	}
	if err := store.Finish(ctx, operationID, v.status, v.payment, v.note); err != nil {
		return createapi.Pending, fmt.Errorf("finish %s: %w", operationID, err)
	}
	return v.status, nil
}

func (s *state) doubt(at time.Time) {
	if !s.inDoubt {
		s.doubtFrom = at
	}
	s.inDoubt, s.doubtUntil = true, at
}

func (s *state) renew() bool {
	ok, err := s.store.Claim(s.ctx, s.id, claimFor)
	if err != nil {
		s.storeErr = err
		return false
	}
	if !ok {
		s.lost = true
	}
	return ok
}

func (s *state) pause(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
	case <-t.C:
	}
}

// nextPause: decorrelated jitter between firstPause and three times the last
// pause, clamped, never under a Retry-After.
func (s *state) nextPause(err error) time.Duration {
	hi := clamp(s.lastWait*3, firstPause+1, longest)
	d := firstPause + time.Duration(rand.Int63n(int64(hi-firstPause)))
	s.lastWait = d
	var he *createapi.HTTPError
	if errors.As(err, &he) && he.RetryAfter > 0 && d < he.RetryAfter {
		d = he.RetryAfter + time.Duration(rand.Int63n(int64(firstPause)))
	}
	return d
}

type answer int

const (
	ansCreated answer = iota
	ansNothing        // connect error, 408, 429: nothing ran
	ansMaybe          // timeout, 409, fresh 5xx
	ansReplay         // a saved 5xx replayed: nothing ran now
	ansRefused        // 400, 422 (and any other 4xx)
	ansLost           // the claim is gone
)

// fire renews the claim, sends the plan and says what the answer proves.
func (s *state) fire() (createapi.Payment, answer, error) {
	if !s.renew() {
		return createapi.Payment{}, ansLost, nil
	}
	at := time.Now()
	if s.keySince.IsZero() {
		s.keySince = at
	}
	s.sent++
	p, err := s.vendor.Create(s.ctx, s.req)
	if err == nil {
		return p, ansCreated, nil
	}
	var ce *createapi.ConnectError
	var te *createapi.TimeoutError
	var he *createapi.HTTPError
	a := ansMaybe
	switch {
	case errors.As(err, &ce):
		a = ansNothing
	case errors.As(err, &te):
	case errors.As(err, &he):
		switch {
		case he.Replayed:
			a = ansReplay
		case he.Status == 408 || he.Status == 429:
			a = ansNothing
		case he.Status == 409 || he.Status >= 500:
		default:
			a = ansRefused
		}
	}
	if a == ansMaybe {
		s.doubt(at)
	}
	return p, a, err
}

func (s *state) enough() bool {
	if s.sent >= most || time.Since(s.begun) > deadline {
		return true
	}
	return s.sent >= fewest && (!s.inDoubt || time.Now().After(s.doubtFrom.Add(s.feat.LandsWithin)))
}

func (s *state) keyFresh() bool {
	return s.keySince.IsZero() || time.Now().Add(s.feat.LandsWithin).Before(s.keySince.Add(s.feat.KeyLifetime))
}

func (s *state) withKeys() verdict {
	for s.keyFresh() {
		p, a, err := s.fire()
		switch a {
		case ansCreated:
			return verdict{createapi.Created, p.ID, ""}
		case ansLost:
			return verdict{}
		case ansReplay:
			return s.closeOut("saved 5xx replayed")
		case ansRefused:
			if s.inDoubt {
				return s.closeOut("refused after doubt: " + err.Error())
			}
			return verdict{createapi.Failed, "", err.Error()}
		}
		if s.enough() {
			return s.closeOut("no final answer: " + err.Error())
		}
		s.pause(s.nextPause(err))
	}
	return s.closeOut("key past its lifetime")
}

// closeOut decides once nothing more will be sent.
func (s *state) closeOut(why string) verdict {
	if !s.inDoubt {
		return verdict{createapi.Failed, "", why}
	}
	if !s.feat.References {
		return verdict{createapi.Unknown, "", why}
	}
	p, found, answered := s.lookUp()
	switch {
	case !answered:
		return verdict{createapi.Unknown, "", why + "; search failed"}
	case found:
		return verdict{createapi.Created, p.ID, ""}
	}
	return verdict{createapi.Failed, "", why + "; absent from a search that caught up"}
}

func (s *state) lookUp() (createapi.Payment, bool, bool) {
	if d := time.Until(s.doubtUntil.Add(s.feat.LandsWithin + s.feat.SearchLag + 500*time.Millisecond)); d > 0 {
		s.pause(d)
	}
	for try := 0; try < 5; try++ {
		if try > 0 {
			s.pause(clamp(time.Duration(try)*10*time.Second, time.Second, time.Minute))
		}
		list, err := s.vendor.Search(s.ctx, s.req.Reference)
		if err != nil {
			continue
		}
		p, ok := firstWhere(list, func(p createapi.Payment) bool { return p.Reference == s.req.Reference })
		return p, ok, true
	}
	return createapi.Payment{}, false, false
}

func (s *state) withRefs() verdict {
	for {
		if s.inDoubt {
			p, found, answered := s.lookUp()
			if !answered {
				return verdict{createapi.Unknown, "", "no search answered"}
			}
			if found {
				return verdict{createapi.Created, p.ID, ""}
			}
			s.inDoubt = false
		}
		if s.sent >= fewest || time.Since(s.begun) > deadline {
			return verdict{createapi.Failed, "", "attempts used up; none can have landed"}
		}
		p, a, err := s.fire()
		switch a {
		case ansCreated:
			return verdict{createapi.Created, p.ID, ""}
		case ansLost:
			return verdict{}
		case ansRefused, ansReplay:
			return verdict{createapi.Failed, "", err.Error()}
		case ansNothing:
			s.pause(s.nextPause(err))
		}
	}
}

func (s *state) bare() verdict {
	if s.inDoubt {
		return verdict{createapi.Unknown, "", "a plan found at start may have been sent"}
	}
	for {
		if s.sent >= fewest || time.Since(s.begun) > deadline {
			return verdict{createapi.Failed, "", "nothing was ever sent"}
		}
		p, a, err := s.fire()
		switch a {
		case ansCreated:
			return verdict{createapi.Created, p.ID, ""}
		case ansLost:
			return verdict{}
		case ansMaybe:
			return verdict{createapi.Unknown, "", err.Error()}
		case ansRefused, ansReplay:
			return verdict{createapi.Failed, "", err.Error()}
		}
		s.pause(s.nextPause(err))
	}
}
