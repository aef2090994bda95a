package faultsim

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func TestInOrder(t *testing.T) {
	tests := []struct {
		name      string
		n, width  int
		failAt    int // -1: none
		wantThen  []int
		wantAtMax int // the most do calls seen at once, at most
	}{
		{"one at a time", 5, 1, -1, []int{0, 1, 2, 3, 4}, 1},
		{"side by side", 6, 3, -1, []int{0, 1, 2, 3, 4, 5}, 3},
		{"wider than the work", 2, 8, -1, []int{0, 1}, 2},
		{"a failure ends the list at itself", 6, 2, 2, []int{0, 1, 2}, 2},
		{"a failure at the first", 4, 2, 0, []int{0}, 2},
		{"nothing to do", 0, 2, -1, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var running, most atomic.Int32
			var got []int
			inOrder(tt.n, tt.width, func(i int) bool {
				now := running.Add(1)
				for {
					m := most.Load()
					if now <= m || most.CompareAndSwap(m, now) {
						break
					}
				}
				// Later items finish first, so order is the helper's work.
				time.Sleep(time.Duration(tt.n-i) * time.Millisecond)
				running.Add(-1)
				return i != tt.failAt
			}, func(i int) { got = append(got, i) })
			if !slices.Equal(got, tt.wantThen) {
				t.Errorf("then got %v, want %v", got, tt.wantThen)
			}
			if m := int(most.Load()); m > tt.wantAtMax {
				t.Errorf("%d ran at once, want at most %d", m, tt.wantAtMax)
			}
		})
	}
}
