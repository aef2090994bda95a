package grading

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// leaseStore is a store of leases for Leases's tests: the runs it renews
// for the owner, and a hook run during a renewal.
type leaseStore struct {
	mu       sync.Mutex
	owned    []string // the runs the store still gives this owner
	expired  []string // what Expire finishes (once)
	duringRe func()   // called inside each renewal
}

func (s *leaseStore) config(ctx context.Context, wg *sync.WaitGroup) LeasesConfig[string] {
	return LeasesConfig[string]{
		Renew: func(context.Context, string, time.Duration) ([]string, error) {
			if s.duringRe != nil {
				s.duringRe()
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			return slices.Clone(s.owned), nil
		},
		Expire: func(context.Context) ([]string, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			out := s.expired
			s.expired = nil
			return out, nil
		},
		Owner: "A", Lease: time.Hour, Ctx: ctx, WG: wg,
	}
}

// TestLeasesStopOnlyRunsTakenOver: a beat cancels the grading of a run the
// store no longer renews for this instance, and only that: not a run
// whose grading has returned (its end is being recorded), nor one held
// while the renewal ran (recorded too late for it), nor one renewed; it
// passes dead instances' runs to OnExpired.
func TestLeasesStopOnlyRunsTakenOver(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	store := &leaseStore{owned: []string{"renewed"}, expired: []string{"dead-1"}}
	cfg := store.config(ctx, &wg)
	var announced []string
	cfg.OnExpired = func(_ context.Context, ids []string) { announced = append(announced, ids...) }
	ls := NewLeases(cfg)

	cancelled := map[string]bool{}
	var mu sync.Mutex
	hold := func(id string) *Lease[string] {
		return ls.Hold(id, func() { mu.Lock(); cancelled[id] = true; mu.Unlock() })
	}
	renewed, taken, finishing := hold("renewed"), hold("taken"), hold("finishing")
	if ls.Finishing(finishing) {
		t.Error("a run nobody took reported taken")
	}
	store.duringRe = func() {
		store.duringRe = nil
		hold("late") // recorded after the renewal read the store
	}
	ls.Beat()

	mu.Lock()
	got := cancelled
	mu.Unlock()
	if !got["taken"] || got["renewed"] || got["finishing"] || got["late"] {
		t.Errorf("cancelled %v; want the taken run's alone", got)
	}
	if !ls.Finishing(taken) {
		t.Error("the taken run's Finishing did not say it was taken")
	}
	if ls.Finishing(renewed) {
		t.Error("a renewed run reported taken")
	}
	if !slices.Equal(announced, []string{"dead-1"}) {
		t.Errorf("OnExpired got %v; want the dead instance's run", announced)
	}
	for _, l := range []*Lease[string]{renewed, taken, finishing} {
		ls.Drop(l)
	}
}

// TestInstanceIDIsOnePerProcess: every caller gets the same owner name.
func TestInstanceIDIsOnePerProcess(t *testing.T) {
	if a, b := InstanceID(), InstanceID(); a != b || a == "" {
		t.Errorf("InstanceID() = %q then %q; want one non-empty id", a, b)
	}
}
