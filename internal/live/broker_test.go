package live

import (
	"context"
	"errors"
	"testing"
	"time"
)

// waitUntil polls cond for up to 10 s: for things that happen in another
// goroutine soon (context.AfterFunc's), judged for hangs, not speed.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s, still not %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSubscriptionCoalesces(t *testing.T) {
	tests := []struct {
		name     string
		notify   []int64
		sent     int64
		advanced bool
	}{
		{"nothing announced", nil, 0, false},
		{"announced past sent", []int64{3}, 2, true},
		{"announced up to sent", []int64{3}, 3, false},
		{"highest kept whatever the order", []int64{5, 9, 7}, 8, true},
		{"re-read asked", []int64{0}, 100, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSubscription()
			for _, seq := range tt.notify {
				s.Notify(seq)
			}
			woken := 0
			for len(s.C()) > 0 {
				<-s.C()
				woken++
			}
			if want := min(len(tt.notify), 1); woken != want {
				t.Errorf("%d wake-ups pending after %d notifications; want %d", woken, len(tt.notify), want)
			}
			if got := s.Advanced(tt.sent); got != tt.advanced {
				t.Errorf("Advanced(%d) = %v; want %v", tt.sent, got, tt.advanced)
			}
			if s.Advanced(1 << 62) {
				t.Error("a re-read request outlived the Advanced that reported it")
			}
		})
	}
}

func TestInProcessFansOut(t *testing.T) {
	b := NewInProcess()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var subs []*Subscription
	for range 5 {
		s, err := b.Subscribe(ctx, "room/1")
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, s)
	}
	other, _ := b.Subscribe(ctx, "room/2")
	if err := b.Publish(ctx, "room/1", 4); err != nil {
		t.Fatal(err)
	}
	for i, s := range subs {
		select {
		case <-s.C():
		default:
			t.Fatalf("subscriber %d was not woken", i)
		}
		if !s.Advanced(3) || s.Advanced(4) {
			t.Errorf("subscriber %d did not learn sequence 4", i)
		}
	}
	if len(other.C()) != 0 || other.Advanced(0) {
		t.Error("another topic's subscriber was woken")
	}
}

// TestPublishNeverWaitsForASlowSubscriber publishes far more than any
// buffer to a subscriber that never reads: a Publish that waited would
// hang the test.
func TestPublishNeverWaitsForASlowSubscriber(t *testing.T) {
	b := NewInProcess()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow, _ := b.Subscribe(ctx, "t")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for seq := int64(1); seq <= 100_000; seq++ {
			b.Publish(ctx, "t", seq)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Publish blocked on a subscriber that does not read")
	}
	<-slow.C()
	if !slow.Advanced(99_999) || slow.Advanced(100_000) {
		t.Error("the slow subscriber did not keep the latest sequence")
	}
}

func TestSubscriptionEndsWithItsContext(t *testing.T) {
	b := NewInProcess()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := b.Subscribe(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if n := b.Subscribers("t"); n != 1 {
		t.Fatalf("%d subscribers; want 1", n)
	}
	cancel()
	waitUntil(t, "unsubscribed", func() bool { return b.Subscribers("t") == 0 })
	<-s.Done()
	if _, err := b.Subscribe(ctx, "t"); err == nil {
		t.Error("Subscribe with an ended context succeeded")
	}
	b.Publish(context.Background(), "t", 1) // nobody left: nothing to wake
	if len(s.C()) != 0 {
		t.Error("an ended subscription was woken")
	}
}

func TestInProcessClose(t *testing.T) {
	b := NewInProcess()
	s, _ := b.Subscribe(context.Background(), "t")
	b.Close()
	select {
	case <-s.Done():
	default:
		t.Fatal("Close left a subscription open")
	}
	if _, err := b.Subscribe(context.Background(), "t"); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscribe after Close = %v; want ErrClosed", err)
	}
	if err := b.Publish(context.Background(), "t", 1); err != nil {
		t.Errorf("Publish after Close = %v", err)
	}
}
