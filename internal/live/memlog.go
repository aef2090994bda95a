package live

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrEnded is Append's error once the log's Last event is in.
var ErrEnded = errors.New("live: the log has ended")

// MemoryLog is one topic's log kept in this process's memory, for state
// that is per instance by design (a grading run's progress); everything
// meant to survive the process or be seen from another instance belongs
// in a store instead. Its EventsAfter is a Source.
type MemoryLog struct {
	topic  string
	broker Broker

	mu     sync.RWMutex // many followers read at once
	events []Event      // events[i].Seq == i+1
}

// NewMemoryLog returns an empty log of topic announcing on b.
func NewMemoryLog(topic string, b Broker) *MemoryLog {
	return &MemoryLog{topic: topic, broker: b}
}

// Append adds an event, numbered after the last, and publishes it. last
// ends the log: followers end their streams after it and Append refuses
// more.
func (l *MemoryLog) Append(ctx context.Context, name string, data []byte, last bool) (Event, error) {
	l.mu.Lock()
	if n := len(l.events); n > 0 && l.events[n-1].Last {
		l.mu.Unlock()
		return Event{}, fmt.Errorf("live: append %q to %s: %w", name, l.topic, ErrEnded)
	}
	ev := Event{Seq: int64(len(l.events)) + 1, Name: name, Data: data, Last: last}
	l.events = append(l.events, ev)
	l.mu.Unlock()
	// Published outside the lock, and possibly out of order with another
	// Append's publish: subscriptions keep the highest and followers read
	// the log, so order does not matter here.
	if err := l.broker.Publish(ctx, l.topic, ev.Seq); err != nil {
		return ev, fmt.Errorf("live: publish %s at %d: %w", l.topic, ev.Seq, err)
	}
	return ev, nil
}

// EventsAfter returns up to limit events with Seq > after.
func (l *MemoryLog) EventsAfter(_ context.Context, after int64, limit int) ([]Event, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if after < 0 {
		after = 0
	}
	if after >= int64(len(l.events)) {
		return nil, nil
	}
	rest := l.events[after:]
	if limit > 0 && len(rest) > limit {
		rest = rest[:limit]
	}
	return append([]Event(nil), rest...), nil
}

// Len is how many events the log holds.
func (l *MemoryLog) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.events)
}
