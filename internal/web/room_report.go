package web

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/rooms"
)

// roomRunData is the stored report of one of the room's runs of the
// current step, as the asker's role may see it: the interviewer any run
// with a report, the candidate only one shared with them. Anything else
// is not found, whichever the reason, so a candidate learns nothing of
// runs not shared.
func (s *Server) roomRunData(c echo.Context) (run int64, title string, data json.RawMessage, err error) {
	ctx := c.Request().Context()
	a := accessOf(c)
	run, perr := strconv.ParseInt(c.Param("run"), 10, 64)
	missing := notFound("This room has no report of run " + strconv.Quote(c.Param("run")) + " to show you.")
	if perr != nil || run < 1 {
		return 0, "", nil, missing
	}
	if a.Role == rooms.Interviewer {
		iv, err := s.rooms.InterviewerView(ctx, a)
		if err != nil {
			return 0, "", nil, err
		}
		for _, r := range iv.Runs {
			if r.Run == run && len(r.Report) > 0 {
				return run, "Run " + strconv.FormatInt(run, 10) + ": " + r.Summary, r.Report, nil
			}
		}
		return 0, "", nil, missing
	}
	cv, err := s.rooms.CandidateView(ctx, a)
	if err != nil {
		return 0, "", nil, err
	}
	for i, r := range cv.Shared {
		if r.Run == run && len(r.Report) > 0 {
			return run, "Report " + strconv.Itoa(i+1) + ": " + r.Summary, r.Report, nil
		}
	}
	return 0, "", nil, missing
}

// roomRunReport serves one run's report: alone (?part=1) for the room's
// script, which puts it in place when its entry is opened, or as a page
// of its own, which is where the entry links without JavaScript.
func (s *Server) roomRunReport(c echo.Context) error {
	run, title, data, err := s.roomRunData(c)
	if err != nil {
		return s.roomError(c, err)
	}
	base := roomBase(accessOf(c).Room.ID)
	v, err := roomReportView(base, run, data)
	if err != nil {
		return err
	}
	roomReportCaching(c)
	if c.QueryParam("part") != "" {
		return render(c, http.StatusOK, roomReportPart(v))
	}
	m := s.withGradeReport(s.meta(title))
	return render(c, http.StatusOK, roomRunReportView(m, roomRunReportPage{Base: base, Title: title, View: v}))
}

// roomRunScenario serves a scenario's part of a room run's report, as
// gradeRunScenario does a solo run's; a pass has no run kept to show.
func (s *Server) roomRunScenario(c echo.Context) error {
	run, title, data, err := s.roomRunData(c)
	if err != nil {
		return s.roomError(c, err)
	}
	base := roomBase(accessOf(c).Room.ID)
	v, err := roomReportView(base, run, data)
	if err != nil {
		return err
	}
	name := c.Param("name")
	var sc *gradewire.ScenarioReport
	for i := range v.R.Scenarios {
		if v.R.Scenarios[i].Name == name && !needsReplay(v.R.Scenarios[i]) {
			sc = &v.R.Scenarios[i]
		}
	}
	if sc == nil {
		return s.roomError(c, notFound("Run "+strconv.FormatInt(run, 10)+" keeps no run of a scenario "+strconv.Quote(name)+"."))
	}
	f := newFailedScenario(*sc, v.R.Kit, v.P)
	roomReportCaching(c)
	if c.QueryParam("part") != "" {
		return render(c, http.StatusOK, scenarioBody(v, f))
	}
	v.Alone = true
	m := s.withGradeReport(s.meta(sc.Title + ": " + title))
	return render(c, http.StatusOK, roomRunScenarioView(m, roomRunReportPage{Base: base, Title: title, View: v}, f))
}

// roomReportCaching lets a browser keep a finished run's report, which
// never changes, for the link (key) it was sent to.
func roomReportCaching(c echo.Context) {
	c.Response().Header().Set("Cache-Control", "private, max-age=3600")
	c.Response().Header().Add("Vary", "Cookie")
}

// roomRunReportPage is a room run's report on a page of its own.
type roomRunReportPage struct {
	Base  string
	Title string
	View  reportView
}
