// Package client is the dec5-strategies client with one defect: the lease is
// twenty minutes ("longer is safer").
//
// It breaks: "No claim is taken for more than 15 minutes (Q1)".
//
// defect: lease-bound
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

const holdFor = 20 * time.Minute

var errNotOurs = errors.New("claim taken over")

type session struct {
	ctx     context.Context
	store   createapi.Store
	vendor  createapi.Vendor
	id      string
	feat    createapi.Features
	plan    createapi.Plan
	claimed time.Time
	began   time.Time
	inDoubt bool
	sentAt  time.Time // when the latest attempt that may have landed was sent
}

type outcome struct {
	status  createapi.Status
	payment string
	note    string
}

type strategy interface {
	run(s *session) (outcome, error)
}

func (s *session) hold() error {
	if time.Since(s.claimed) < 6*time.Minute {
		return nil
	}
	ok, err := s.store.Claim(s.ctx, s.id, holdFor)
	if err != nil {
		return err
	}
	if !ok {
		return errNotOurs
	}
	s.claimed = time.Now()
	return nil
}

func (s *session) nap(d time.Duration) error {
	for d > 0 {
		n := d
		if n > 3*time.Minute {
			n = 3 * time.Minute
		}
		time.Sleep(n)
		d -= n
		if err := s.hold(); err != nil {
			return err
		}
	}
	return s.hold()
}

func (s *session) backoff(n int, floor time.Duration) time.Duration {
	c := 800 * time.Millisecond << uint(n)
	if c > 90*time.Second || c <= 0 {
		c = 90 * time.Second
	}
	d := time.Duration(rand.Int63n(int64(c))) + 50*time.Millisecond
	if d < floor {
		d = floor
	}
	return d
}

// kind sorts an error: "none" never reached the vendor, "wait" did nothing
// and names a pause, "refused" was read and refused, "maybe" may have landed,
// "replayed" is a saved 5xx.
func kind(err error) (string, time.Duration) {
	var ce *createapi.ConnectError
	var te *createapi.TimeoutError
	var he *createapi.HTTPError
	switch {
	case errors.As(err, &ce):
		return "none", 0
	case errors.As(err, &te):
		return "maybe", 0
	case !errors.As(err, &he):
		return "strange", 0
	case he.Status == 408, he.Status == 429:
		return "wait", he.RetryAfter
	case he.Status == 400, he.Status == 422:
		return "refused", 0
	case he.Status >= 500 && he.Replayed:
		return "replayed", 0
	case he.Status == 409, he.Status >= 500:
		return "maybe", 0
	}
	return "strange", 0
}

// lookUp searches once everything sent by sentAt could show. nil, nil:
// proven absent.
func (s *session) lookUp() (*createapi.Payment, error) {
	if err := s.nap(time.Until(s.sentAt.Add(s.feat.LandsWithin + s.feat.SearchLag).Add(500 * time.Millisecond))); err != nil {
		return nil, err
	}
	for n := 0; ; n++ {
		got, err := s.vendor.Search(s.ctx, s.plan.Request.Reference)
		if err == nil {
			for _, p := range got {
				if p.Reference == s.plan.Request.Reference {
					p := p
					return &p, nil
				}
			}
			return nil, nil
		}
		if time.Since(s.began) > 2*time.Hour+30*time.Minute {
			return nil, fmt.Errorf("search: %w", err)
		}
		if err := s.nap(s.backoff(n+3, 0)); err != nil {
			return nil, err
		}
	}
}

func (s *session) afterLookUp(why string) (outcome, error) {
	p, err := s.lookUp()
	if errors.Is(err, errNotOurs) {
		return outcome{}, err
	}
	if err != nil {
		return outcome{createapi.Unknown, "", why + "; " + err.Error()}, nil
	}
	if p != nil {
		return outcome{createapi.Created, p.ID, "found by its reference"}, nil
	}
	return outcome{createapi.Unknown, "", why}, nil
}

type keyed struct{}

func (keyed) run(s *session) (outcome, error) {
	floor := time.Duration(0)
	for n := 0; n < 25; n++ {
		if n > 0 {
			if n >= 3 && time.Since(s.began) > 45*time.Minute {
				break
			}
			if err := s.nap(s.backoff(n, floor)); err != nil {
				return outcome{}, err
			}
			floor = 0
		}
		if s.inDoubt && time.Now().Add(s.feat.LandsWithin).After(s.plan.SavedAt.Add(s.feat.KeyLifetime)) {
			if s.feat.References {
				return s.afterLookUp("the key is too old to resend under")
			}
			return outcome{createapi.Unknown, "", "the key is too old to resend under"}, nil
		}
		if err := s.hold(); err != nil {
			return outcome{}, err
		}
		at := time.Now()
		p, err := s.vendor.Create(s.ctx, s.plan.Request)
		if err == nil {
			return outcome{createapi.Created, p.ID, ""}, nil
		}
		k, ra := kind(err)
		switch k {
		case "wait":
			floor = ra
		case "refused":
			if s.inDoubt {
				return outcome{createapi.Unknown, "", "refused after doubt: " + err.Error()}, nil
			}
			return outcome{createapi.Failed, "", err.Error()}, nil
		case "replayed":
			s.inDoubt = true
			if s.feat.References {
				return s.afterLookUp("a saved server error is replayed")
			}
			return outcome{createapi.Unknown, "", "a saved server error is replayed"}, nil
		case "maybe":
			s.inDoubt, s.sentAt = true, at
		case "strange":
			return outcome{createapi.Unknown, "", err.Error()}, nil
		}
	}
	if s.inDoubt {
		return outcome{createapi.Unknown, "", "gave up in doubt"}, nil
	}
	return outcome{createapi.Failed, "", "gave up; nothing was carried out"}, nil
}

type referenced struct{}

func (referenced) run(s *session) (outcome, error) {
	if s.inDoubt {
		p, err := s.lookUp()
		if err != nil {
			if errors.Is(err, errNotOurs) {
				return outcome{}, err
			}
			return outcome{createapi.Unknown, "", err.Error()}, nil
		}
		if p != nil {
			return outcome{createapi.Created, p.ID, "found by its reference"}, nil
		}
		s.inDoubt = false
	}
	floor := time.Duration(0)
	for n := 0; n < 12; n++ {
		if n > 0 {
			if n >= 3 && time.Since(s.began) > 45*time.Minute {
				break
			}
			if err := s.nap(s.backoff(n, floor)); err != nil {
				return outcome{}, err
			}
			floor = 0
		}
		if err := s.hold(); err != nil {
			return outcome{}, err
		}
		at := time.Now()
		p, err := s.vendor.Create(s.ctx, s.plan.Request)
		if err == nil {
			return outcome{createapi.Created, p.ID, ""}, nil
		}
		k, ra := kind(err)
		switch k {
		case "wait":
			floor = ra
		case "refused":
			return outcome{createapi.Failed, "", err.Error()}, nil
		case "maybe", "replayed":
			s.sentAt = at
			p, err := s.lookUp()
			if err != nil {
				if errors.Is(err, errNotOurs) {
					return outcome{}, err
				}
				return outcome{createapi.Unknown, "", err.Error()}, nil
			}
			if p != nil {
				return outcome{createapi.Created, p.ID, "found by its reference"}, nil
			}
		case "strange":
			return outcome{createapi.Unknown, "", err.Error()}, nil
		}
	}
	return outcome{createapi.Failed, "", "gave up; nothing was carried out"}, nil
}

type bare struct{}

func (bare) run(s *session) (outcome, error) {
	if s.inDoubt {
		return outcome{createapi.Unknown, "", "planned before: it may have been sent"}, nil
	}
	floor := time.Duration(0)
	for n := 0; n < 12; n++ {
		if n > 0 {
			if n >= 3 && time.Since(s.began) > 45*time.Minute {
				break
			}
			if err := s.nap(s.backoff(n, floor)); err != nil {
				return outcome{}, err
			}
			floor = 0
		}
		if err := s.hold(); err != nil {
			return outcome{}, err
		}
		p, err := s.vendor.Create(s.ctx, s.plan.Request)
		if err == nil {
			return outcome{createapi.Created, p.ID, ""}, nil
		}
		k, ra := kind(err)
		switch k {
		case "none":
		case "wait":
			floor = ra
		case "refused":
			return outcome{createapi.Failed, "", err.Error()}, nil
		default:
			return outcome{createapi.Unknown, "", "sent, no clear answer: " + err.Error()}, nil
		}
	}
	return outcome{createapi.Failed, "", "gave up; nothing was carried out"}, nil
}

func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	s := &session{ctx: ctx, store: store, vendor: vendor, id: operationID, began: time.Now()}
	ok, err := store.Claim(ctx, operationID, holdFor)
	if err != nil {
		return createapi.Pending, err
	}
	if !ok {
		return createapi.Pending, nil
	}
	s.claimed = time.Now()
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	if op.Status != createapi.Pending {
		return op.Status, nil
	}
	s.feat = vendor.Features()
	if op.Plan != nil {
		s.plan = *op.Plan
		s.inDoubt, s.sentAt = true, time.Now()
	} else {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		name := fmt.Sprintf("pay_%s_%d", op.ID, rand.Int63())
		if s.feat.IdempotencyKeys {
			req.IdempotencyKey = name
		}
		if s.feat.References {
			req.Reference = name
		}
		s.plan, err = store.SavePlan(ctx, operationID, req)
		if err != nil {
			return createapi.Pending, err
		}
		if s.plan.Request != req {
			s.inDoubt, s.sentAt = true, time.Now()
		}
	}
	var st strategy = bare{}
	switch {
	case s.feat.IdempotencyKeys:
		st = keyed{}
	case s.feat.References:
		st = referenced{}
	}
	out, err := st.run(s)
	if errors.Is(err, errNotOurs) {
		return createapi.Pending, nil
	}
	if err != nil {
		return createapi.Pending, err
	}
	if err := s.hold(); err != nil {
		if errors.Is(err, errNotOurs) {
			return createapi.Pending, nil
		}
		return createapi.Pending, err
	}
	if err := store.Finish(ctx, operationID, out.status, out.payment, out.note); err != nil {
		return createapi.Pending, err
	}
	return out.status, nil
}
