package web

import (
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
	Language    string       // the room's code language, storage.LangGo or storage.LangPython
	Code        string       // the shared code at CodeVersion
	CodeVersion int64
	ClientID    string
	Expires     time.Time
	Now         time.Time
	Grading     bool
	Cites       *citeChoices // what a score may cite (the interviewer's page, once a run has finished)
}

// roomReport is a run as a page shows it.
type roomReport struct {
	Run     int64 // the number the page shows (the candidate counts shared reports)
	ID      int64 // the room's run, as the report's own address names it
	Title   string
	Status  string // "running", "done", "busy", "system-error"
	Summary string
	Shared  bool
	Body    templ.Component // nil when there is no report, or it is loaded when opened
	// Src is the report's own address when its body is loaded when opened
	// (every report but the newest: a room page is swapped on each of the
	// room's events, and sixty reports sent whole made the interviewer's
	// panel take a third of a second); without JavaScript it is a link.
	Src string
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
	// The report's script loads a scenario's run when it is opened.
	m.Scripts = append(m.Scripts, s.assets.url("grade-report.js"), s.assets.url("room.js"))
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
	page := roomPage{Base: roomBase(a.Room.ID), Role: a.Role, Language: a.Room.Language, Expires: a.Room.ExpiresAt, Now: time.Now(), Grading: s.rooms.Grading()}
	if a.Role == rooms.Interviewer {
		iv, err := s.rooms.InterviewerView(ctx, a)
		if err != nil {
			return roomPage{}, err
		}
		page.View, page.Interviewer, page.LastSeq = iv.Candidate, &iv, iv.LastSeq
		page.Cites = newCiteChoices(iv.Runs)
		for i := len(iv.Runs) - 1; i >= 0; i-- {
			r := iv.Runs[i]
			rep, err := reportOf(page.Base, r.Run, r.Status, r.Summary, r.Report, len(page.Reports) > 0)
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
			rep, err := reportOf(page.Base, r.Run, "done", r.Summary, r.Report, len(page.Reports) > 0)
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

// reportOf is run's entry on a room's page, whose address is base: its
// report whole, or with later set, only where to load it from.
func reportOf(base string, run int64, status, summary string, data json.RawMessage, later bool) (roomReport, error) {
	rep := roomReport{Run: run, ID: run, Title: "Run " + strconv.FormatInt(run, 10), Status: status, Summary: summary}
	if len(data) == 0 {
		return rep, nil
	}
	if later {
		rep.Src = roomRunURL(base, run) + "/report"
		return rep, nil
	}
	v, err := roomReportView(base, run, data)
	if err != nil {
		return roomReport{}, err
	}
	rep.Body = reportBody(v)
	return rep, nil
}

// roomRunURL is the address of a room's run, under which its report and
// its scenarios' parts are served.
func roomRunURL(base string, run int64) string {
	return base + "/runs/" + strconv.FormatInt(run, 10)
}

// roomRunHeading is the id of the heading of run's entry on a room's page.
func roomRunHeading(run int64) string { return "room-run-" + strconv.FormatInt(run, 10) + "-h" }

// roomReportView arranges a room run's stored report: the first failure
// whole, the other scenarios' runs loaded when opened, as a solo run's
// page does; ids carry the run, since a page shows several reports.
func roomReportView(base string, run int64, data json.RawMessage) (reportView, error) {
	var r gradewire.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return reportView{}, fmt.Errorf("web: decode the report of room run %d: %w", run, err)
	}
	if r.Diagnostics == nil {
		r.Diagnostics = []gradewire.Diagnostic{}
	}
	v := deferRuns(newReportView(&r, "", "r"+strconv.FormatInt(run, 10)+"-"), roomRunURL(base, run))
	v.NoReplay = true
	v.WholeURL = roomRunURL(base, run) + "/report"
	v.Of = roomRunHeading(run)
	return v, nil
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
