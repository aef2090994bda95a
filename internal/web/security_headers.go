package web

import (
	"crypto/rand"
	"encoding/base64"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// hstsMaxAge is a year, the value browsers' preload lists ask for. No
// includeSubDomains: the operator's other hosts are none of our business.
const hstsMaxAge = "max-age=31536000"

// noStore is the Cache-Control of anything that depends on the identity
// cookie: a shared cache must never hand one user's page to another, and
// the browser's back button should not show a stale timer or report.
const noStore = "private, no-store"

// contentSecurityPolicy allows only this site's own scripts, styles,
// connections and images (plus data: images, which CodeMirror's lint
// underlines are drawn with), and nothing inline but what carries the
// request's nonce: the <style> elements CodeMirror injects get it through
// EditorView.cspNonce. Inline style="" attributes are not allowed (no
// 'unsafe-inline'; with a nonce present browsers would ignore it anyway):
// the templates use classes, and scripts that move things set
// element.style, which CSP does not restrict. nonce "" leaves the nonce
// out, for responses that are not pages.
func contentSecurityPolicy(nonce string) string {
	self := "'self'"
	if nonce != "" {
		self += " 'nonce-" + nonce + "'"
	}
	return strings.Join([]string{
		"default-src 'self'",
		"script-src " + self,
		"style-src " + self,
		"img-src 'self' data:",
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors 'none'",
	}, "; ")
}

// newNonce is 128 random bits, base64 as CSP wants it.
func newNonce() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
	return base64.StdEncoding.EncodeToString(b[:])
}

// isStaticPath: static files are the same for everyone and cached for a
// year; everything else may depend on who asks.
func isStaticPath(path string) bool { return strings.HasPrefix(path, "/static/") }

// secureHeaders sets the headers every response carries, before the
// handler runs, so error pages have them too. Pages find the nonce with
// templ.GetNonce on the request's context.
func (s *Server) secureHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		h := c.Response().Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY") // frame-ancestors for browsers that predate it
		h.Set("Referrer-Policy", "same-origin")
		if clientOf(req.Context()).tls {
			// Only over TLS: sent over plain HTTP it is ignored, and a
			// server reached only by HTTP (a laptop) must stay reachable.
			h.Set("Strict-Transport-Security", hstsMaxAge)
		}
		if isStaticPath(req.URL.Path) {
			h.Set("Content-Security-Policy", contentSecurityPolicy(""))
			return next(c)
		}
		nonce := newNonce()
		h.Set("Content-Security-Policy", contentSecurityPolicy(nonce))
		h.Set("Cache-Control", noStore)
		c.SetRequest(req.WithContext(templ.WithNonce(req.Context(), nonce)))
		return next(c)
	}
}
