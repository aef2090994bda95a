package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/storage"
)

// How handleError turns a handler's error into a page: overload says so
// and when to come back, a 503 written for the user keeps its words, and
// anything else hides its internals.
func TestErrorPages(t *testing.T) {
	app, _ := newTestApp(t, Config{Catalog: testCatalog()})
	cases := []struct {
		name       string
		err        error
		status     int
		retryAfter string
		shows      []string
		hides      []string
	}{
		{
			name:       "writers queued past the busy timeout",
			err:        fmt.Errorf("storage: save draft: %w", fmt.Errorf("storage: begin: no write transaction free within 5s: %w", storage.ErrBusy)),
			status:     http.StatusServiceUnavailable,
			retryAfter: "5",
			shows:      []string{"too busy to save this right now", "Nothing you saved before is lost"},
			hides:      []string{"storage: begin", "no write transaction"},
		},
		{
			name:   "a 503 worded for the user",
			err:    echo.NewHTTPError(http.StatusServiceUnavailable, "This run is starting; try again in a moment."),
			status: http.StatusServiceUnavailable,
			shows:  []string{"This run is starting; try again in a moment."},
		},
		{
			name:   "anything else broke",
			err:    errors.New("storage: scan runs: SECRET-INTERNAL"),
			status: http.StatusInternalServerError,
			hides:  []string{"SECRET-INTERNAL", "storage:"},
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := fmt.Sprintf("/error-test/%d", i)
			app.Echo().GET(path, func(echo.Context) error { return tc.err })
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			p := page{status: rec.Code, body: rec.Body.String(), header: rec.Header()}
			if p.status != tc.status {
				t.Errorf("status = %d, want %d", p.status, tc.status)
			}
			if got := p.header.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
			}
			p.mustContain(t, tc.shows...)
			p.mustNotContain(t, tc.hides...)
		})
	}
}
