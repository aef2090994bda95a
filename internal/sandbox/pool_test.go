package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPoolBusy fills a pool of one with one running and one queued job and
// checks the next one is refused at once with a retry estimate, and that a
// queued job whose caller gives up leaves without running.
func TestPoolBusy(t *testing.T) {
	pool := NewPool(testRunner("sleep", Limits{WallTime: 3 * time.Second}), 1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	running := make(chan error, 1)
	go func() {
		_, err := pool.Submit(ctx, nil, nil)
		running <- err
	}()
	waitFor(t, func() bool { return len(pool.slots) == 1 })

	queuedCtx, cancelQueued := context.WithCancel(ctx)
	queued := make(chan error, 1)
	go func() {
		_, err := pool.Submit(queuedCtx, nil, nil)
		queued <- err
	}()
	waitFor(t, func() bool { pool.mu.Lock(); defer pool.mu.Unlock(); return pool.waiting == 1 })

	started := time.Now()
	_, err := pool.Submit(ctx, nil, nil)
	if elapsed := time.Since(started); elapsed > time.Second {
		t.Errorf("a refused Submit took %s; it must not wait", elapsed)
	}
	var busy *BusyError
	if !errors.As(err, &busy) || !errors.Is(err, ErrBusy) {
		t.Fatalf("third Submit: %v, want a *BusyError", err)
	}
	if busy.RetryAfter < time.Second || !strings.Contains(err.Error(), "busy, try again in") {
		t.Errorf("busy error %q with RetryAfter %s", err, busy.RetryAfter)
	}

	cancelQueued()
	select {
	case err := <-queued:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("queued Submit after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a queued Submit did not return after its context was canceled")
	}
	if err := <-running; err != nil {
		t.Errorf("running Submit: %v", err)
	}
}

// TestPoolRunsAtMostSize checks the pool never runs more than Size children
// at once, and that every queued job runs in the end.
func TestPoolRunsAtMostSize(t *testing.T) {
	pool := NewPool(testRunner("echo", Limits{}), 2, 10)
	const jobs = 6
	type result struct {
		out *Outcome
		err error
	}
	results := make(chan result, jobs)
	peak := 0
	stop := make(chan struct{})
	sampled := make(chan int)
	go func() {
		for {
			select {
			case <-stop:
				sampled <- peak
				return
			default:
				peak = max(peak, len(pool.slots))
				time.Sleep(time.Millisecond)
			}
		}
	}()
	for range jobs {
		go func() {
			out, err := pool.Submit(context.Background(), []byte("x"), nil)
			results <- result{out, err}
		}()
	}
	for range jobs {
		r := <-results
		if r.err != nil || !r.out.OK() {
			t.Errorf("job: %v %+v", r.err, r.out)
		}
	}
	close(stop)
	if p := <-sampled; p > 2 {
		t.Errorf("%d children ran at once, the pool allows 2", p)
	}
}

func TestPoolDefaults(t *testing.T) {
	p := NewPool(&Runner{}, 0, -1)
	if p.Size() < 1 || p.queue != 2*p.Size() {
		t.Errorf("size %d queue %d", p.Size(), p.queue)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
