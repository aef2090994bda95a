package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/storage"
)

// roomSource is one thing a room can be made from, for the new-room page.
type roomSource struct {
	Value   string // "screen:slug" or "problem:slug", the form's value
	Title   string
	Summary string
	Python  bool // some code step of it can be written in Python
}

type roomNewPage struct {
	Screens  []roomSource
	Problems []roomSource
	Selected string
	// Python is whether any source has a step with a Python starter: only
	// then does the form offer the language. PythonWhy says why Python
	// cannot be graded on this server ("" when it can); the option is
	// then disabled with the reason beside it.
	Python    bool
	PythonWhy string
}

// hasPythonStarter reports whether p's code can be written in Python.
func hasPythonStarter(p *problems.Problem) bool {
	return p != nil && p.Code != nil && p.Code.PythonStarter != ""
}

// screenHasPython reports whether some problem of sc can be written in
// Python.
func screenHasPython(cat *problems.Catalog, sc *problems.Screen) bool {
	for _, si := range sc.Items {
		if si.Problem == "" {
			continue
		}
		if p, ok := cat.Problem(si.Problem); ok && hasPythonStarter(p) {
			return true
		}
	}
	return false
}

// roomNew shows the form that makes a room from a screen or a problem.
func (s *Server) roomNew(c echo.Context) error {
	page := roomNewPage{Selected: c.QueryParam("from")}
	cat := s.fullCatalog(c.Request().Context()) // interview-only content too: rooms are where it is used
	for _, sc := range cat.Screens {
		py := screenHasPython(cat, sc)
		page.Screens = append(page.Screens, roomSource{Value: storage.RoomFromScreen + ":" + sc.Slug, Title: sc.Title, Summary: sc.Summary, Python: py})
		page.Python = page.Python || py
	}
	for _, p := range cat.Problems {
		py := hasPythonStarter(p)
		page.Problems = append(page.Problems, roomSource{Value: storage.RoomFromProblem + ":" + p.Slug, Title: p.Title, Summary: p.Summary, Python: py})
		page.Python = page.Python || py
	}
	page.PythonWhy = s.pythonWhy
	if page.Selected == "" && len(page.Screens) > 0 {
		page.Selected = page.Screens[0].Value
	}
	m := s.meta("New live screen")
	m.CSS = append(m.CSS, s.assets.url("room.css"))
	return render(c, http.StatusOK, roomNewView(m, page))
}

type roomCreatedPage struct {
	Base           string
	InterviewerURL string
	CandidateURL   string // "" for a room made before candidate keys were derived
	Expires        string
}

// roomCreate makes the room and sends its maker, the interviewer, to its
// links page: their browser now holds the interviewer's key, so the page
// can be opened again (roomLinks) and a reload makes no second room.
func (s *Server) roomCreate(c echo.Context) error {
	form, err := readForm(c)
	if err != nil {
		return err
	}
	kind, slug, ok := strings.Cut(form.Get("source"), ":")
	if !ok {
		return badRequest("Choose a screen or a problem to make the room from.")
	}
	lang := strings.TrimSpace(form.Get("lang"))
	switch lang {
	case "", storage.LangGo:
		lang = storage.LangGo
	case storage.LangPython:
		if s.pythonWhy != "" {
			return s.langUnavailable(c, "Python cannot be graded on this server: "+s.pythonWhy+" Make the room in Go.")
		}
	default:
		return answered(codeError(c, http.StatusBadRequest, "There is no language "+strconv.Quote(lang)+" to code in; a room's code is in Go (\"go\") or Python (\"python\")."))
	}
	ctx := c.Request().Context()
	links, err := s.rooms.CreateIn(ctx, clientOf(ctx).key, kind, slug, lang)
	if err != nil {
		return s.roomError(c, err)
	}
	setRoomCookie(c, links.RoomID, links.InterviewerKey, links.ExpiresAt)
	return c.Redirect(http.StatusSeeOther, roomBase(links.RoomID)+"/links")
}

// roomLinks shows the room's two links to its interviewer, as often as
// they ask: the interviewer's key is in their cookie, and the candidate's
// is derived from it (rooms.Service.Links).
func (s *Server) roomLinks(c echo.Context) error {
	a := accessOf(c)
	key := ""
	if ck, err := c.Request().Cookie(roomCookie); err == nil {
		key = ck.Value
	}
	links, err := s.rooms.Links(a, key)
	if err != nil {
		return s.roomError(c, err)
	}
	origin := siteOrigin(c)
	page := roomCreatedPage{
		Base:           roomBase(a.Room.ID),
		InterviewerURL: origin + roomEnterURL(links.RoomID, links.InterviewerKey),
		Expires:        links.ExpiresAt.UTC().Format("15:04 MST on 2 January"),
	}
	if links.CandidateKey != "" {
		page.CandidateURL = origin + roomEnterURL(links.RoomID, links.CandidateKey)
	}
	// The links carry the keys: no referrer may take this page's address
	// anywhere, and nothing may keep the page.
	c.Response().Header().Set("Referrer-Policy", "no-referrer")
	c.Response().Header().Set("Cache-Control", "no-store")
	m := s.meta("The room's links")
	m.CSS = append(m.CSS, s.assets.url("room.css"))
	m.Scripts = append(m.Scripts, s.assets.url("room-links.js"))
	return render(c, http.StatusOK, roomCreatedView(m, page))
}

// roomsIndex answers GET /rooms, the address a browser shows after making
// a room the old way or a reload: the rooms' pages start at a new room.
func (s *Server) roomsIndex(c echo.Context) error {
	return c.Redirect(http.StatusSeeOther, "/rooms/new")
}

func roomEnterURL(roomID, key string) string { return roomBase(roomID) + "/enter?key=" + key }

// siteOrigin is the scheme and host the client used, for links to copy.
func siteOrigin(c echo.Context) string {
	scheme := "http"
	if clientOf(c.Request().Context()).tls {
		scheme = "https"
	}
	return scheme + "://" + c.Request().Host
}

// roomEnter opens a link: the key moves from the URL into the room's
// cookie, and the browser goes on to the room's address, which holds no
// key, so the key stays out of history, bookmarks and Referer headers.
// The hop is a page that refreshes itself rather than a redirect: a
// SameSite=Strict cookie set while following a link from another site (a
// mail, a chat) is not sent on that navigation's redirects, but is on a
// navigation the site's own page starts.
func (s *Server) roomEnter(c echo.Context) error {
	roomID, key := c.Param("room"), c.QueryParam("key")
	c.Response().Header().Set("Referrer-Policy", "no-referrer")
	a, err := s.rooms.Authenticate(c.Request().Context(), roomID, key)
	if recordOnly(a, err) {
		return s.roomEnterRecord(c, roomID, key) // room_replay.go
	}
	if err != nil {
		return s.roomRefused(c, a, err)
	}
	setRoomCookie(c, roomID, key, a.Room.ExpiresAt)
	c.Response().Header().Set("Refresh", "0; url="+roomBase(roomID))
	who := "the interviewer"
	if a.Role == rooms.Candidate {
		who = "the candidate"
	}
	return render(c, http.StatusOK, roomEnterView(s.meta("Entering the room"), roomBase(roomID), who))
}

// roomLangDescribedBy is the language select's description: its help,
// and why Python is off when it is.
func roomLangDescribedBy(why string) string {
	if why != "" {
		return "room-lang-help room-lang-why"
	}
	return "room-lang-help"
}
