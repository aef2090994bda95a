package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/storage"
)

// roomDone answers a room action that worked: to the script, the number
// the event goes by in the actor's own stream (rooms.StreamSeq: the
// candidate never learns the room's overall count, which would count the
// interviewer's notes and scores), and none for an event their stream
// does not carry; to a plain form, back to the room's page.
func roomDone(c echo.Context, ev storage.RoomEvent) error {
	if fromScript(c) {
		if seq := rooms.StreamSeq(accessOf(c), ev); seq > 0 {
			return c.JSON(http.StatusOK, map[string]int64{"seq": seq})
		}
		return c.JSON(http.StatusOK, map[string]bool{"ok": true})
	}
	return c.Redirect(http.StatusSeeOther, roomBase(accessOf(c).Room.ID))
}

// roomAction wraps a room action that reads a form.
func (s *Server) roomAction(act func(c echo.Context, a rooms.Access, form formValues) (storage.RoomEvent, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		form, err := readForm(c)
		if err != nil {
			return err
		}
		ev, err := act(c, accessOf(c), formValues(form))
		if err != nil {
			return s.roomError(c, err)
		}
		return roomDone(c, ev)
	}
}

// formValues reads a form's fields with errors that name the field.
type formValues map[string][]string

func (f formValues) get(name string) string {
	if v := f[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (f formValues) int(name string) (int, error) {
	raw := strings.TrimSpace(f.get(name))
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, &rooms.InputError{Message: "the field " + name + " must be a whole number, not " + strconv.Quote(raw)}
	}
	return n, nil
}

func (s *Server) roomHintRelease(c echo.Context, a rooms.Access, _ formValues) (storage.RoomEvent, error) {
	return s.rooms.ReleaseNextHint(c.Request().Context(), a)
}

func (s *Server) roomNextItem(c echo.Context, a rooms.Access, _ formValues) (storage.RoomEvent, error) {
	return s.rooms.NextItem(c.Request().Context(), a)
}

func (s *Server) roomTimer(c echo.Context, a rooms.Access, f formValues) (storage.RoomEvent, error) {
	var by time.Duration
	if f.get("action") == rooms.TimerExtend {
		min, err := f.int("minutes")
		if err != nil {
			return storage.RoomEvent{}, err
		}
		by = time.Duration(min) * time.Minute
	}
	return s.rooms.Timer(c.Request().Context(), a, f.get("action"), by)
}

func (s *Server) roomShareForm(c echo.Context, a rooms.Access, f formValues) (storage.RoomEvent, error) {
	run, err := f.int("run")
	if err != nil {
		return storage.RoomEvent{}, err
	}
	return s.roomShare(c, a, int64(run))
}

func (s *Server) roomNotes(c echo.Context, a rooms.Access, f formValues) (storage.RoomEvent, error) {
	return s.rooms.SaveNotes(c.Request().Context(), a, f.get("notes"))
}

// roomScore scores a rubric point. Its evidence, if any, is a scenario
// ("run:scenario", cite_scenario) and an invariant (cite_invariant), or
// both at once as cite ("run:scenario:invariant").
func (s *Server) roomScore(c echo.Context, a rooms.Access, f formValues) (storage.RoomEvent, error) {
	part, err := f.int("part")
	if err != nil {
		return storage.RoomEvent{}, err
	}
	point, err := f.int("point")
	if err != nil {
		return storage.RoomEvent{}, err
	}
	score, err := f.int("score")
	if err != nil {
		return storage.RoomEvent{}, err
	}
	var cite *rooms.Cite
	raw := strings.TrimSpace(f.get("cite"))
	sc, inv := strings.TrimSpace(f.get("cite_scenario")), strings.TrimSpace(f.get("cite_invariant"))
	switch {
	case raw != "":
	case sc == "" && inv == "":
	case sc == "" || inv == "":
		return storage.RoomEvent{}, &rooms.InputError{Message: "the evidence needs both a scenario and an invariant (or neither)"}
	default:
		raw = sc + ":" + inv
	}
	if raw != "" {
		parts := strings.SplitN(raw, ":", 3)
		run, err := strconv.ParseInt(parts[0], 10, 64)
		if len(parts) != 3 || err != nil {
			return storage.RoomEvent{}, &rooms.InputError{Message: "the evidence must name a run, a scenario and an invariant"}
		}
		cite = &rooms.Cite{Run: run, Scenario: parts[1], Invariant: parts[2]}
	}
	return s.rooms.Score(c.Request().Context(), a, part, point, score, cite, f.get("note"))
}

func (s *Server) roomRecommend(c echo.Context, a rooms.Access, f formValues) (storage.RoomEvent, error) {
	return s.rooms.Recommend(c.Request().Context(), a, f.get("recommendation"))
}

// roomEndAction ends the room. A plain form lands on the room's record
// (its scorecard, which links the replay): the room's own page is closed
// now, and would only say so.
func (s *Server) roomEndAction(c echo.Context) error {
	if _, err := readForm(c); err != nil {
		return err
	}
	a := accessOf(c)
	ev, err := s.rooms.End(c.Request().Context(), a)
	if err != nil {
		return s.roomError(c, err)
	}
	if fromScript(c) {
		return c.JSON(http.StatusOK, map[string]int64{"seq": ev.Seq})
	}
	return c.Redirect(http.StatusSeeOther, roomBase(a.Room.ID)+"/scorecard")
}

func (s *Server) roomSignal(c echo.Context, a rooms.Access, f formValues) (storage.RoomEvent, error) {
	n := 0
	if f.get("bytes") != "" {
		var err error
		if n, err = f.int("bytes"); err != nil {
			return storage.RoomEvent{}, err
		}
	}
	return s.rooms.Signal(c.Request().Context(), a, f.get("signal"), n)
}

func (s *Server) roomCursor(c echo.Context, a rooms.Access, f formValues) (storage.RoomEvent, error) {
	var cur rooms.Cursor
	if err := json.Unmarshal([]byte(f.get("cursor")), &cur); err != nil {
		return storage.RoomEvent{}, &rooms.InputError{Message: "the cursor field is not a selection report"}
	}
	return s.rooms.MoveCursor(c.Request().Context(), a, cur)
}

// roomPushBody is a push of the shared editor: the updates it made on
// version.
type roomPushBody struct {
	Version int             `json:"version"`
	Updates []collab.Update `json:"updates"`
}

// roomPushAnswer is the push's outcome, as the editor's transport wants it.
type roomPushAnswer struct {
	OK       bool   `json:"ok,omitempty"`
	Conflict bool   `json:"conflict,omitempty"`
	Version  int    `json:"version"`
	Error    string `json:"error,omitempty"`
}

// roomCodePush takes the shared editor's updates (JSON, from the page's
// script only).
func (s *Server) roomCodePush(c echo.Context) error {
	item, err := strconv.Atoi(c.Param("item"))
	if err != nil {
		return notFound("There is no such step in this room.")
	}
	data, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return c.JSON(http.StatusRequestEntityTooLarge, roomPushAnswer{Error: "This change is larger than one push may carry."})
		}
		status, message := bodyProblem(err)
		return c.JSON(status, roomPushAnswer{Error: message})
	}
	var body roomPushBody
	if err := json.Unmarshal(data, &body); err != nil {
		return c.JSON(http.StatusBadRequest, roomPushAnswer{Error: "The push is not the editor's JSON: " + err.Error()})
	}
	res, err := s.rooms.Push(c.Request().Context(), accessOf(c), item, body.Version, body.Updates)
	if err != nil {
		return s.roomError(c, err)
	}
	switch {
	case res.Conflict:
		return c.JSON(http.StatusOK, roomPushAnswer{Conflict: true, Version: res.Version})
	case res.Rejected != "":
		return c.JSON(http.StatusUnprocessableEntity, roomPushAnswer{Version: res.Version, Error: res.Rejected})
	}
	return c.JSON(http.StatusOK, roomPushAnswer{OK: true, Version: res.Version})
}

// roomCodePull answers the editor's pull: the updates after ?since=.
func (s *Server) roomCodePull(c echo.Context) error {
	item, err := strconv.Atoi(c.Param("item"))
	if err != nil {
		return notFound("There is no such step in this room.")
	}
	since, err := strconv.Atoi(c.QueryParam("since"))
	if err != nil {
		return answered(codeError(c, http.StatusBadRequest, "since must be a version number."))
	}
	ups, err := s.rooms.Pull(c.Request().Context(), accessOf(c), item, since)
	if err != nil {
		return s.roomError(c, err)
	}
	if ups == nil {
		ups = []collab.Update{}
	}
	return c.JSON(http.StatusOK, map[string]any{"updates": ups, "version": since + len(ups)})
}

// roomRoutes adds the rooms' routes. Every route under a room's path goes
// through roomAccess; only entering by a link and making a room do not.
func (s *Server) roomRoutes() {
	if s.rooms == nil {
		return
	}
	e := s.echo
	e.GET("/rooms/new", s.roomNew)
	e.GET("/rooms", s.roomsIndex)
	e.POST("/rooms", s.roomCreate)
	e.GET("/rooms/:room/enter", s.roomEnter)
	// roomAccess is each route's, not the group's: Echo gives a group
	// with middleware a catch-all route, which answered a wrong method
	// with 404 rather than 405. room adds it to every route here.
	g := e.Group("/rooms/:room")
	room := func(method, path string, h echo.HandlerFunc) { g.Add(method, path, h, s.roomAccess) }
	room(http.MethodGet, "", s.roomShow)
	room(http.MethodGet, "/panel", s.roomPanel)
	room(http.MethodGet, "/links", s.roomLinks)
	room(http.MethodGet, "/runs/:run/report", s.roomRunReport)
	room(http.MethodGet, "/runs/:run/scenarios/:name", s.roomRunScenario)
	room(http.MethodGet, "/events", s.roomEvents)
	room(http.MethodGet, "/code/:item/pull", s.roomCodePull)
	room(http.MethodPost, "/code/:item/push", s.roomCodePush)
	room(http.MethodPost, "/hints", s.roomAction(s.roomHintRelease))
	room(http.MethodPost, "/next", s.roomAction(s.roomNextItem))
	room(http.MethodPost, "/timer", s.roomAction(s.roomTimer))
	room(http.MethodPost, "/run", s.roomAction(s.roomRun))
	room(http.MethodPost, "/share", s.roomAction(s.roomShareForm))
	room(http.MethodPost, "/notes", s.roomAction(s.roomNotes))
	room(http.MethodPost, "/score", s.roomAction(s.roomScore))
	room(http.MethodPost, "/recommendation", s.roomAction(s.roomRecommend))
	room(http.MethodPost, "/end", s.roomEndAction)
	room(http.MethodPost, "/items/:item/timer/draft", s.roomAnswerDraft)
	room(http.MethodPost, "/items/:item/answer", s.roomAnswerSubmit)
	room(http.MethodPost, "/signal", s.roomAction(s.roomSignal))
	room(http.MethodPost, "/cursor", s.roomAction(s.roomCursor))
}
