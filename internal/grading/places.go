package grading

import (
	"errors"
	"sync"
)

// ErrAddressBusy refuses a grading to a client address that has its
// maximum going.
var ErrAddressBusy = errors.New("grading: this address has its maximum of gradings going")

// ErrReplayGoing refuses a replay (a what-if, a passed scenario's run) to
// an identity that has one going: each is a grading of its own, and one at
// a time keeps an identity from filling its address's places alone.
var ErrReplayGoing = errors.New("grading: this identity has a replay going")

// ErrStopped refuses a grading once the server is shutting down.
var ErrStopped = errors.New("grading: grading has stopped: the server is shutting down")

// Places are one instance's grading places: one per identity (its Grade
// or Check) and a limit per client address counted over everything it
// grades here, a room's Run included. R is what a caller keeps with an
// identity's place (the web's run in progress). The store holds the same
// limits across instances for the runs it records (storage.GradeClaim).
type Places[R any] struct {
	mu     sync.Mutex
	byUser map[string]*Place[R]
	byAddr map[string]int // places held per client address (clientaddr.Key)
	// replays are the identities with a replay going (HoldReplay), apart
	// from their places: a replay may run beside the identity's Grade.
	replays map[string]bool
	closed  bool
}

// Place is an identity's place, held from Claim until Release.
type Place[R any] struct {
	User, Addr string
	Run        R
}

// NewPlaces makes an instance's empty places.
func NewPlaces[R any]() *Places[R] {
	return &Places[R]{byUser: map[string]*Place[R]{}, byAddr: map[string]int{}, replays: map[string]bool{}}
}

// Claim takes user's one place and one of addr's, which may have
// perAddress at once (ErrAddressBusy past them). When user already holds
// a place it returns that one instead, and a nil claim.
func (p *Places[R]) Claim(user, addr string, perAddress int, run R) (claimed, existing *Place[R], err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, nil, ErrStopped
	}
	if pl := p.byUser[user]; pl != nil {
		return nil, pl, nil
	}
	if p.byAddr[addr] >= perAddress {
		return nil, nil, ErrAddressBusy
	}
	pl := &Place[R]{User: user, Addr: addr, Run: run}
	p.byUser[user] = pl
	p.byAddr[addr]++
	return pl, nil, nil
}

// Release gives a claimed place back; a place already released is left
// alone.
func (p *Places[R]) Release(pl *Place[R]) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byUser[pl.User] != pl {
		return
	}
	delete(p.byUser, pl.User)
	p.releaseAddrLocked(pl.Addr)
}

func (p *Places[R]) releaseAddrLocked(addr string) {
	if p.byAddr[addr]--; p.byAddr[addr] <= 0 {
		delete(p.byAddr, addr)
	}
}

// Of is the place user holds, or nil.
func (p *Places[R]) Of(user string) *Place[R] {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byUser[user]
}

// HoldAddress takes one of addr's places for a grading that is no
// identity's own (a room's Run); release gives it back (once; later calls
// do nothing).
func (p *Places[R]) HoldAddress(addr string, perAddress int) (release func(), err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrStopped
	}
	if p.byAddr[addr] >= perAddress {
		return nil, ErrAddressBusy
	}
	p.byAddr[addr]++
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.releaseAddrLocked(addr)
		})
	}, nil
}

// HoldReplay takes user's one replay place and one of addr's places
// (ErrReplayGoing when user has a replay going, ErrAddressBusy when addr
// has perAddress gradings going); release gives both back (once; later
// calls do nothing).
func (p *Places[R]) HoldReplay(user, addr string, perAddress int) (release func(), err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return nil, ErrStopped
	case p.replays[user]:
		return nil, ErrReplayGoing
	case p.byAddr[addr] >= perAddress:
		return nil, ErrAddressBusy
	}
	p.replays[user] = true
	p.byAddr[addr]++
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			delete(p.replays, user)
			p.releaseAddrLocked(addr)
		})
	}, nil
}

// Close refuses every claim from now on.
func (p *Places[R]) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
}

// Users is how many identities hold a place.
func (p *Places[R]) Users() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byUser)
}
