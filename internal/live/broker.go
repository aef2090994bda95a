package live

import (
	"context"
	"errors"
	"sync"
)

// Broker carries "this topic's log reached sequence N" from whoever
// appends to whoever follows. It carries no events: followers read those
// from the Source, so an implementation may merge or drop notifications
// as long as a subscriber ends up woken after the last one (or told to
// re-read with Notify(0)).
//
// The Postgres implementation (package pgbroker) maps Publish to
// pg_notify(channel, topic+" "+seq), called after the append commits (or
// inside its transaction, which Postgres delivers at commit), and
// Subscribe to one LISTEN connection per instance that calls Notify on
// the subscriptions of the topic named; after that connection is lost and
// regained it calls Notify(0) on every subscription, since notifications
// sent meanwhile are gone.
type Broker interface {
	// Publish tells the topic's subscribers its log now reaches seq. It
	// does not wait for any of them.
	Publish(ctx context.Context, topic string, seq int64) error
	// Subscribe starts notifications for topic. They stop, and the
	// subscription is released, when ctx ends.
	Subscribe(ctx context.Context, topic string) (*Subscription, error)
}

// ErrClosed is Subscribe's error on a broker that has been closed.
var ErrClosed = errors.New("live: the broker is closed")

// Subscription is one follower's view of a topic's notifications: the
// highest sequence announced and at most one pending wake-up, so a
// publisher never waits for a slow follower and a follower that wakes
// late reads everything since in one go.
type Subscription struct {
	c    chan struct{} // one pending wake-up
	done chan struct{}

	mu     sync.Mutex
	seq    int64 // highest announced
	reread bool  // announced seq may be behind: read regardless
	closed bool
}

// NewSubscription is for Broker implementations: they call Notify and
// Close on it.
func NewSubscription() *Subscription {
	return &Subscription{c: make(chan struct{}, 1), done: make(chan struct{})}
}

// Notify records that the topic reached seq and wakes the follower
// without blocking. A seq of 0 or less says "you may have missed
// notifications": the follower reads the store whatever it has sent.
func (s *Subscription) Notify(seq int64) {
	s.mu.Lock()
	if seq <= 0 {
		s.reread = true
	} else if seq > s.seq {
		s.seq = seq
	}
	s.mu.Unlock()
	select {
	case s.c <- struct{}{}:
	default: // a wake-up is pending already; it covers this one
	}
}

// Close ends the subscription: Done is closed. It is safe to call twice.
func (s *Subscription) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
}

// C receives when the topic may have advanced; then ask Advanced.
func (s *Subscription) C() <-chan struct{} { return s.c }

// Done is closed when the broker ends the subscription.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Advanced reports whether the topic may hold events after sent: a
// notification of a higher sequence, or a request to re-read (which it
// clears).
func (s *Subscription) Advanced(sent int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reread || s.seq > sent
	s.reread = false
	return r
}

// InProcess is the Broker of a single server instance: a map of topics to
// their subscriptions. Its zero value is not usable; use NewInProcess.
type InProcess struct {
	mu     sync.RWMutex
	topics map[string]map[*Subscription]struct{}
	closed bool
}

// NewInProcess returns an empty in-process broker.
func NewInProcess() *InProcess {
	return &InProcess{topics: map[string]map[*Subscription]struct{}{}}
}

// Publish notifies each subscriber of topic. Notify never blocks, so this
// takes as long as the fan-out, whatever the subscribers are doing.
func (b *InProcess) Publish(_ context.Context, topic string, seq int64) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for s := range b.topics[topic] {
		s.Notify(seq)
	}
	return nil
}

// Subscribe registers a subscription until ctx ends. No goroutine waits
// for that: context.AfterFunc removes it.
func (b *InProcess) Subscribe(ctx context.Context, topic string) (*Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := NewSubscription()
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, ErrClosed
	}
	subs := b.topics[topic]
	if subs == nil {
		subs = map[*Subscription]struct{}{}
		b.topics[topic] = subs
	}
	subs[s] = struct{}{}
	b.mu.Unlock()
	context.AfterFunc(ctx, func() { b.unsubscribe(topic, s) })
	return s, nil
}

func (b *InProcess) unsubscribe(topic string, s *Subscription) {
	b.mu.Lock()
	if subs := b.topics[topic]; subs != nil {
		delete(subs, s)
		if len(subs) == 0 {
			delete(b.topics, topic)
		}
	}
	b.mu.Unlock()
	s.Close()
}

// Subscribers is how many subscriptions topic has: for tests and metrics.
func (b *InProcess) Subscribers(topic string) int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.topics[topic])
}

// Close ends every subscription (their followers return, and clients
// reconnect) and refuses new ones. Publish after Close does nothing.
func (b *InProcess) Close() {
	b.mu.Lock()
	topics := b.topics
	b.topics = map[string]map[*Subscription]struct{}{}
	b.closed = true
	b.mu.Unlock()
	for _, subs := range topics {
		for s := range subs {
			s.Close()
		}
	}
}
