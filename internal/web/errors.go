package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// statusClientClosedRequest is nginx's status for a request whose client
// closed the connection first; it is only ever logged.
const statusClientClosedRequest = 499

// storageBusyRetrySeconds is the Retry-After of a write refused because the
// database's writers were queued for longer than storage's busy timeout.
const storageBusyRetrySeconds = 5

// handleError is the one place errors become responses. Client errors show
// their message; anything else is logged and shown as a plain "something
// broke" page, never with internals.
func (s *Server) handleError(err error, c echo.Context) {
	req := c.Request()
	if c.Response().Committed {
		s.log.ErrorContext(req.Context(), "error after the response started",
			slog.String("path", req.URL.Path), slog.Any("err", err))
		return
	}
	if errors.Is(err, context.Canceled) && req.Context().Err() != nil {
		// The client hung up while the handler worked (a query stopped
		// with the request's context): nothing broke here, and nobody is
		// left to read a page. Logged the way proxies log it, as 499.
		s.log.InfoContext(req.Context(), "the client went away before the answer", slog.String("method", req.Method),
			slog.String("path", req.URL.Path))
		c.NoContent(statusClientClosedRequest)
		return
	}
	status := http.StatusInternalServerError
	message := ""
	if errors.Is(err, storage.ErrBusy) {
		// Every write waited its turn for busyTimeout: overload, not a
		// fault. Say so, and when to try again, rather than "something
		// broke"; what the user had already saved is untouched.
		s.log.WarnContext(req.Context(), "storage busy", slog.String("method", req.Method),
			slog.String("path", req.URL.Path), slog.Any("err", err))
		c.Response().Header().Set("Retry-After", strconv.Itoa(storageBusyRetrySeconds))
		err = echo.NewHTTPError(http.StatusServiceUnavailable,
			"The server is too busy to save this right now. Nothing you saved before is lost: try again in a few seconds.")
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		status = he.Code
		if m, ok := he.Message.(string); ok {
			message = m
		}
		if he.Internal != nil {
			s.log.WarnContext(req.Context(), "request failed", slog.String("path", req.URL.Path),
				slog.Int("status", status), slog.Any("err", he.Internal))
		}
	}
	if status >= 500 && status != http.StatusServiceUnavailable {
		// 503's messages are written for the user (busy, try again);
		// any other server error's text may hold internals.
		s.log.ErrorContext(req.Context(), "server error", slog.String("method", req.Method),
			slog.String("path", req.URL.Path), slog.Any("err", err))
		message = "" // never show internals
	}
	// net/http cancels the request's context once reading its body fails
	// (a client too slow for ReadTimeout, a connection cut mid-body), and
	// templ refuses to render under a cancelled context: the answer would
	// become a 500 and an error in the log. The client may still be there
	// to read this page, so render it regardless.
	c.SetRequest(req.WithContext(context.WithoutCancel(req.Context())))
	// An error is never worth caching, and its page may name the user's own
	// things; Cache-Control may also still say what a static file set.
	c.Response().Header().Set("Cache-Control", noStore)
	page := errorView(s.meta(errorTitle(status)), status, message)
	if err := render(c, status, page); err != nil {
		s.log.ErrorContext(req.Context(), "rendering the error page failed", slog.Any("err", err))
		c.String(http.StatusInternalServerError, "Internal server error")
	}
}

// notFound is the error for a missing page or content item.
func notFound(what string) error {
	return echo.NewHTTPError(http.StatusNotFound, what)
}

// badRequest is the error for a form that makes no sense.
func badRequest(message string) error {
	return echo.NewHTTPError(http.StatusBadRequest, message)
}
