package web

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/storage"
)

// gradeEventOptions are the timings of a run's stream.
var gradeEventOptions = live.WriterOptions{
	// Each event's own deadline: serve's WriteTimeout (60 s) would
	// otherwise end every stream, and a queued grading can take longer.
	WriteWait: 30 * time.Second,
	// A comment on a quiet stream (a grading waiting for its place) so
	// proxies and browsers do not drop it.
	KeepAlive:        15 * time.Second,
	KeepAliveComment: "still grading",
	// How soon a browser reconnects a dropped stream.
	Retry: 2 * time.Second,
}

// gradeRunEvents streams a run as server-sent events: a "progress" event
// per finished scenario, then one final event: "report", "busy" or
// "system-error". Each carries its number as the id, and a reconnecting
// browser's Last-Event-ID resumes after it, so nothing is lost or shown
// twice; a first connect (or a late subscriber) gets all of them. A
// finished run sends only its final event, without an id.
func (s *Server) gradeRunEvents(c echo.Context) error {
	_, run, err := s.ownedRun(c)
	if err != nil {
		return err
	}
	after, err := live.LastEventID(c.Request())
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, userMessage(err, "live: "))
	}
	ctx := c.Request().Context()
	var running *liveRun
	if run.Status == storage.GradeRunning && s.grading != nil {
		running = s.grading.lookup(run.ID)
	}
	if run.Status == storage.GradeRunning && running == nil {
		if run, err = s.abandonRun(ctx, run); err != nil {
			return err
		}
		if run.Status == storage.GradeRunning && s.broker == nil {
			return echo.NewHTTPError(http.StatusServiceUnavailable, "This run is starting; try again in a moment.")
		}
	}

	w := live.NewWriter(c.Response(), gradeEventOptions)
	if err := w.Start(); err != nil {
		return nil // the client left; nothing to answer
	}
	if running == nil && run.Status == storage.GradeRunning {
		s.followElsewhere(ctx, w, run.ID, after)
		return nil
	}
	if running == nil {
		ev, err := finalEvent(ctx, run)
		if err != nil {
			s.log.ErrorContext(ctx, "web: building a run's final event failed", "run", run.ID, "err", err)
			ev = systemErrorEvent(messageGraderBroke)
		}
		w.Send(ev)
		return nil
	}
	// Shutting down ends the stream too: the run's final event would come
	// after the server stopped answering; the browser reconnects and
	// reads the stored end from the next server.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.grading.ctx, cancel)()
	if err := live.Follow(ctx, w, s.grading.broker, runTopic(run.ID), running.eventsFor(s.log), after); err != nil {
		s.log.ErrorContext(ctx, "web: streaming a run's events failed", "run", run.ID, "err", err)
	}
	return nil
}

// followElsewhere streams a run that another instance grades (or this one
// is about to register): its progress as the grading instance records it
// in the store (mirrorProgress), numbered as that instance numbers it,
// then the final event as soon as the run's end is announced on the
// shared broker, numbered after the last event the browser had. The
// stream lasts one lease at most: the browser then reconnects, and if the
// owner has died meanwhile abandonRun finds its lease passed and the run
// ends as a system error.
func (s *Server) followElsewhere(ctx context.Context, w *live.Writer, id int64, after int64) {
	lease := DefaultGradeLease
	if s.grading != nil {
		lease = s.grading.lease
		// Shutting down ends this stream too, as it does the others.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.grading.ctx, cancel)()
	}
	ctx, cancel := context.WithTimeout(ctx, lease)
	defer cancel()
	stored := func(ctx context.Context, after int64, limit int) ([]live.Event, error) {
		run, err := s.store.GradeRun(ctx, id)
		if err != nil {
			return nil, err
		}
		if run.Status == storage.GradeRunning {
			progress, err := s.store.GradeProgressAfter(ctx, id, after, limit)
			evs := make([]live.Event, len(progress))
			for i, p := range progress {
				evs[i] = live.Event{Seq: p.Seq, Name: "progress", Data: p.Data}
			}
			return evs, err
		}
		ev, err := finalEvent(ctx, run)
		if err != nil {
			s.log.ErrorContext(ctx, "web: building a run's final event failed", "run", id, "err", err)
			ev = systemErrorEvent(messageGraderBroke)
		}
		ev.Seq, ev.Last = after+1, true
		return []live.Event{ev}, nil
	}
	if err := live.Follow(ctx, w, s.broker, runTopic(id), stored, after); err != nil {
		s.log.ErrorContext(ctx, "web: following a run graded elsewhere failed", "run", id, "err", err)
	}
}

// userMessage is err's message for the page: without the package prefix
// the log wants, as a sentence.
func userMessage(err error, prefix string) string {
	msg := strings.TrimPrefix(err.Error(), prefix)
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:] + "."
}
