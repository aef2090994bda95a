package grading

import (
	"errors"
	"testing"
)

// Places: one per identity, a limit per address counted over identities'
// places and room runs' holds together, each given back once.
func TestPlaces(t *testing.T) {
	p := NewPlaces[string]()
	a, _, err := p.Claim("u1", "addr", 2, "run-a")
	if err != nil || a == nil {
		t.Fatalf("first claim: %v, %v", a, err)
	}
	if got, existing, err := p.Claim("u1", "addr", 2, "run-b"); got != nil || existing != a || err != nil {
		t.Fatalf("the same user again: %v, %v, %v; want the first place back", got, existing, err)
	}
	release, err := p.HoldAddress("addr", 2)
	if err != nil {
		t.Fatalf("a room's hold: %v", err)
	}
	if _, _, err := p.Claim("u2", "addr", 2, "run-c"); !errors.Is(err, ErrAddressBusy) {
		t.Fatalf("a third grading from the address: %v; want ErrAddressBusy", err)
	}
	if _, err := p.HoldAddress("addr", 2); !errors.Is(err, ErrAddressBusy) {
		t.Fatalf("a third hold from the address: %v; want ErrAddressBusy", err)
	}
	if _, _, err := p.Claim("u3", "other", 2, "run-d"); err != nil {
		t.Fatalf("another address: %v", err)
	}
	release()
	release() // once only
	p.Release(a)
	p.Release(a)
	if p.Users() != 1 {
		t.Errorf("users = %d; want 1 (u3)", p.Users())
	}
	for range 2 {
		if _, err := p.HoldAddress("addr", 2); err != nil {
			t.Fatalf("holds once everything was given back: %v", err)
		}
	}
	p.Close()
	if _, _, err := p.Claim("u4", "new", 2, "run-e"); !errors.Is(err, ErrStopped) {
		t.Errorf("a claim after Close: %v; want ErrStopped", err)
	}
}

// HoldReplay: one replay per identity, beside its Grade, counted in its
// address's places with everything else; given back once.
func TestPlacesHoldReplay(t *testing.T) {
	p := NewPlaces[string]()
	if _, _, err := p.Claim("u1", "addr", 3, "grade"); err != nil {
		t.Fatal(err)
	}
	release, err := p.HoldReplay("u1", "addr", 3)
	if err != nil {
		t.Fatalf("a replay beside the identity's grade: %v", err)
	}
	if _, err := p.HoldReplay("u1", "other", 3); !errors.Is(err, ErrReplayGoing) {
		t.Fatalf("a second replay of the identity: %v; want ErrReplayGoing", err)
	}
	second, err := p.HoldReplay("u2", "addr", 3)
	if err != nil {
		t.Fatalf("another identity's replay: %v", err)
	}
	if _, err := p.HoldReplay("u3", "addr", 3); !errors.Is(err, ErrAddressBusy) {
		t.Fatalf("a fourth grading from the address: %v; want ErrAddressBusy", err)
	}
	if _, _, err := p.Claim("u3", "addr", 3, "grade"); !errors.Is(err, ErrAddressBusy) {
		t.Fatalf("a grade past the address's places: %v; want ErrAddressBusy", err)
	}
	release()
	release() // once only
	again, err := p.HoldReplay("u1", "addr", 3)
	if err != nil {
		t.Fatalf("a replay once the first was given back: %v", err)
	}
	again()
	second()
	p.Close()
	if _, err := p.HoldReplay("u1", "addr", 3); !errors.Is(err, ErrStopped) {
		t.Errorf("a replay after Close: %v; want ErrStopped", err)
	}
}
