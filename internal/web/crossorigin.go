package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// crossOrigin is the standard library's CSRF defence: a state-changing request
// is refused when the browser says it comes from another origin
// (Sec-Fetch-Site, or else Origin compared with Host). Together with the
// SameSite=Lax user cookie this protects every POST form without tokens,
// so forms keep working without JavaScript.
var crossOrigin = http.NewCrossOriginProtection()

// rejectCrossOrigin applies crossOrigin and routes a refusal through the one
// error handler.
func (s *Server) rejectCrossOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := crossOrigin.Check(c.Request()); err != nil {
			return echo.NewHTTPError(http.StatusForbidden,
				"This form was sent from another site, so it was refused. Open the page on this site and send it again.").
				SetInternal(err)
		}
		return next(c)
	}
}
