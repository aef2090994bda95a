package pgbroker_test

import (
	"context"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/live/livetest"
	"github.com/faultline-dev/faultline/internal/live/pgbroker"
	"github.com/faultline-dev/faultline/internal/pgtest"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func open(t *testing.T, url string) *pgbroker.Broker {
	t.Helper()
	b, err := pgbroker.Open(context.Background(), url, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func TestConforms(t *testing.T) {
	url := pgtest.URL(t)
	livetest.Broker(t, func(t *testing.T) live.Broker { return open(t, url) })
}

// Two instances on one database: a publish on one wakes a subscriber on
// the other, which is what lets an interviewer on A see a candidate on B.
func TestAcrossInstances(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := b.Subscribe(ctx, "room/1")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(ctx, "room/1", 3); err != nil {
		t.Fatal(err)
	}
	waitAdvanced(t, s, 2, "b's subscriber, of a's publish")
}

// A lost LISTEN connection loses the notifications sent meanwhile, so
// once it is back every subscriber is told to re-read the store, and
// publishes reach them again.
func TestListenerLost(t *testing.T) {
	url := pgtest.URL(t)
	b := open(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var subs []*live.Subscription
	for _, topic := range []string{"room/1", "room/1", "grade-run/9"} {
		s, err := b.Subscribe(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, s)
	}
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	var killed int
	if err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, pgbroker.ListenerName).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("terminated %d listener connections; want 1", killed)
	}
	for i, s := range subs {
		// Nothing was published: only a re-read request makes a subscriber
		// at "everything up to MaxInt64" worth waking.
		waitAdvanced(t, s, math.MaxInt64, "subscriber "+string(rune('0'+i))+" after the listener was lost")
	}
	if n := b.Reconnects(); n != 1 {
		t.Errorf("Reconnects() = %d; want 1", n)
	}
	if err := b.Publish(ctx, "grade-run/9", 5); err != nil {
		t.Fatal(err)
	}
	waitAdvanced(t, subs[2], 4, "the subscriber of a publish after the reconnect")
}

func TestPublishRefusesAnOversizedTopic(t *testing.T) {
	b := open(t, pgtest.URL(t))
	long := string(make([]byte, 201))
	if err := b.Publish(context.Background(), long, 1); err == nil {
		t.Error("a 201-byte topic was published")
	}
}

func TestOpenFailsOnAnUnreachableDatabase(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Port 1 on loopback: nothing listens there.
	if _, err := pgbroker.Open(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=2", quietLog()); err == nil {
		t.Error("Open succeeded with no database to connect to")
	}
}

func waitAdvanced(t *testing.T, s *live.Subscription, sent int64, who string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !s.Advanced(sent) {
		select {
		case <-s.C():
		case <-deadline:
			t.Fatalf("%s was not woken within 10 s", who)
		}
	}
}
