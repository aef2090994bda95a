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
