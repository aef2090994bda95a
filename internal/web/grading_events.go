package web

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

const (
	// eventWriteWait is the write deadline of each event: the server's
	// WriteTimeout would otherwise end every stream after 60 s.
	eventWriteWait = 30 * time.Second
	// keepAliveEvery sends a comment on a quiet stream so proxies and
	// browsers do not drop it.
	keepAliveEvery = 15 * time.Second
	// reconnectAfterMS is how soon a browser reconnects a dropped stream.
	reconnectAfterMS = 2000
)

// gradeRunEvents streams a run as server-sent events: a "progress" event
// per finished scenario (all of them so far first, so a late or
// reconnecting subscriber catches up), then one final event: "report",
// "busy" or "system-error". A finished run sends only its final event.
func (s *Server) gradeRunEvents(c echo.Context) error {
	_, run, err := s.ownedRun(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var live *liveRun
	if run.Status == storage.GradeRunning && s.grading != nil {
		live = s.grading.lookup(run.ID)
	}
	if run.Status == storage.GradeRunning && live == nil {
		if run, err = s.abandonRun(ctx, run); err != nil {
			return err
		}
		if run.Status == storage.GradeRunning {
			return echo.NewHTTPError(http.StatusServiceUnavailable, "This run is starting; try again in a moment.")
		}
	}

	w := c.Response()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not hold events back
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(format string, args ...any) error {
		if err := rc.SetWriteDeadline(time.Now().Add(eventWriteWait)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return err
		}
		return rc.Flush()
	}
	sendEvent := func(ev sseEvent) error { return send("event: %s\ndata: %s\n\n", ev.name, ev.data) }
	if err := send("retry: %d\n\n", reconnectAfterMS); err != nil {
		return nil // the client left; nothing to answer
	}

	if live == nil {
		ev, err := finalEvent(ctx, run)
		if err != nil {
			s.log.ErrorContext(ctx, "web: building a run's final event failed", "run", run.ID, "err", err)
			ev = systemErrorEvent(messageGraderBroke)
		}
		sendEvent(ev)
		return nil
	}
	keepAlive := time.NewTicker(keepAliveEvery)
	defer keepAlive.Stop()
	sent := 0
	for {
		progress, final, changed := live.since(sent)
		for _, p := range progress {
			if err := sendEvent(newEvent("progress", p)); err != nil {
				return nil
			}
			sent++
		}
		if final != nil {
			sendEvent(*final)
			return nil
		}
		select {
		case <-changed:
		case <-keepAlive.C:
			if err := send(": still grading\n\n"); err != nil {
				return nil
			}
		case <-ctx.Done():
			return nil
		case <-s.grading.ctx.Done():
			// Shutting down: the run's final event would come after the
			// server stopped answering; the browser reconnects and reads
			// the stored end from the next server.
			return nil
		}
	}
}
