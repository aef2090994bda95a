package faultsim

import (
	"math/rand"
	"testing"
)

// TestSeededSourceIsTheSource: a copy of a seeded source draws what a
// source seeded afresh draws.
func TestSeededSourceIsTheSource(t *testing.T) {
	var c Sources
	for _, seed := range []int64{0, 1, 4001, -7, 4001} {
		want := rand.New(rand.NewSource(seed))
		got := rand.New(c.seeded(seed))
		for i := 0; i < 1000; i++ {
			if a, b := want.Int63(), got.Int63(); a != b {
				t.Fatalf("seed %d draw %d: %d, want %d", seed, i, b, a)
			}
		}
	}
	// Drawing from one copy leaves the next copy untouched.
	a := rand.New(c.seeded(9))
	a.Int63()
	if got, want := rand.New(c.seeded(9)).Int63(), rand.New(rand.NewSource(9)).Int63(); got != want {
		t.Fatalf("a second copy drew %d, want %d", got, want)
	}
}
