package web

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
)

// logRecord is the part of a slog record the tests look at.
type logRecord struct {
	level   slog.Level
	message string
}

// logRecorder is a slog handler that keeps every record.
type logRecorder struct {
	mu      sync.Mutex
	records []logRecord
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, logRecord{rec.Level, rec.Message})
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

// errors lists the error-level records.
func (r *logRecorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.records {
		if rec.level >= slog.LevelError {
			out = append(out, rec.message)
		}
	}
	return out
}

// newLoggedApp is the application with a log the test can read.
func newLoggedApp(t *testing.T) (*Server, *logRecorder) {
	t.Helper()
	store, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "web.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	logs := &logRecorder{}
	app, err := New(Config{Catalog: testCatalog(), Store: store, Log: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	return app, logs
}

// failingBody yields its text, then fails with err, as a body from a
// client that stalls or hangs up does.
type failingBody struct {
	r   io.Reader
	err error
}

func (b *failingBody) Read(p []byte) (int, error) {
	if n, _ := b.r.Read(p); n > 0 {
		return n, nil
	}
	return 0, b.err
}

// timeoutError is a net.Error that timed out, as a connection with a read
// deadline returns.
type timeoutError struct{}

func (timeoutError) Error() string   { return "read tcp 127.0.0.1:8080->127.0.0.1:5555: i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// formRoutes are routes that read a form, one per way of reading it, with
// what each answers with (a page, or JSON to a script).
var formRoutes = []struct {
	path string
	json bool
}{
	{"/practice/name", false},
	{"/problems/design-client/answer", false},
	{"/problems/refund-bug/answer", false}, // the timed box's plain form
	{"/problems/refund-bug/hints", false},
	{"/sets/rapid/questions/what-is-rag/answer", false},
	{"/problems/refund-bug/timer/start", true},
	{"/problems/refund-bug/timer/draft", true},
	{"/problems/refund-bug/code", false},
	{"/problems/refund-bug/code", true},
}

func TestFormBodyFailuresAreClientErrors(t *testing.T) {
	bodies := []struct {
		name       string
		body       func() io.Reader
		wantStatus int
		want       string
	}{
		{"deadline exceeded", func() io.Reader {
			return &failingBody{strings.NewReader("display_name=Ada&answer=x"), os.ErrDeadlineExceeded}
		}, http.StatusRequestTimeout, "arrived too slowly"},
		{"net timeout", func() io.Reader { return &failingBody{strings.NewReader("answer=x"), timeoutError{}} },
			http.StatusRequestTimeout, "arrived too slowly"},
		{"too large", func() io.Reader { return strings.NewReader("answer=" + strings.Repeat("x", 4<<20)) },
			http.StatusRequestEntityTooLarge, "larger than"},
		{"cut off", func() io.Reader { return &failingBody{strings.NewReader("answer=x"), io.ErrUnexpectedEOF} },
			http.StatusBadRequest, "could not be read"},
	}
	app, logs := newLoggedApp(t)
	for _, route := range formRoutes {
		for _, body := range bodies {
			t.Run(fmt.Sprintf("%s json=%v/%s", route.path, route.json, body.name), func(t *testing.T) {
				before := len(logs.errors())
				req := httptest.NewRequest(http.MethodPost, route.path, body.body())
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				if route.json {
					req.Header.Set("Accept", "application/json")
				}
				rec := httptest.NewRecorder()
				app.ServeHTTP(rec, req)
				if rec.Code != body.wantStatus {
					t.Fatalf("status = %d; want %d; body %.300s", rec.Code, body.wantStatus, rec.Body.String())
				}
				got := rec.Body.String()
				if !strings.Contains(got, body.want) {
					t.Errorf("answer lacks %q: %.300s", body.want, got)
				}
				if strings.Contains(got, "127.0.0.1") || strings.Contains(got, "i/o timeout") {
					t.Errorf("answer shows the read error's internals: %.300s", got)
				}
				if json := strings.Contains(rec.Header().Get("Content-Type"), "json"); json != route.json {
					t.Errorf("Content-Type = %q; want JSON %v", rec.Header().Get("Content-Type"), route.json)
				}
				if errs := logs.errors()[before:]; len(errs) > 0 {
					t.Errorf("logged as server errors: %q", errs)
				}
			})
		}
	}
}

// TestSlowBodyThroughRealServer sends half a form and stalls, through a
// real http.Server with a ReadTimeout: net/http then cancels the request's
// context too, and the error page must still be rendered.
func TestSlowBodyThroughRealServer(t *testing.T) {
	app, logs := newLoggedApp(t)
	ts := httptest.NewUnstartedServer(app)
	ts.Config.ReadTimeout = 300 * time.Millisecond
	ts.Start()
	t.Cleanup(ts.Close)
	for _, route := range formRoutes {
		t.Run(fmt.Sprintf("%s json=%v", route.path, route.json), func(t *testing.T) {
			before := len(logs.errors())
			conn, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			accept := "text/html"
			if route.json {
				accept = "application/json"
			}
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAccept: %s\r\n"+
				"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nanswer=half",
				route.path, ts.Listener.Addr(), accept)
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestTimeout {
				t.Fatalf("status = %d; want 408; body %.300s", resp.StatusCode, body)
			}
			if !strings.Contains(string(body), "arrived too slowly") {
				t.Errorf("answer lacks the reason: %.300s", body)
			}
			if errs := logs.errors()[before:]; len(errs) > 0 {
				t.Errorf("logged as server errors: %q", errs)
			}
		})
	}
}

func TestFormMustBeAForm(t *testing.T) {
	app, _ := newLoggedApp(t)
	tests := []struct {
		name, ctype, body string
		wantStatus        int
		want              string
	}{
		{"JSON", "application/json", `{"display_name":"Ada"}`, http.StatusUnsupportedMediaType, `sent as &#34;application/json&#34;`},
		{"multipart", "multipart/form-data; boundary=x", "--x--", http.StatusUnsupportedMediaType, "multipart/form-data"},
		{"no type", "", "display_name=Ada", http.StatusUnsupportedMediaType, "with no Content-Type"},
		{"form with charset", "application/x-www-form-urlencoded; charset=UTF-8", "display_name=Ada", http.StatusSeeOther, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/practice/name", strings.NewReader(tt.body))
			if tt.ctype != "" {
				req.Header.Set("Content-Type", tt.ctype)
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus {
				t.Fatalf("status = %d; want %d; body %.300s", rec.Code, tt.wantStatus, rec.Body.String())
			}
			if !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("answer lacks %q: %.400s", tt.want, rec.Body.String())
			}
		})
	}
	_ = url.Values{}
}

// TestClientGoneIsNoServerError: a handler stopped because the client hung
// up (its query failed with the request's cancelled context) is not logged
// as a server error; a cancelled context while the client is still there
// is one.
func TestClientGoneIsNoServerError(t *testing.T) {
	app, logs := newLoggedApp(t)
	app.Echo().GET("/test/query-cancelled", func(c echoContext) error {
		return fmt.Errorf("storage: user attempts: %w", context.Canceled)
	})
	tests := []struct {
		name       string
		hangUp     bool
		wantStatus int
		wantErrors int
	}{
		{"client hung up", true, statusClientClosedRequest, 0},
		{"client still there", false, http.StatusInternalServerError, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(logs.errors())
			ctx, cancel := context.WithCancel(context.Background())
			if tt.hangUp {
				cancel()
			}
			defer cancel()
			req := httptest.NewRequest(http.MethodGet, "/test/query-cancelled", nil).WithContext(ctx)
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d; want %d", rec.Code, tt.wantStatus)
			}
			if got := len(logs.errors()) - before; got != tt.wantErrors {
				t.Errorf("%d error-level records; want %d", got, tt.wantErrors)
			}
		})
	}
}
