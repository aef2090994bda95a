// Package live delivers a topic's events to browsers as they happen:
// server-sent events written correctly, a broker that tells followers a
// topic has advanced, and a catch-up loop that sends every event exactly
// once, in order, from where a (re)connecting client left off.
//
// The model: each topic (a grading run, a room) has an append-only log of
// events numbered 1, 2, 3... (Event.Seq). The log lives in a store the
// caller owns; this package only reads it, through a Source. Whoever
// appends an event publishes "topic reached seq N" on a Broker; the
// notification carries no event, so a broker is small enough to put on
// Postgres LISTEN/NOTIFY (package pgbroker: its payload is the topic and
// a number), and a notification lost or merged with the next one costs
// nothing: the follower reads the store again.
//
// # The API
//
// Events and where they come from:
//
//	type Event struct { Seq int64; Name string; Data []byte; Last bool }
//	type Source func(ctx context.Context, after int64, limit int) ([]Event, error)
//
// A Source returns up to limit events of one topic with Seq > after in Seq
// order (fewer than limit, or none, means "that is all for now"). It must
// never make an event visible after one with a higher Seq of the same
// topic: assign sequence numbers under a per-topic lock (SQLite's single
// writer does that; on Postgres lock the topic's row) and publish after
// the commit. Last marks the topic's final event: Follow ends the stream
// after sending it.
//
// The broker:
//
//	type Broker interface {
//		Publish(ctx context.Context, topic string, seq int64) error
//		Subscribe(ctx context.Context, topic string) (*Subscription, error)
//	}
//	func NewInProcess() *InProcess          // the default Broker; Close ends every subscription
//	func (b *InProcess) Subscribers(topic string) int // for tests and metrics
//	var ErrClosed                           // Subscribe on a closed InProcess
//	func NewSubscription() *Subscription    // for Broker implementations
//	func (s *Subscription) Notify(seq int64) // broker side; never blocks; seq <= 0: "re-read, I may have missed some"
//	func (s *Subscription) Close()          // broker side: no more notifications
//	func (s *Subscription) C() <-chan struct{}     // follower side: something may have advanced
//	func (s *Subscription) Advanced(sent int64) bool // follower side: worth reading the store?
//	func (s *Subscription) Done() <-chan struct{}    // closed by Close
//
// Subscribe must return only once a Publish will reach the subscription
// (for LISTEN/NOTIFY: after LISTEN has taken effect), since Follow reads
// the store right after it. Package livetest holds the tests every Broker
// must pass; a new implementation runs livetest.Broker against itself.
//
// Subscribe's notifications stop, and the subscription is released, when
// its ctx ends. Publish never waits for a subscriber: each subscription
// keeps only the highest sequence it was told of and one pending wake-up,
// so a slow follower sees one wake-up for many events and reads them in
// one go.
//
// Server-sent events:
//
//	func NewWriter(w http.ResponseWriter, opts WriterOptions) *Writer
//	type WriterOptions struct { WriteWait, KeepAlive, Retry time.Duration; KeepAliveComment string }
//	func (w *Writer) Start() error              // headers, 200, the retry: field
//	func (w *Writer) Send(ev Event) error       // id:, event:, data: lines; flushed
//	func (w *Writer) Comment(text string) error // a ": text" line, which clients ignore
//	func (w *Writer) Options() WriterOptions    // with the defaults filled in
//	func LastEventID(r *http.Request) (int64, error) // Last-Event-ID header, else ?last_event_id=
//	const DefaultWriteWait = 30 s, DefaultKeepAlive = 15 s, DefaultRetry = 2 s; LastEventIDQuery = "last_event_id"
//
// Start sends Content-Type: text/event-stream, Cache-Control: private,
// no-store and X-Accel-Buffering: no. Every write gets its own deadline
// (WriteWait), so a stream outlives the server's WriteTimeout while a
// client that stops reading is still dropped.
//
// Catch-up:
//
//	func Follow(ctx context.Context, w *Writer, b Broker, topic string, read Source, after int64) error
//
// Follow subscribes first and reads second (the other order loses an
// event appended between the read and the subscription), sends every
// event after `after`, then waits for notifications and sends what was
// appended, with keep-alive comments on a quiet stream. It never sends an
// event whose Seq is not above the last one it sent. It returns nil when
// the stream ended normally: the Last event sent, ctx ended, the client
// went away, or the broker closed (the client reconnects
// with Last-Event-ID, perhaps to another instance); an error only when
// Subscribe or the Source failed, after the headers went out.
//
// A handler:
//
//	after, err := live.LastEventID(r) // 400 on error, before anything is written
//	w := live.NewWriter(rw, live.WriterOptions{})
//	if err := w.Start(); err != nil { return nil } // the client left
//	err = live.Follow(ctx, w, broker, "room/42", store.RoomEventsAfter(42), after)
//
// And for state kept per process rather than in a store (a grading run's
// progress), MemoryLog is a Source that appends and publishes:
//
//	func NewMemoryLog(topic string, b Broker) *MemoryLog
//	func (l *MemoryLog) Append(ctx context.Context, name string, data []byte, last bool) (Event, error)
//	func (l *MemoryLog) EventsAfter(ctx context.Context, after int64, limit int) ([]Event, error)
//	func (l *MemoryLog) Len() int
//	var ErrEnded // Append after the Last event
package live
