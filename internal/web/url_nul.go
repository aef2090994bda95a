package web

import (
	"net/http"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"
)

// rejectNUL refuses an address that holds U+0000 (%00) in its path or in a
// query parameter, before any handler looks it up. No page, slug, room or
// key has that character, and Postgres text cannot even be compared with
// it: a room id or key holding it made the lookup fail as a server error
// there, where SQLite simply found nothing. One check for every route keeps
// the two stores' answers the same and the handlers free of it. Form
// fields are not checked here: answers, drafts and code drop the character
// as they are stored (storage's storableText), and the fields that name
// something are numbers or choices each handler parses.
func (s *Server) rejectNUL(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := c.Request().URL
		if strings.Contains(u.Path, "\x00") {
			return answered(codeError(c, http.StatusNotFound,
				"There is no page at this address: its path holds the character U+0000 (%00), which no address here has."))
		}
		if !strings.Contains(u.RawQuery, "%00") && !strings.Contains(u.RawQuery, "\x00") {
			return next(c)
		}
		var bad []string
		for name, values := range c.QueryParams() {
			for _, v := range values {
				if strings.Contains(name+v, "\x00") {
					bad = append(bad, quoteForUser(strings.ReplaceAll(name, "\x00", "%00")))
					break
				}
			}
		}
		if len(bad) == 0 {
			return next(c)
		}
		sort.Strings(bad)
		return answered(codeError(c, http.StatusBadRequest,
			"The address's query parameter "+strings.Join(bad, ", ")+" holds the character U+0000 (%00), which no value here has. Remove it and try again."))
	}
}
