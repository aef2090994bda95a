package grader

import (
	"testing"
)

// TestOnceDoesNotStopTheClock: sync.Once with a sleep inside, called by
// several goroutines at once, must not freeze virtual time (a second
// caller of the standard sync.Once waits on a real mutex).
func TestOnceDoesNotStopTheClock(t *testing.T) {
	src := `package refund

import (
	"context"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	var once sync.Once
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			once.Do(func() { time.Sleep(time.Second) })
		}()
	}
	wg.Wait()
	ping := sync.OnceFunc(func() { refundkit.Logf(ctx, "once") })
	ping()
	ping()
	if err := refundkit.MarkDone(ctx, id); err != nil {
		return "", err
	}
	return refundkit.OutcomeDone, nil
}
`
	rep := grade(t, src, 1, "repeat-after-done")
	n := 0
	for _, e := range rep.Scenarios[0].Trace {
		if e.Kind == "log" {
			n++
			if e.At != "+1s" {
				t.Errorf("the log line at %s, want +1s", e.At)
			}
		}
	}
	if n != 1 {
		t.Fatalf("OnceFunc's function ran %d times, want once; trace: %+v", n, rep.Scenarios[0].Trace)
	}
}

func TestOnceFuncPanicsEveryTime(t *testing.T) {
	calls := 0
	f := OnceFunc(func() { calls++; panic("boom") })
	for i := 0; i < 2; i++ {
		func() {
			defer func() {
				if v := recover(); v != "boom" {
					t.Errorf("call %d: recovered %v, want boom", i, v)
				}
			}()
			f()
		}()
	}
	if calls != 1 {
		t.Fatalf("f ran %d times", calls)
	}
}
