package live

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// readBatch is how many events Follow asks a Source for at once: enough
// that catching up a long room is a few reads, few enough that one read
// does not hold a large slice for a slow client.
const readBatch = 256

// Follow streams topic's events after `after` to w: everything already in
// the log, then each event as it is published, until the Last event, ctx
// ending, the client leaving, no event for the writer's IdleClose, or the broker ending the subscription or
// refusing it with ErrClosed (all nil: a normal end). An error means Subscribe or read failed; the
// headers have gone out by then, so the caller can only log it (the
// client reconnects and resumes).
//
// It subscribes before its first read: an event appended between a read
// and a later subscription would be announced to nobody and wait for the
// next one.
func Follow(ctx context.Context, w *Writer, b Broker, topic string, read Source, after int64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // releases the subscription when Follow returns early
	sub, err := b.Subscribe(ctx, topic)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrClosed) {
			return nil // ended, or shutting down: the client reconnects elsewhere
		}
		return fmt.Errorf("live: subscribe to %s: %w", topic, err)
	}
	keepAlive, idleClose := w.Options().KeepAlive, w.Options().IdleClose
	// The timer wakes for the next keep-alive or, sooner, the idle close.
	next := func() time.Duration {
		d := keepAlive - time.Since(w.last)
		if idleClose > 0 {
			d = min(d, idleClose-time.Since(w.lastEvent))
		}
		return d
	}
	timer := time.NewTimer(keepAlive)
	defer timer.Stop()
	sent := after
	for {
		done, err := sendAfter(ctx, w, read, &sent)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("live: read %s after %d: %w", topic, sent, err)
		}
		if done {
			return nil
		}
	wait:
		for {
			timer.Reset(next())
			select {
			case <-sub.C():
				if sub.Advanced(sent) {
					break wait
				}
			case <-timer.C:
				if idleClose > 0 && time.Since(w.lastEvent) >= idleClose {
					return nil // idle: the client reconnects if it is still there
				}
				if time.Since(w.last) >= keepAlive {
					if w.Comment(w.opts.KeepAliveComment) != nil {
						return nil
					}
				}
			case <-sub.Done():
				return nil
			case <-ctx.Done():
				return nil
			}
		}
	}
}

// errStale is a Source's fault: a full batch with nothing after the
// sequence asked for, which read again would loop for ever.
var errStale = errors.New("the source returned a full batch of events none of which is after the sequence asked for")

// sendAfter sends every event the log has after *sent, advancing it. done
// is true when the stream is over: the Last event went out or the client
// left.
func sendAfter(ctx context.Context, w *Writer, read Source, sent *int64) (done bool, err error) {
	for {
		evs, err := read(ctx, *sent, readBatch)
		if err != nil {
			return false, err
		}
		from := *sent
		for _, ev := range evs {
			if ev.Seq <= *sent {
				continue // never twice, whatever the source returns
			}
			if strings.ContainsAny(ev.Name, "\r\n") {
				return false, fmt.Errorf("event %d is named %q, which holds a line break", ev.Seq, ev.Name)
			}
			if w.Send(ev) != nil {
				return true, nil // the client left
			}
			*sent = ev.Seq
			if ev.Last {
				return true, nil
			}
		}
		if len(evs) < readBatch {
			return false, nil
		}
		if *sent == from {
			return false, errStale
		}
	}
}
