package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// userCookie holds the anonymous user id: 128 random bits in hex.
const (
	userCookie    = "faultline_user"
	userIDBytes   = 16
	userCookieAge = 400 * 24 * time.Hour // the longest browsers keep a cookie
)

type userIDKey struct{}

var errNoIdentity = errors.New("web: no user id on the request: the identity middleware did not run")

// withUserID returns ctx carrying the anonymous user id.
func withUserID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, userIDKey{}, id)
}

// UserID returns the anonymous user id the identity middleware attached.
func UserID(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(userIDKey{}).(string)
	return id, ok && id != ""
}

// identify reads the user id cookie or, when it is missing or malformed, sets
// a new random one. Browsing does not write to the database: the user row is
// created on the first form the user sends.
func (s *Server) identify(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if path := req.URL.Path; path == "/healthz" || strings.HasPrefix(path, "/static/") {
			return next(c) // no identity needed; health probes should not collect cookies
		}
		id := ""
		if ck, err := req.Cookie(userCookie); err == nil && validUserID(ck.Value) {
			id = ck.Value
		} else {
			id = newUserID()
			c.SetCookie(&http.Cookie{
				Name:     userCookie,
				Value:    id,
				Path:     "/",
				MaxAge:   int(userCookieAge / time.Second),
				HttpOnly: true,
				Secure:   clientOf(req.Context()).tls,
				SameSite: http.SameSiteLaxMode,
			})
		}
		c.SetRequest(req.WithContext(withUserID(req.Context(), id)))
		return next(c)
	}
}

func newUserID() string {
	var b [userIDBytes]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
	return hex.EncodeToString(b[:])
}

func validUserID(v string) bool {
	if len(v) != 2*userIDBytes {
		return false
	}
	for _, r := range v {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// requireUser returns the request's user id; its absence means the identity
// middleware did not run, a bug in the router setup.
func requireUser(c echo.Context) (string, error) {
	id, ok := UserID(c.Request().Context())
	if !ok {
		return "", echo.NewHTTPError(http.StatusInternalServerError).SetInternal(errNoIdentity)
	}
	return id, nil
}
