// Package pgbroker is the live.Broker of several server instances on one
// Postgres: Publish is pg_notify on one channel with "topic seq" as the
// payload, and each instance holds one LISTEN connection whose
// notifications wake the subscriptions of the topic named. Events never
// travel through it: followers read them from the store, so a payload
// stays a few dozen bytes whatever the event, and a notification lost
// while the LISTEN connection was down costs a re-read, not an event.
//
// Every instance receives every notification and drops those of topics
// it has no subscriber for. At Faultline's scale (hundreds of rooms, tens
// of notifications a second each) that is cheaper than a LISTEN per
// topic, which would cost a round trip per Subscribe and a listener
// connection that keeps changing what it listens to.
package pgbroker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/faultline-dev/faultline/internal/live"
)

// Channel is the Postgres notification channel every instance listens to.
const Channel = "faultline_live"

// ListenerName is the application_name of each instance's LISTEN
// connection, so an operator (or a test) can find it in pg_stat_activity.
const ListenerName = "faultline live listener"

const (
	// maxTopicBytes keeps a payload far below Postgres's 8000-byte limit;
	// Faultline's topics ("room/42") are a dozen bytes.
	maxTopicBytes = 200
	// pingEvery is how long the listener waits on a quiet connection
	// before checking it still answers: a peer that vanished without a
	// reset would otherwise leave the instance deaf until TCP gives up.
	pingEvery = 15 * time.Second
	// pingTimeout bounds that check.
	pingTimeout = 5 * time.Second
	// publishConns caps the connections Publish uses at once; a publish is
	// one short statement, so a few serve many rooms.
	publishConns = 4
	// The reconnect backoff: from firstBackoff, doubling to maxBackoff, so a
	// restarting Postgres is retried quickly and a down one not hammered.
	firstBackoff = 50 * time.Millisecond
	maxBackoff   = 5 * time.Second
)

// Broker is a live.Broker on Postgres LISTEN/NOTIFY. Use Open; Close it
// when the instance stops.
type Broker struct {
	pool     *pgxpool.Pool
	listenTo *pgx.ConnConfig
	log      *slog.Logger

	ctx  context.Context // ends with Close: stops the listener
	stop context.CancelFunc
	done chan struct{} // closed when the listener has returned

	mu     sync.RWMutex
	topics map[string]map[*live.Subscription]struct{}
	closed bool

	reconnects int // LISTEN connections regained after a loss; under mu
}

// Open connects the listener (so a wrong URL fails here, not on the first
// event) and returns a Broker that keeps it connected until Close.
func Open(ctx context.Context, url string, log *slog.Logger) (*Broker, error) {
	listenTo, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgbroker: %w", err)
	}
	listenTo.RuntimeParams["application_name"] = ListenerName
	poolCfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgbroker: %w", err)
	}
	poolCfg.MaxConns = publishConns
	poolCfg.ConnConfig.RuntimeParams["application_name"] = "faultline live publisher"
	conn, err := listen(ctx, listenTo)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("pgbroker: %w", err)
	}
	bctx, stop := context.WithCancel(context.Background())
	b := &Broker{pool: pool, listenTo: listenTo, log: log, ctx: bctx, stop: stop, done: make(chan struct{}),
		topics: map[string]map[*live.Subscription]struct{}{}}
	go b.run(conn)
	return b, nil
}

// listen opens a connection and LISTENs on Channel: once it returns,
// every notification committed afterwards reaches the connection.
func listen(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgbroker: connect the listener: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{Channel}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("pgbroker: listen: %w", err)
	}
	return conn, nil
}

// Publish sends "topic reached seq" to every instance's listener. It
// returns once Postgres has taken the notification, without waiting for
// any subscriber. After Close it does nothing.
func (b *Broker) Publish(ctx context.Context, topic string, seq int64) error {
	if len(topic) > maxTopicBytes || strings.ContainsAny(topic, "\x00") {
		return fmt.Errorf("pgbroker: publish: topic %.40q is longer than %d bytes or holds a NUL", topic, maxTopicBytes)
	}
	b.mu.RLock()
	closed := b.closed
	b.mu.RUnlock()
	if closed {
		return nil
	}
	payload := topic + " " + strconv.FormatInt(seq, 10)
	if _, err := b.pool.Exec(ctx, "SELECT pg_notify($1, $2)", Channel, payload); err != nil {
		return fmt.Errorf("pgbroker: publish %s %d: %w", topic, seq, err)
	}
	return nil
}

// Subscribe registers a subscription until ctx ends. The listener already
// LISTENs, so a publish after this returns reaches it; if the listener is
// reconnecting, the Notify(0) it sends once back covers what was missed.
func (b *Broker) Subscribe(ctx context.Context, topic string) (*live.Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := live.NewSubscription()
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, live.ErrClosed
	}
	subs := b.topics[topic]
	if subs == nil {
		subs = map[*live.Subscription]struct{}{}
		b.topics[topic] = subs
	}
	subs[s] = struct{}{}
	b.mu.Unlock()
	context.AfterFunc(ctx, func() { b.unsubscribe(topic, s) })
	return s, nil
}

func (b *Broker) unsubscribe(topic string, s *live.Subscription) {
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

// Subscribers is how many subscriptions topic has on this instance.
func (b *Broker) Subscribers(topic string) int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.topics[topic])
}

// Reconnects is how many times the listener regained its connection
// after losing it: for tests and metrics.
func (b *Broker) Reconnects() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.reconnects
}

// Close stops the listener, ends every subscription (their followers
// return, and clients reconnect, perhaps to another instance) and refuses
// new ones.
func (b *Broker) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		<-b.done
		return
	}
	b.closed = true
	topics := b.topics
	b.topics = map[string]map[*live.Subscription]struct{}{}
	b.mu.Unlock()
	b.stop()
	<-b.done
	b.pool.Close()
	for _, subs := range topics {
		for s := range subs {
			s.Close()
		}
	}
}

// run delivers notifications until Close, reconnecting whenever the
// connection is lost.
func (b *Broker) run(conn *pgx.Conn) {
	defer close(b.done)
	for {
		err := b.receive(conn)
		conn.Close(context.Background())
		if b.ctx.Err() != nil {
			return
		}
		b.log.Warn("pgbroker: the LISTEN connection was lost; reconnecting", "err", err)
		if conn = b.reconnect(); conn == nil {
			return
		}
		b.log.Info("pgbroker: the LISTEN connection is back")
		b.rereadAll()
	}
}

// receive dispatches the connection's notifications until it fails (the
// error) or Close (nil).
func (b *Broker) receive(conn *pgx.Conn) error {
	for {
		ctx, cancel := context.WithTimeout(b.ctx, pingEvery)
		n, err := conn.WaitForNotification(ctx)
		cancel()
		switch {
		case b.ctx.Err() != nil:
			return nil
		case err == nil:
			b.dispatch(n.Payload)
		case pgconn.Timeout(err):
			ctx, cancel := context.WithTimeout(b.ctx, pingTimeout)
			err := conn.Ping(ctx)
			cancel()
			if err != nil && b.ctx.Err() == nil {
				return fmt.Errorf("ping: %w", err)
			}
		default:
			return err
		}
	}
}

// reconnect retries listen with backoff until it succeeds (the new
// connection) or Close (nil).
func (b *Broker) reconnect() *pgx.Conn {
	wait := firstBackoff
	for {
		// Jitter keeps instances that lost Postgres together from
		// reconnecting in step.
		t := time.NewTimer(wait/2 + rand.N(wait/2+1))
		select {
		case <-b.ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(b.ctx, maxBackoff+pingTimeout)
		conn, err := listen(ctx, b.listenTo)
		cancel()
		if err == nil {
			b.mu.Lock()
			b.reconnects++
			b.mu.Unlock()
			return conn
		}
		if b.ctx.Err() != nil {
			return nil
		}
		b.log.Warn("pgbroker: reconnecting the listener failed", "err", err, "retry_in", wait)
		wait = min(2*wait, maxBackoff)
	}
}

// dispatch wakes the subscriptions of the payload's topic.
func (b *Broker) dispatch(payload string) {
	topic, seq, err := parsePayload(payload)
	if err != nil {
		b.log.Warn("pgbroker: a notification was not ours; ignored", "err", err)
		return
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	for s := range b.topics[topic] {
		s.Notify(seq)
	}
}

// rereadAll tells every subscription it may have missed notifications:
// those sent while the listener was away are gone.
func (b *Broker) rereadAll() {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, subs := range b.topics {
		for s := range subs {
			s.Notify(0)
		}
	}
}

var errPayload = errors.New(`the payload is not "topic seq"`)

func parsePayload(p string) (string, int64, error) {
	i := strings.LastIndexByte(p, ' ')
	if i <= 0 {
		return "", 0, fmt.Errorf("%w: %.60q", errPayload, p)
	}
	seq, err := strconv.ParseInt(p[i+1:], 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %.60q", errPayload, p)
	}
	return p[:i], seq, nil
}
