package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/rooms"
)

// roomCookie holds a room link's key once the link has been opened. It is
// scoped to the room's path, HttpOnly and SameSite=Strict: no other page
// of the site, no script and no other site's request carries it.
const roomCookie = "fl_room"

// roomBase is the path every URL of a room starts with.
func roomBase(roomID string) string { return "/rooms/" + roomID }

type roomAccessKey struct{}

// roomAccess authenticates the room cookie of a request under
// /rooms/:room/ and attaches the access; anything else is refused before
// a handler runs.
func (s *Server) roomAccess(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		key := ""
		if ck, err := c.Request().Cookie(roomCookie); err == nil {
			key = ck.Value
		}
		a, err := s.rooms.Authenticate(c.Request().Context(), c.Param("room"), key)
		if err != nil {
			return s.roomRefused(c, a, err)
		}
		req := c.Request()
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), roomAccessKey{}, a)))
		return next(c)
	}
}

// accessOf is what roomAccess attached.
func accessOf(c echo.Context) rooms.Access {
	a, _ := c.Request().Context().Value(roomAccessKey{}).(rooms.Access)
	return a
}

// roomRefused answers Authenticate's refusal: a browser at a closed
// room's page gets the closed page for its role (the interviewer's leads
// on to the record); anything else is roomError's.
func (s *Server) roomRefused(c echo.Context, a rooms.Access, err error) error {
	ended, expired := errors.Is(err, rooms.ErrEnded), errors.Is(err, rooms.ErrExpired)
	if (!ended && !expired) || fromScript(c) || a.Role == "" {
		return s.roomError(c, err)
	}
	title := "This room has expired"
	if ended {
		title = "This room has ended"
	}
	return render(c, http.StatusGone, roomClosedView(s.meta(title), roomClosed{Base: roomBase(a.Room.ID), Role: a.Role, Ended: ended}))
}

// roomError answers a rooms error: as JSON to the page's script, as an
// error page to a browser. Only the system's own failures become 500s.
func (s *Server) roomError(c echo.Context, err error) error {
	var in *rooms.InputError
	var rl *rooms.RateLimitedError
	var busy *rooms.BusyError
	var soon *rooms.TooSoonError
	switch {
	case errors.Is(err, rooms.ErrNotFound):
		// A deleted room and a wrong key are the same answer, as in
		// Authenticate: a guess learns nothing.
		return answered(codeError(c, http.StatusNotFound, fmt.Sprintf(
			"There is no room here for this browser: the room does not exist, its link was not opened in this browser, or it was deleted (a room and its record are deleted %s after its time runs out). Open the link you were given.",
			retentionWords(s.rooms.Retention()))))
	case errors.Is(err, rooms.ErrExpired):
		return answered(codeError(c, http.StatusGone, "This room has expired; a room stays open for a few hours after it is made. Ask the interviewer for a new one."))
	case errors.Is(err, rooms.ErrEnded):
		return answered(codeError(c, http.StatusGone, "The interviewer has ended this room."))
	case errors.Is(err, rooms.ErrForbidden):
		return answered(codeError(c, http.StatusForbidden, "Only the interviewer can do that."))
	case errors.Is(err, rooms.ErrConflict):
		return answered(codeError(c, http.StatusConflict, "The code has moved on since this page last heard; it catches up by itself."))
	case errors.As(err, &in):
		return answered(codeError(c, http.StatusBadRequest, upperFirst(in.Message)+"."))
	case errors.As(err, &rl):
		secs := retrySeconds(rl.RetryAfter)
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		return answered(codeError(c, http.StatusTooManyRequests, fmt.Sprintf(
			"Too many rooms have been made from your network address; make the next one in %d s.", secs)))
	case errors.As(err, &soon):
		ms := max(soon.RetryAfter.Milliseconds(), 1)
		c.Response().Header().Set("Retry-After", strconv.Itoa(retrySeconds(soon.RetryAfter)))
		return answered(codeError(c, http.StatusTooManyRequests, fmt.Sprintf(
			"Cursor reports are taken at most four a second; send this one again in %d ms.", ms)))
	case errors.As(err, &busy):
		secs := retrySeconds(busy.RetryAfter)
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		return answered(codeError(c, http.StatusServiceUnavailable, fmt.Sprintf("Not graded: %s. Try again in %d s.", busy.Message, secs)))
	}
	return answered(err) // an action may have answered itself (roomRun's refusals)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	if s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// roomBodyLimit is the body cap of the room routes: a push of the shared
// editor may hold a whole pasted document; everything else is a form.
func roomBodyLimit(route string) (int64, bool) {
	if route == "/rooms/:room/code/:item/push" {
		return collab.MaxPushBytes + 64<<10, true
	}
	return 0, false
}

// setRoomCookie keeps the link's key for the room's pages until the room
// expires.
func setRoomCookie(c echo.Context, roomID, key string, expires time.Time) {
	c.SetCookie(&http.Cookie{
		Name:     roomCookie,
		Value:    key,
		Path:     roomBase(roomID),
		MaxAge:   max(int(time.Until(expires)/time.Second), 1),
		HttpOnly: true,
		Secure:   clientOf(c.Request().Context()).tls,
		SameSite: http.SameSiteStrictMode,
	})
}

// retentionWords says a retention for people: "30 days", "12 hours".
func retentionWords(d time.Duration) string {
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return strconv.Itoa(int(d/(24*time.Hour))) + " days"
	case d >= 2*time.Hour && d%time.Hour == 0:
		return strconv.Itoa(int(d/time.Hour)) + " hours"
	}
	return d.String()
}
