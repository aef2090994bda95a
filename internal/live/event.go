package live

import "context"

// Event is one entry of a topic's log.
type Event struct {
	// Seq numbers the topic's events from 1 without gaps that matter to
	// Follow (it only needs them increasing); it is sent as the SSE id, so
	// a reconnecting client names the last one it has. 0 sends no id.
	Seq int64
	// Name is the SSE event name; "" is the browser's default, "message".
	Name string
	// Data is the event's payload, sent as one data: line per line.
	Data []byte
	// Last marks the topic's final event: Follow ends the stream after it.
	Last bool
}

// Source reads one topic's log: up to limit events with Seq > after, in
// Seq order. Fewer than limit means there are no more for now. It is where
// the events come from; the broker only says when to look.
type Source func(ctx context.Context, after int64, limit int) ([]Event, error)
