package ratelimit

import (
	"fmt"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestTake(t *testing.T) {
	type step struct {
		advance   time.Duration
		key       string
		n         float64
		wantOK    bool
		wantRetry time.Duration
	}
	tests := []struct {
		name  string
		rate  Rate
		steps []step
	}{
		{name: "burst then refused, refilled over time", rate: Per(3, 3*time.Second), steps: []step{
			{key: "a", n: 1, wantOK: true}, {key: "a", n: 1, wantOK: true}, {key: "a", n: 1, wantOK: true},
			{key: "a", n: 1, wantOK: false, wantRetry: time.Second},
			{advance: 500 * time.Millisecond, key: "a", n: 1, wantOK: false, wantRetry: 500 * time.Millisecond},
			{advance: 500 * time.Millisecond, key: "a", n: 1, wantOK: true},
		}},
		{name: "keys are independent", rate: Per(1, time.Minute), steps: []step{
			{key: "a", n: 1, wantOK: true}, {key: "b", n: 1, wantOK: true},
			{key: "a", n: 1, wantOK: false, wantRetry: time.Minute},
		}},
		{name: "refill stops at the burst", rate: Per(2, 2*time.Second), steps: []step{
			{advance: time.Hour, key: "a", n: 2, wantOK: true},
			{key: "a", n: 1, wantOK: false, wantRetry: time.Second},
		}},
		{name: "a spend over the burst is allowed from full and leaves debt", rate: Rate{Burst: 10, PerSecond: 10}, steps: []step{
			{key: "a", n: 30, wantOK: true},
			{key: "a", n: 1, wantOK: false, wantRetry: 2100 * time.Millisecond},
			{advance: 2 * time.Second, key: "a", n: 1, wantOK: false, wantRetry: 100 * time.Millisecond},
			{advance: 100 * time.Millisecond, key: "a", n: 1, wantOK: true},
		}},
		{name: "a refused take spends nothing", rate: Per(2, 2*time.Second), steps: []step{
			{key: "a", n: 2, wantOK: true},
			{key: "a", n: 2, wantOK: false, wantRetry: 2 * time.Second},
			{advance: time.Second, key: "a", n: 1, wantOK: true},
		}},
		{name: "zero is always allowed", rate: Per(1, time.Hour), steps: []step{
			{key: "a", n: 1, wantOK: true}, {key: "a", n: 0, wantOK: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
			b := New(tt.rate, clock.now)
			for i, s := range tt.steps {
				clock.advance(s.advance)
				ok, retry := b.Take(s.key, s.n)
				if ok != s.wantOK || retry != s.wantRetry {
					t.Fatalf("step %d: Take(%q, %v) = %v, %v; want %v, %v", i, s.key, s.n, ok, retry, s.wantOK, s.wantRetry)
				}
			}
		})
	}
}

func TestMemoryIsBounded(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	b := New(Per(1, time.Hour), clock.now)
	for i := 0; i < 2*maxKeys; i++ {
		clock.advance(time.Millisecond)
		b.Take(fmt.Sprint(i), 1)
	}
	b.mu.Lock()
	n := len(b.buckets)
	b.mu.Unlock()
	if n > maxKeys {
		t.Fatalf("%d buckets kept; want at most %d", n, maxKeys)
	}
	// The newest key is remembered: it is in debt, and forgetting it
	// would hand it a fresh burst.
	if ok, _ := b.Take(fmt.Sprint(2*maxKeys-1), 1); ok {
		t.Fatal("the newest key was forgotten")
	}
}
