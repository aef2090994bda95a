package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
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

// newIdentityMessage says why a new identity was not recorded; %d is the
// seconds to wait.
const newIdentityMessage = "Too many new visitors have come from your network address in a short time, so nothing of yours could be recorded yet. Try again in %d s."

// admitIdentity lets a request go on to create its user row: a user the
// store already has passes at once, a new one spends a token of its
// address's bucket of new identities (Config.NewIdentities). The cookie
// alone proves nothing: a client can make up its own ids. Refused, it is a
// 429 with Retry-After; plain browsing never gets here.
func (s *Server) admitIdentity(c echo.Context, userID string) error {
	if s.newIdentities == nil {
		return nil
	}
	ctx := c.Request().Context()
	_, err := s.store.User(ctx, userID)
	if err == nil {
		return nil
	}
	if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	ok, retry := s.newIdentities.Take(clientOf(ctx).key, 1)
	if ok {
		return nil
	}
	secs := retrySeconds(retry)
	c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
	return echo.NewHTTPError(http.StatusTooManyRequests, fmt.Sprintf(newIdentityMessage, secs))
}
