package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/rooms"
)

// roomPage is a room's page for one role. Interviewer is nil on the
// candidate's page: the candidate's page is built from rooms.CandidateView
// alone, which holds nothing of the interviewer's.
type roomPage struct {
	Base        string
	Role        rooms.Role
	View        rooms.CandidateView
	Interviewer *rooms.InterviewerView
	Reports     []roomReport // shared reports (candidate) or every run (interviewer), newest first
	LastSeq     int64        // where this page's stream starts: a seq for the interviewer, a public seq for the candidate
	Code        string       // the shared code at CodeVersion
	CodeVersion int64
	ClientID    string
	Expires     time.Time
	Now         time.Time
	Grading     bool
}

// roomReport is a run as a page shows it.
type roomReport struct {
	Run     int64
	Title   string
	Status  string // "running", "done", "busy", "system-error"
	Summary string
	Shared  bool
	Body    templ.Component // nil when there is no report
}

func (s *Server) roomShow(c echo.Context) error {
	page, err := s.roomPageOf(c)
	if err != nil {
		return s.roomError(c, err)
	}
	title := "Live screen: " + page.View.Current.Title
	m := s.meta(title)
	m.CSS = append(m.CSS, s.assets.url("grade-report.css"), s.assets.url("room.css"))
	// The editor bundle is most of the page's weight: a step with no code
	// goes without it (a move to the next step reloads the page). The
	// code pane is the workspace's, with its styles and settings, and the
	// shared editor's part of the bundle, which only rooms load.
	if page.View.Current.HasCode {
		m.CSS = append(m.CSS, s.assets.url("code-workspace.css"))
		m.Scripts = append(m.Scripts, s.assets.url("editor.js"), s.assets.url("editor-collab.js"), s.assets.url("editor-tools.js"))
	}
	m.Scripts = append(m.Scripts, s.assets.url("room.js"))
	if page.Interviewer != nil {
		return render(c, http.StatusOK, roomInterviewerView(m, page))
	}
	// The candidate's page is the solo page's workspace, or its answer
	// box: their styles and scripts (the workspace's tabs and divider;
	// the box's clock and autosave).
	switch {
	case page.View.Current.HasCode:
		m.Scripts = append(m.Scripts, s.assets.url("workspace.js"))
	case page.View.Current.IsQuestion:
		m = s.withTimedAnswerAssets(m)
	}
	return render(c, http.StatusOK, roomCandidateView(m, page))
}

// roomPanel is the part of the page that events change, alone: the
// page's script swaps it in when the room's stream says something
// happened.
func (s *Server) roomPanel(c echo.Context) error {
	page, err := s.roomPageOf(c)
	if err != nil {
		return s.roomError(c, err)
	}
	if page.Interviewer != nil {
		return render(c, http.StatusOK, roomInterviewerPanel(page))
	}
	return render(c, http.StatusOK, roomCandidatePanel(page))
}

func (s *Server) roomPageOf(c echo.Context) (roomPage, error) {
	ctx := c.Request().Context()
	a := accessOf(c)
	page := roomPage{Base: roomBase(a.Room.ID), Role: a.Role, Expires: a.Room.ExpiresAt, Now: time.Now(), Grading: s.rooms.Grading()}
	if a.Role == rooms.Interviewer {
		iv, err := s.rooms.InterviewerView(ctx, a)
		if err != nil {
			return roomPage{}, err
		}
		page.View, page.Interviewer, page.LastSeq = iv.Candidate, &iv, iv.LastSeq
		for i := len(iv.Runs) - 1; i >= 0; i-- {
			r := iv.Runs[i]
			rep, err := reportOf(ctx, r.Run, r.Status, r.Summary, r.Report)
			if err != nil {
				return roomPage{}, err
			}
			rep.Shared = r.Shared
			switch {
			case r.Lost:
				rep.Status, rep.Summary = "lost", "The server stopped while grading; this run's report will not come. Run the grader again."
			case !r.Finished:
				rep.Status, rep.Summary = "running", "Grading..."
			}
			page.Reports = append(page.Reports, rep)
		}
	} else {
		cv, err := s.rooms.CandidateView(ctx, a)
		if err != nil {
			return roomPage{}, err
		}
		page.View, page.LastSeq = cv, cv.LastSeq
		for i := len(cv.Shared) - 1; i >= 0; i-- {
			r := cv.Shared[i]
			rep, err := reportOf(ctx, r.Run, "done", r.Summary, r.Report)
			if err != nil {
				return roomPage{}, err
			}
			// Numbered among the reports shared, not by the room's
			// event: that would count the interviewer's private events.
			rep.Run = int64(i + 1)
			rep.Title = "Report " + strconv.Itoa(i+1)
			page.Reports = append(page.Reports, rep)
		}
	}
	if page.View.Current.HasCode {
		code, v, err := s.rooms.CodeText(ctx, a, a.Items[page.View.Current.Index])
		if err != nil {
			return roomPage{}, err
		}
		page.Code, page.CodeVersion, page.ClientID = code, v, rooms.ClientID(a)
	}
	return page, nil
}

func reportOf(ctx context.Context, run int64, status, summary string, data json.RawMessage) (roomReport, error) {
	rep := roomReport{Run: run, Title: "Run " + strconv.FormatInt(run, 10), Status: status, Summary: summary}
	if len(data) == 0 {
		return rep, nil
	}
	var r gradewire.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return roomReport{}, fmt.Errorf("web: decode the report of room run %d: %w", run, err)
	}
	if r.Diagnostics == nil {
		r.Diagnostics = []gradewire.Diagnostic{}
	}
	rep.Body = gradeReport(&r, "")
	return rep, nil
}

// clockText is a clock for people: "12:30 left", "paused, 3:05 left",
// "not started (35 min)".
func clockText(c rooms.ClockAt) string {
	left := time.Duration(c.RemainingMS) * time.Millisecond
	mmss := func(d time.Duration) string {
		d = max(d, 0).Round(time.Second)
		return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
	}
	switch c.Phase {
	case "idle":
		return fmt.Sprintf("Not started (%d min)", c.LimitMS/60000)
	case "running":
		return mmss(left) + " left"
	case "paused":
		return "Paused, " + mmss(left) + " left"
	case "up":
		return "Time is up"
	}
	return ""
}
