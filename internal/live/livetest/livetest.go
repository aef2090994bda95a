// Package livetest holds the tests every live.Broker must pass, so that a
// second implementation (Postgres LISTEN/NOTIFY) is held to what Follow
// relies on, not to what the in-process one happens to do. Notifications
// may be asynchronous: the checks wait for them (10 s at most, judged for
// hangs, not speed) and give an absent one 200 ms to turn up.
package livetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/live"
)

const (
	patience = 10 * time.Second       // for what must happen
	grace    = 200 * time.Millisecond // for what must not
)

// Broker runs the conformance tests against brokers made by newBroker;
// each test gets its own, with topics of its own.
func Broker(t *testing.T, newBroker func(t *testing.T) live.Broker) {
	tests := []struct {
		name string
		run  func(t *testing.T, b live.Broker)
	}{
		{"a publish after Subscribe returns reaches it", publishAfterSubscribe},
		{"fan-out to every subscriber of the topic and no other", fanOut},
		{"a subscriber that does not read keeps the latest and never holds a publisher", latestOnly},
		{"the subscription ends with its context", endsWithContext},
		{"many topics at once", manyTopics},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newBroker(t)) })
	}
}

func subscribe(t *testing.T, ctx context.Context, b live.Broker, topic string) *live.Subscription {
	t.Helper()
	s, err := b.Subscribe(ctx, topic)
	if err != nil {
		t.Fatalf("Subscribe(%s): %v", topic, err)
	}
	return s
}

func publish(t *testing.T, b live.Broker, topic string, seq int64) {
	t.Helper()
	if err := b.Publish(context.Background(), topic, seq); err != nil {
		t.Fatalf("Publish(%s, %d): %v", topic, seq, err)
	}
}

// reaches waits until s has been told of seq.
func reaches(t *testing.T, s *live.Subscription, seq int64, who string) {
	t.Helper()
	deadline := time.After(patience)
	for !s.Advanced(seq - 1) {
		select {
		case <-s.C():
		case <-deadline:
			t.Fatalf("%s was not told of %d within %s", who, seq, patience)
		}
	}
}

// quiet checks that s is told of nothing after seq for a while.
func quiet(t *testing.T, s *live.Subscription, seq int64, who string) {
	t.Helper()
	select {
	case <-s.C():
		if s.Advanced(seq) {
			t.Errorf("%s was told of something after %d", who, seq)
		}
	case <-time.After(grace):
	}
}

func publishAfterSubscribe(t *testing.T, b live.Broker) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Follow subscribes and then reads the store: an event appended after
	// that read is announced now, and must not be missed because the
	// subscription was not yet in place when Subscribe returned.
	for i := range 20 {
		topic := fmt.Sprintf("conformance/first/%d", i)
		s := subscribe(t, ctx, b, topic)
		publish(t, b, topic, 1)
		reaches(t, s, 1, topic+"'s subscriber")
	}
}

func fanOut(t *testing.T, b live.Broker) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var subs []*live.Subscription
	for range 5 {
		subs = append(subs, subscribe(t, ctx, b, "conformance/fan"))
	}
	other := subscribe(t, ctx, b, "conformance/fan-other")
	publish(t, b, "conformance/fan", 7)
	for i, s := range subs {
		reaches(t, s, 7, fmt.Sprintf("subscriber %d", i))
	}
	quiet(t, other, 0, "another topic's subscriber")
}

func latestOnly(t *testing.T, b live.Broker) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := subscribe(t, ctx, b, "conformance/slow")
	done := make(chan error, 1)
	go func() {
		for seq := int64(1); seq <= 2000; seq++ {
			if err := b.Publish(ctx, "conformance/slow", seq); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * patience):
		t.Fatal("Publish waited for a subscriber that does not read")
	}
	reaches(t, slow, 2000, "the slow subscriber")
	quiet(t, slow, 2000, "the slow subscriber")
}

func endsWithContext(t *testing.T, b live.Broker) {
	ctx, cancel := context.WithCancel(context.Background())
	s := subscribe(t, ctx, b, "conformance/end")
	cancel()
	select {
	case <-s.Done():
	case <-time.After(patience):
		t.Fatalf("the subscription was not ended within %s of its context", patience)
	}
	for len(s.C()) > 0 {
		<-s.C()
	}
	publish(t, b, "conformance/end", 1)
	quiet(t, s, 0, "an ended subscription")
}

func manyTopics(t *testing.T, b live.Broker) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 200
	subs := make([]*live.Subscription, n)
	for i := range subs {
		subs[i] = subscribe(t, ctx, b, fmt.Sprintf("conformance/many/%d", i))
	}
	for i := range subs {
		publish(t, b, fmt.Sprintf("conformance/many/%d", i), int64(i+1))
	}
	for i, s := range subs {
		reaches(t, s, int64(i+1), fmt.Sprintf("topic %d's subscriber", i))
		if s.Advanced(int64(i + 1)) {
			t.Errorf("topic %d's subscriber was told of more than its topic's %d", i, i+1)
		}
	}
}
