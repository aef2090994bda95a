package faultsim

import (
	"math"
	"math/rand"
	"testing"
)

// TestNewSourceIsMathRands: newSource's generator is in math/rand's state
// for every seed, edge cases of its seeding included (zero, negative
// seeds, multiples of 2^31-1), which the draws of each show.
func TestNewSourceIsMathRands(t *testing.T) {
	seeding.once.Do(seeding.init)
	if seeding.typ == nil {
		t.Fatal("math/rand's source is not laid out as rngMirror: newSource falls back to rand.NewSource")
	}
	seeds := []int64{0, 1, -1, 2, lehmerMod, -lehmerMod, 2 * lehmerMod, lehmerMod - 1, lehmerMod + 1, 89482311,
		math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1 << 40, -(1 << 40), 1764790800000000123}
	r := rand.New(rand.NewSource(7))
	for range 500 {
		seeds = append(seeds, r.Int63()-r.Int63())
	}
	for _, seed := range seeds {
		want, got := rand.New(rand.NewSource(seed)), rand.New(newSource(seed))
		for i := range 1500 { // more than the register's 607 words
			if a, b := want.Uint64(), got.Uint64(); a != b {
				t.Fatalf("seed %d, draw %d: %d, want %d", seed, i, b, a)
			}
		}
		if _, ok := newSource(seed).(rand.Source64); !ok {
			t.Fatalf("seed %d: not a Source64", seed)
		}
	}
}

// BenchmarkNewSource seeds math/rand's way and newSource's, side by side.
//
//	go test ./internal/faultsim -run '^$' -bench NewSource
func BenchmarkNewSource(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func(int64) rand.Source
	}{{"math-rand", rand.NewSource}, {"faultsim", newSource}} {
		b.Run(c.name, func(b *testing.B) {
			for i := int64(0); b.Loop(); i++ {
				c.f(i)
			}
		})
	}
}
