package web

import (
	"fmt"
	"html/template"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/rooms"
)

// scorecardPage is the scorecard as a page, with its exports linked.
type scorecardPage struct {
	Base      string
	Card      rooms.Scorecard
	NotesHTML template.HTML // the notes rendered, raw HTML escaped
}

func (s *Server) roomScorecard(c echo.Context) error {
	a := accessOf(c)
	sc, err := s.rooms.Scorecard(c.Request().Context(), a)
	if err != nil {
		return s.roomError(c, err)
	}
	page := scorecardPage{Base: roomBase(a.Room.ID), Card: sc}
	if sc.Notes != "" {
		html, err := problems.RenderMarkdown(sc.Notes)
		if err != nil {
			return fmt.Errorf("web: render the notes of room %s: %w", a.Room.ID, err)
		}
		page.NotesHTML = template.HTML(html)
	}
	meta := s.meta("Scorecard: " + sc.Room.Title)
	meta.CSS = append(meta.CSS, s.assets.url("room-record.css"))
	return render(c, http.StatusOK, roomScorecardView(meta, page))
}

// roomScorecardJSON is the scorecard's JSON export (rooms.Scorecard's
// documented shape), as a download.
func (s *Server) roomScorecardJSON(c echo.Context) error {
	a := accessOf(c)
	sc, err := s.rooms.Scorecard(c.Request().Context(), a)
	if err != nil {
		return s.roomError(c, err)
	}
	data, err := sc.JSON()
	if err != nil {
		return err
	}
	attachment(c, "scorecard-"+a.Room.ID+".json")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, data)
}

// roomScorecardMarkdown is the scorecard as Markdown, as a download.
func (s *Server) roomScorecardMarkdown(c echo.Context) error {
	a := accessOf(c)
	sc, err := s.rooms.Scorecard(c.Request().Context(), a)
	if err != nil {
		return s.roomError(c, err)
	}
	attachment(c, "scorecard-"+a.Room.ID+".md")
	return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(sc.Markdown()))
}

// attachment makes the answer a download named name. Room ids are
// base64url, so the name needs no quoting beyond the quotes.
func attachment(c echo.Context, name string) {
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
}

// scoreText is a point's score in words.
func scoreText(p rooms.ScorecardPoint) string {
	if p.Score == nil {
		return "not scored"
	}
	return fmt.Sprintf("%d of %d", *p.Score, p.MaxScore)
}

// evidenceText is a score's cited grader evidence in words.
func evidenceText(e *rooms.Cite) string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf("run %d: %s in %s %s", e.Run, e.Invariant, e.Scenario, e.Status)
}

// partText names a rubric point's part.
func partText(p rooms.ScorecardPoint) string {
	if p.Part == 0 {
		return "key point"
	}
	return fmt.Sprintf("part %d", p.Part)
}

func scorecardSignalText(sg rooms.ScorecardSignal) string {
	switch sg.Kind {
	case "paste":
		return fmt.Sprintf("step %d: pasted %d bytes into the %s", sg.Item+1, sg.Bytes, sg.Where)
	case "hidden":
		return "the tab was hidden"
	case "visible":
		return "the tab came back after " + durationText(sg.HiddenMS)
	}
	return sg.Kind
}
