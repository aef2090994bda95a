package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/rooms"
)

// roomRecordRoutes adds the pages that read a room's record: the replay
// and the scorecard. They are the interviewer's, and unlike the live
// room's routes they stay open once the room has ended or expired: that
// is when an interviewer writes the screen up. Each route carries its own
// middleware rather than a second group on "/rooms/:room", whose
// catch-all would take over the live routes' unknown paths.
func (s *Server) roomRecordRoutes() {
	if s.rooms == nil {
		return
	}
	e := s.echo
	e.GET("/rooms/:room/replay", s.roomReplay, s.roomRecordAccess)
	e.GET("/rooms/:room/replay/frame", s.roomReplayFrame, s.roomRecordAccess)
	e.GET("/rooms/:room/scorecard", s.roomScorecard, s.roomRecordAccess)
	e.GET("/rooms/:room/scorecard.json", s.roomScorecardJSON, s.roomRecordAccess)
	e.GET("/rooms/:room/scorecard.md", s.roomScorecardMarkdown, s.roomRecordAccess)
}

// roomRecordAccess is roomAccess for the record's pages: the interviewer's
// link is let in whether the room is open, ended or expired; every other
// credential is refused as the live routes refuse it (the candidate's
// link to an open room with 403, to a closed one with 410; anything else
// with 404).
func (s *Server) roomRecordAccess(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		key := ""
		if ck, err := c.Request().Cookie(roomCookie); err == nil {
			key = ck.Value
		}
		a, err := s.rooms.Authenticate(c.Request().Context(), c.Param("room"), key)
		switch {
		case err != nil && !recordOnly(a, err):
			return s.roomRefused(c, a, err)
		case a.Role != rooms.Interviewer:
			return s.roomError(c, rooms.ErrForbidden)
		case len(a.Items) == 0:
			return fmt.Errorf("web: room %s: the access has no items", a.Room.ID)
		}
		req := c.Request()
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), roomAccessKey{}, a)))
		return next(c)
	}
}

// recordOnly reports whether Authenticate's answer is a closed room's
// interviewer, who may still read its record.
func recordOnly(a rooms.Access, err error) bool {
	return a.Role == rooms.Interviewer && (errors.Is(err, rooms.ErrEnded) || errors.Is(err, rooms.ErrExpired))
}

// roomRecordCookieTTL is how long a closed room's interviewer link keeps
// its browser in the record: the live room's cookie ends with the room,
// and the write-up may come days later. The link itself opens it again
// after that.
const roomRecordCookieTTL = 7 * 24 * time.Hour

// roomEnterRecord opens a closed room's interviewer link: on to the
// scorecard, the hop as roomEnter's.
func (s *Server) roomEnterRecord(c echo.Context, roomID, key string) error {
	setRoomCookie(c, roomID, key, time.Now().Add(roomRecordCookieTTL))
	target := roomBase(roomID) + "/scorecard"
	c.Response().Header().Set("Refresh", "0; url="+target)
	return render(c, http.StatusOK, roomEnterView(s.meta("Opening the room's record"), target, "the interviewer"))
}

// replayPage is the replay at one moment.
type replayPage struct {
	Base    string
	Title   string
	Replay  *rooms.Replay
	Frame   rooms.Frame
	Tracks  []replayTrack
	Classes []replayClass
	Notable []rooms.Moment // the moments but the edits, which are too many to list
}

// replayTrack is one participant's row of marks.
type replayTrack struct {
	Actor string
	Name  string
	Marks []replayMark
}

// replayMark is a mark on a track, placed in thousandths of the room's
// length (the SVG's viewBox is 1000 wide).
type replayMark struct {
	X     int
	Width int
	Class string
	Title string
}

// replayClass names a moment class for the "previous / next" links.
type replayClass struct {
	Class string
	Name  string
}

var replayClassNames = map[string]string{
	rooms.ClassEdit: "edit", rooms.ClassPaste: "paste", rooms.ClassHint: "hint", rooms.ClassTimer: "clock event",
	rooms.ClassRun: "grader run", rooms.ClassNote: "note", rooms.ClassScore: "score", rooms.ClassSignal: "tab signal",
	rooms.ClassStep: "step change", rooms.ClassRoom: "room event",
}

// editBins is how many marks one track's edits are drawn as at most: ten
// thousand keystrokes as ten thousand rectangles would weigh the page
// down for nothing a screen can show.
const editBins = 200

func (s *Server) roomReplay(c echo.Context) error {
	a := accessOf(c)
	r, err := s.rooms.Replay(c.Request().Context(), a)
	if err != nil {
		return s.roomError(c, err)
	}
	at, err := replayAt(c, r)
	if err != nil {
		return err
	}
	fr, err := r.Frame(at)
	if err != nil {
		return err
	}
	page := replayPage{Base: roomBase(a.Room.ID), Title: s.roomTitle(a), Replay: r, Frame: fr, Tracks: replayTracks(r)}
	for _, cl := range rooms.MomentClasses {
		page.Classes = append(page.Classes, replayClass{Class: cl, Name: replayClassNames[cl]})
	}
	for _, m := range r.Moments {
		if m.Class != rooms.ClassEdit {
			page.Notable = append(page.Notable, m)
		}
	}
	meta := s.meta("Replay: " + page.Title)
	meta.CSS = append(meta.CSS, s.assets.url("room-record.css"))
	meta.Scripts = append(meta.Scripts, s.assets.url("room-replay.js"))
	return render(c, http.StatusOK, roomReplayView(meta, page))
}

// roomReplayFrame is one moment as JSON, for the replay page's script.
func (s *Server) roomReplayFrame(c echo.Context) error {
	r, err := s.rooms.Replay(c.Request().Context(), accessOf(c))
	if err != nil {
		return s.roomError(c, err)
	}
	at, err := replayAt(c, r)
	if err != nil {
		return err
	}
	fr, err := r.Frame(at)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, fr)
}

// replayAt is the moment asked for in ?at=, the room's last by default.
func replayAt(c echo.Context, r *rooms.Replay) (int64, error) {
	raw := strings.TrimSpace(c.QueryParam("at"))
	if raw == "" {
		return r.LastSeq(), nil
	}
	at, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return 0, answered(codeError(c, http.StatusBadRequest,
			fmt.Sprintf("The moment (at=) must be an event's number, 1 to %d, not %q.", r.LastSeq(), raw)))
	}
	return at, nil
}

// roomTitle names the room by what it was made from.
func (s *Server) roomTitle(a rooms.Access) string {
	if sc := s.rooms.Screen(a); sc != nil {
		return sc.Title
	}
	return a.Items[0].Title()
}

var replayTrackNames = map[string]string{"candidate": "Candidate", "interviewer": "Interviewer", "system": "Grader and room"}

func replayTracks(r *rooms.Replay) []replayTrack {
	length := max(r.DurationMS, 1)
	x := func(ms int64) int { return int(min(max(ms*1000/length, 0), 999)) }
	var out []replayTrack
	for _, actor := range r.Tracks {
		tr := replayTrack{Actor: actor, Name: replayTrackNames[actor]}
		var bins [editBins]int
		for _, m := range r.Moments {
			if m.Track != actor {
				continue
			}
			if m.Class == rooms.ClassEdit {
				bins[min(int(m.AtMS*editBins/length), editBins-1)]++
				continue
			}
			tr.Marks = append(tr.Marks, replayMark{X: x(m.AtMS), Width: 3, Class: "mark-" + m.Class, Title: m.Label})
		}
		w := 1000 / editBins
		for i, n := range bins {
			if n > 0 {
				tr.Marks = append(tr.Marks, replayMark{X: i * w, Width: w, Class: "mark-edit", Title: fmt.Sprintf("%d edits", n)})
			}
		}
		out = append(out, tr)
	}
	return out
}

// durationText is a duration as a clock shows it: m:ss, or h:mm:ss.
func durationText(ms int64) string {
	neg := ""
	if ms < 0 {
		neg, ms = "−", -ms
	}
	sec := ms / 1000
	if sec >= 3600 {
		return fmt.Sprintf("%s%d:%02d:%02d", neg, sec/3600, sec%3600/60, sec%60)
	}
	return fmt.Sprintf("%s%d:%02d", neg, sec/60, sec%60)
}

// momentText is a moment as the page announces it.
func momentText(m *rooms.Moment) string {
	if m == nil {
		return ""
	}
	who := replayTrackNames[m.Track]
	if who == "" {
		who = m.Track
	}
	return durationText(m.AtMS) + " · " + who + " · " + m.Label
}

func seqURL(base string, seq int64) string {
	return base + "/replay?at=" + strconv.FormatInt(seq, 10)
}

// replayLinkAttrs are a step link's attributes: no href when there is
// nowhere to go.
func replayLinkAttrs(base, id, nav string, seq int64) templ.Attributes {
	attrs := templ.Attributes{}
	if id != "" {
		attrs["id"] = id
	}
	if nav != "" {
		attrs["data-nav"] = nav
	}
	if seq > 0 {
		attrs["href"] = seqURL(base, seq)
	} else {
		attrs["aria-disabled"] = "true"
	}
	return attrs
}

// cursorX places the moment's line on the tracks' 1000-wide viewBox.
func cursorX(page replayPage) string {
	return strconv.FormatInt(min(page.Frame.AtMS*1000/max(page.Replay.DurationMS, 1), 1000), 10)
}

func mdTimeOf(r *rooms.Replay) string { return r.StartedAt.UTC().Format("2 January 2006, 15:04 UTC") }

// replayCursorsText says where each participant's cursor was at a
// moment; room-replay.js words it the same when scrubbing.
func replayCursorsText(cursors []rooms.FrameCursor) string {
	if len(cursors) == 0 {
		return "No cursor reported yet."
	}
	var parts []string
	for _, c := range cursors {
		who := "Candidate"
		if c.Actor == string(rooms.Interviewer) {
			who = "Interviewer"
		}
		s := fmt.Sprintf("%s's cursor: line %d, column %d", who, c.Line, c.Column)
		switch n := max(c.Head-c.Anchor, c.Anchor-c.Head); n {
		case 0:
		case 1:
			s += ", with 1 character selected"
		default:
			s += fmt.Sprintf(", with %d characters selected", n)
		}
		parts = append(parts, s+".")
	}
	return strings.Join(parts, " ")
}
