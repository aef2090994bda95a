// Package ratelimit holds keyed token buckets: "at most N things per key,
// refilled at R a second", for limits counted per client address or per
// identity (new identities, bytes written).
//
// The buckets live in this process's memory behind the Limiter interface,
// so a limit is per server instance: with several instances a client gets
// at most the sum of their limits. A store-backed Limiter can take its
// place behind the same interface when that bound is not good enough.
package ratelimit

import (
	"math"
	"sync"
	"time"
)

// Limiter decides whether a key may spend n tokens now.
type Limiter interface {
	// Take spends n tokens of key's bucket if it holds them. When it does
	// not, nothing is spent and retry is how long until it will.
	Take(key string, n float64) (ok bool, retry time.Duration)
}

// Rate is a bucket's shape: Burst tokens at most, refilled at PerSecond.
type Rate struct {
	Burst     float64
	PerSecond float64
}

// Per is a Rate of n tokens per period, all of them usable at once.
func Per(n float64, period time.Duration) Rate {
	return Rate{Burst: n, PerSecond: n / period.Seconds()}
}

// maxKeys bounds the buckets kept: past it the full ones (which hold no
// information) are dropped, and if every bucket is in debt the oldest
// half goes, which errs toward letting a client through, never toward
// remembering without bound.
const maxKeys = 100_000

// Buckets is the in-memory Limiter. Its zero value is not usable: call New.
type Buckets struct {
	rate Rate
	now  func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time // when tokens was last brought up to date
}

// New returns buckets of rate r. now may be nil for time.Now (tests pass
// a fake clock).
func New(r Rate, now func() time.Time) *Buckets {
	if now == nil {
		now = time.Now
	}
	return &Buckets{rate: r, now: now, buckets: map[string]*bucket{}}
}

// Take implements Limiter. A request for more than the burst can never be
// met whole; it is allowed when the bucket is full, and leaves it in debt
// for as long as the excess takes to refill, so a large spend is still
// paid for.
func (b *Buckets) Take(key string, n float64) (bool, time.Duration) {
	if n <= 0 {
		return true, 0
	}
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	bk := b.buckets[key]
	if bk == nil {
		if len(b.buckets) >= maxKeys {
			b.pruneLocked(now)
		}
		bk = &bucket{tokens: b.rate.Burst, at: now}
		b.buckets[key] = bk
	}
	b.refillLocked(bk, now)
	need := math.Min(n, b.rate.Burst)
	if bk.tokens < need {
		return false, b.waitLocked(need - bk.tokens)
	}
	bk.tokens -= n
	return true, 0
}

// Tokens reports what key's bucket holds now (for tests and logs).
func (b *Buckets) Tokens(key string) float64 {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	bk := b.buckets[key]
	if bk == nil {
		return b.rate.Burst
	}
	b.refillLocked(bk, now)
	return bk.tokens
}

func (b *Buckets) refillLocked(bk *bucket, now time.Time) {
	if dt := now.Sub(bk.at).Seconds(); dt > 0 {
		bk.tokens = math.Min(b.rate.Burst, bk.tokens+dt*b.rate.PerSecond)
		bk.at = now
	}
}

func (b *Buckets) waitLocked(missing float64) time.Duration {
	if b.rate.PerSecond <= 0 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(math.Ceil(missing / b.rate.PerSecond * float64(time.Second)))
}

func (b *Buckets) pruneLocked(now time.Time) {
	for k, bk := range b.buckets {
		b.refillLocked(bk, now)
		if bk.tokens >= b.rate.Burst {
			delete(b.buckets, k)
		}
	}
	if len(b.buckets) < maxKeys {
		return
	}
	var oldest time.Time
	for _, bk := range b.buckets {
		if oldest.IsZero() || bk.at.Before(oldest) {
			oldest = bk.at
		}
	}
	cut := oldest.Add(now.Sub(oldest) / 2)
	for k, bk := range b.buckets {
		if !bk.at.After(cut) {
			delete(b.buckets, k)
		}
	}
}
