package web

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/labstack/echo/v4"
)

func TestNegotiateCoding(t *testing.T) {
	tests := []struct {
		accept string
		want   string
	}{
		{"", codingIdentity},
		{"  ", codingIdentity},
		{"gzip", codingGzip},
		{"br", codingBrotli},
		{"gzip, deflate, br, zstd", codingBrotli}, // Chromium's; equal q: ours first
		{"gzip, br;q=0.9", codingGzip},
		{"br;q=0.5, gzip;q=0.8", codingGzip},
		{"BR", codingBrotli},
		{"x-gzip", codingGzip},
		{"gzip;q=0", codingIdentity},
		{"br;q=0, gzip;q=0", codingIdentity},
		{"br;q=0, *", codingGzip},
		{"*", codingBrotli},
		{"*;q=0", codingIdentity},                // refused everything: identity anyway, not a 406
		{"identity", codingIdentity},             // only identity named: nothing else is acceptable
		{"identity;q=0, gzip", codingGzip},       // identity refused
		{"gzip;q=0.5, identity", codingIdentity}, // identity has the higher q
		{"gzip;q=0.5, identity;q=0.5", codingGzip},
		{"deflate", codingIdentity},
		{"br;q=abc, gzip", codingGzip}, // malformed entry ignored
		{"br;q=1.5, gzip", codingGzip}, // out of range: ignored
		{"gzip;level=1;q=0.3", codingGzip},
		{" , ,gzip", codingGzip},
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.accept), func(t *testing.T) {
			if got := negotiateCoding(tt.accept, codingBrotli, codingGzip); got != tt.want {
				t.Errorf("negotiateCoding(%q) = %q; want %q", tt.accept, got, tt.want)
			}
		})
	}
	if got := negotiateCoding("br", codingGzip); got != codingIdentity {
		t.Errorf("br accepted, only gzip offered: %q; want identity", got)
	}
}

func decompress(t *testing.T, coding string, body []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return body
	case codingGzip:
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		r = zr
	case codingBrotli:
		r = brotli.NewReader(bytes.NewReader(body))
	default:
		t.Fatalf("unknown Content-Encoding %q", coding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", coding, err)
	}
	return out
}

// serve sends one request straight to the application, as net/http would
// hand it over, with the headers given.
func serve(app *Server, method, target string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	return rec
}

// withoutNonces makes two renderings of a page comparable.
func withoutNonces(b []byte) []byte {
	return nonceAttr.ReplaceAll(b, []byte(` nonce=""`))
}

// TestDynamicCompression: pages and JSON are compressed as the client
// asks, decompress to what an uncompressed request gets, and small bodies
// are left alone.
func TestDynamicCompression(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	app := ts.app
	cookie := map[string]string{"Cookie": userCookie + "=0123456789abcdef0123456789abcdef"}
	plain := serve(app, http.MethodGet, "/problems/refund-bug", cookie)
	if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" {
		t.Fatalf("without Accept-Encoding: status %d, Content-Encoding %q", plain.Code, plain.Header().Get("Content-Encoding"))
	}
	if plain.Body.Len() < compressMinBytes {
		t.Fatalf("the problem page is %d bytes; the test needs one over %d", plain.Body.Len(), compressMinBytes)
	}
	tests := []struct {
		name, path, accept string
		method             string
		wantCoding         string
		wantVary           bool
	}{
		{"page, browser's header: brotli on a tie", "/problems/refund-bug", "gzip, deflate, br, zstd", http.MethodGet, codingBrotli, true},
		{"page, gzip first but brotli offered", "/problems/refund-bug", "gzip, br", http.MethodGet, codingBrotli, true},
		{"page, brotli only", "/problems/refund-bug", "br", http.MethodGet, codingBrotli, true},
		{"page, brotli preferred by q", "/problems/refund-bug", "br, gzip;q=0.9", http.MethodGet, codingBrotli, true},
		{"page, gzip", "/problems/refund-bug", "gzip", http.MethodGet, codingGzip, true},
		{"page, gzip preferred by q", "/problems/refund-bug", "br;q=0.1, gzip", http.MethodGet, codingGzip, true},
		{"page, both refused", "/problems/refund-bug", "br;q=0, gzip;q=0", http.MethodGet, codingIdentity, true},
		{"page, identity only", "/problems/refund-bug", "identity", http.MethodGet, codingIdentity, true},
		{"tiny body", "/healthz", "gzip, br", http.MethodGet, codingIdentity, true},
		{"HEAD of a page", "/problems/refund-bug", "br", http.MethodHead, codingBrotli, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{"Accept-Encoding": tt.accept}
			for k, v := range cookie {
				h[k] = v
			}
			rec := serve(app, tt.method, tt.path, h)
			if got := rec.Header().Get("Content-Encoding"); got != tt.wantCoding {
				t.Fatalf("Content-Encoding = %q; want %q", got, tt.wantCoding)
			}
			if got := strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding"); got != tt.wantVary {
				t.Errorf("Vary = %q; want Accept-Encoding: %v", rec.Header().Get("Vary"), tt.wantVary)
			}
			if tt.wantCoding != codingIdentity && rec.Header().Get("Content-Length") != "" {
				t.Errorf("a compressed body with Content-Length %s", rec.Header().Get("Content-Length"))
			}
			if tt.method == http.MethodHead {
				return // the recorder keeps what net/http would drop
			}
			body := decompress(t, tt.wantCoding, rec.Body.Bytes())
			if tt.path == "/problems/refund-bug" && !bytes.Equal(withoutNonces(body), withoutNonces(plain.Body.Bytes())) {
				t.Errorf("decompressed page (%d bytes) differs from the uncompressed one (%d bytes)", len(body), plain.Body.Len())
			}
			if tt.wantCoding != codingIdentity && rec.Body.Len() >= len(body) {
				t.Errorf("compressed %d bytes to %d", len(body), rec.Body.Len())
			}
		})
	}
}

// TestHEADThroughCompression: HEAD gets GET's headers, compressed or not,
// and no body, over a real connection.
func TestHEADThroughCompression(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	for _, accept := range []string{"", "gzip", "br"} {
		t.Run(strconv.Quote(accept), func(t *testing.T) {
			get, head := ts.rawRequest(t, http.MethodGet, "/problems/refund-bug", accept), ts.rawRequest(t, http.MethodHead, "/problems/refund-bug", accept)
			if head.status != 200 || len(head.body) != 0 {
				t.Fatalf("HEAD: status %d, %d-byte body", head.status, len(head.body))
			}
			for _, name := range []string{"Content-Encoding", "Content-Type", "Vary", "Cache-Control"} {
				if g, h := get.header.Get(name), head.header.Get(name); g != h {
					t.Errorf("%s: GET %q, HEAD %q", name, g, h)
				}
			}
			if len(get.body) == 0 {
				t.Error("GET has no body")
			}
		})
	}
}

type rawResponse struct {
	status int
	header http.Header
	body   []byte
}

// rawRequest sends one request with exactly the Accept-Encoding given
// (Go's client would otherwise ask for gzip and undo it behind our back).
func (ts *testServer) rawRequest(t *testing.T, method, path, accept string) rawResponse {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", accept)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawResponse{status: resp.StatusCode, header: resp.Header, body: body}
}

// TestStaticFilesPrecompressed: every text file is served compressed in
// the coding asked for, from bytes made once (the same bytes each time),
// with an ETag per coding, and decompresses to the file.
func TestStaticFilesPrecompressed(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	assets := ts.app.assets
	<-assets.ready
	for name, orig := range assets.files {
		if !compressible(assetType(name)) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			etags := map[string]string{}
			for _, accept := range []string{"br", "gzip", "identity", ""} {
				rec := serve(ts.app, http.MethodGet, "/static/"+name, map[string]string{"Accept-Encoding": accept})
				if rec.Code != 200 {
					t.Fatalf("%q: status %d", accept, rec.Code)
				}
				coding := rec.Header().Get("Content-Encoding")
				want := negotiateCoding(accept, codingBrotli, codingGzip)
				if len(orig) > 200 && coding != want {
					t.Errorf("%q: Content-Encoding %q; want %q", accept, coding, want)
				}
				if !strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") {
					t.Errorf("%q: Vary = %q", accept, rec.Header().Get("Vary"))
				}
				if cl := rec.Header().Get("Content-Length"); cl != strconv.Itoa(rec.Body.Len()) {
					t.Errorf("%q: Content-Length %q for %d bytes", accept, cl, rec.Body.Len())
				}
				if got := decompress(t, coding, rec.Body.Bytes()); !bytes.Equal(got, orig) {
					t.Errorf("%q: %s decompresses to %d bytes, not the file's %d", accept, coding, len(got), len(orig))
				}
				if coding != "" {
					again := serve(ts.app, http.MethodGet, "/static/"+name, map[string]string{"Accept-Encoding": accept})
					if !bytes.Equal(again.Body.Bytes(), rec.Body.Bytes()) {
						t.Errorf("%q: two requests got different %s bytes", accept, coding)
					}
				}
				etags[coding] = rec.Header().Get("ETag")
			}
			seen := map[string]string{}
			for coding, etag := range etags {
				if other, ok := seen[etag]; ok {
					t.Errorf("codings %q and %q share the ETag %s", coding, other, etag)
				}
				seen[etag] = coding
			}
		})
	}
	if forms := assets.encoded["editor.js"]; len(forms) != 2 {
		t.Errorf("editor.js has %d compressed forms; want brotli and gzip", len(forms))
	}
}

func TestIfNoneMatch(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	path := ts.app.assets.url("site.css")
	tagOf := func(accept string) string {
		return serve(ts.app, http.MethodGet, path, map[string]string{"Accept-Encoding": accept}).Header().Get("ETag")
	}
	br, gz, plain := tagOf("br"), tagOf("gzip"), tagOf("")
	tests := []struct {
		name, accept, ifNoneMatch string
		want                      int
	}{
		{"same tag", "br", br, 304},
		{"weak form of the tag", "br", "W/" + br, 304},
		{"in a list", "br", `"nope", ` + br + `, "other"`, 304},
		{"in a list without spaces", "gzip", `"nope",` + gz, 304},
		{"star", "", "*", 304},
		{"identity's tag", "", plain, 304},
		{"another coding's tag", "br", gz, 200},
		{"identity's tag when brotli is sent", "br", plain, 200},
		{"another tag", "br", `"0000"`, 200},
		{"list without the tag", "br", `"a", W/"b"`, 200},
		{"malformed", "br", strings.Trim(br, `"`), 200},
		{"unterminated", "br", `"` + strings.Trim(br, `"`), 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(ts.app, http.MethodGet, path, map[string]string{"Accept-Encoding": tt.accept, "If-None-Match": tt.ifNoneMatch})
			if rec.Code != tt.want {
				t.Fatalf("If-None-Match %s: status %d; want %d", tt.ifNoneMatch, rec.Code, tt.want)
			}
			if tt.want == 304 {
				if rec.Body.Len() != 0 {
					t.Errorf("304 with a %d-byte body", rec.Body.Len())
				}
				if rec.Header().Get("ETag") == "" || !strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") ||
					!strings.Contains(rec.Header().Get("Cache-Control"), "immutable") {
					t.Errorf("304 headers lack ETag, Vary or Cache-Control: %v", rec.Header())
				}
				if rec.Header().Get("Content-Encoding") != "" {
					t.Errorf("304 with Content-Encoding %q", rec.Header().Get("Content-Encoding"))
				}
			}
		})
	}
}

// TestEventStreamThroughCompression: each server-sent event reaches a
// client that asked for compression while the run is still going, not
// when the stream ends; a client that takes both gets gzip, whose state is
// cheaper to hold for a stream's life.
func TestEventStreamThroughCompression(t *testing.T) {
	// "br, gzip": a tie, which a stream settles for gzip (compress.go).
	for _, accept := range []string{"br", "gzip", "br, gzip", ""} {
		t.Run(strconv.Quote(accept), func(t *testing.T) {
			g := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
			ts := newGradingTestServer(t, g)
			b := ts.newBrowser(t)
			started := b.startGrade("package refund\n")

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+started.EventsURL, nil)
			req.Header.Set("Accept-Encoding", accept)
			client := *b.client
			client.Transport = &http.Transport{DisableCompression: true}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			coding := resp.Header.Get("Content-Encoding")
			want := negotiateCoding(accept, streamOffers...)
			if accept == "br, gzip" && want != codingGzip {
				t.Fatalf("a stream offered both prefers %q; want gzip", want)
			}
			if coding != want {
				t.Fatalf("Content-Encoding = %q; want %q", coding, want)
			}
			var r io.Reader = resp.Body
			switch coding {
			case codingGzip:
				if r, err = gzip.NewReader(resp.Body); err != nil {
					t.Fatal(err)
				}
			case codingBrotli:
				r = brotli.NewReader(resp.Body)
			}
			events := make(chan string, 16)
			go func() {
				defer close(events)
				sc := bufio.NewScanner(r)
				for sc.Scan() {
					if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
						events <- name
					}
				}
			}()
			next := func() string {
				select {
				case ev, ok := <-events:
					if !ok {
						t.Fatal("the stream ended")
					}
					return ev
				case <-time.After(10 * time.Second):
					t.Fatal("no event within 10 s: held back by the compressor?")
				}
				return ""
			}
			for i := range failingReport().Scenarios {
				g.gate <- struct{}{} // one scenario finishes; the run goes on
				if ev := next(); ev != "progress" {
					t.Fatalf("event %d = %q; want progress", i+1, ev)
				}
			}
			g.gate <- struct{}{}
			if ev := next(); ev != "report" {
				t.Fatalf("last event = %q; want report", ev)
			}
		})
	}
}

// TestSendUncompressed: a response that asks to go out as it is does,
// through Echo's writer, whatever the client accepts; its flushes still
// reach the client one by one.
func TestSendUncompressed(t *testing.T) {
	for _, accept := range []string{"gzip", "br", "gzip, br", ""} {
		t.Run(strconv.Quote(accept), func(t *testing.T) {
			var cw *compressWriter
			handler := func(w http.ResponseWriter, r *http.Request) {
				cw = newCompressWriter(w, r)
				e := echo.New()
				e.GET("/", func(c echo.Context) error {
					sendUncompressed(c.Response())
					c.Response().Header().Set("Content-Type", "text/event-stream")
					c.Response().WriteHeader(http.StatusOK)
					fmt.Fprint(c.Response(), "data: one\n\n")
					c.Response().Flush()
					fmt.Fprint(c.Response(), "data: "+strings.Repeat("two ", 1000)+"\n\n")
					return nil
				})
				e.ServeHTTP(cw, r)
				cw.Close()
			}
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set("Accept-Encoding", accept)
			rec := httptest.NewRecorder()
			handler(rec, req)
			if got := rec.Header().Get("Content-Encoding"); got != "" {
				t.Errorf("Content-Encoding = %q; want none", got)
			}
			if !strings.HasPrefix(rec.Body.String(), "data: one\n\ndata: two ") {
				t.Errorf("body starts %.40q; want the events as written", rec.Body.String())
			}
			if !rec.Flushed {
				t.Error("the flush did not reach the client")
			}
		})
	}
	// Without it, the same client gets the stream compressed: the test
	// above would pass for a writer that never compresses.
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	rec := httptest.NewRecorder()
	cw := newCompressWriter(rec, req)
	cw.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(cw, "data: one\n\n")
	cw.Flush()
	cw.Close()
	if got := rec.Header().Get("Content-Encoding"); got != codingGzip {
		t.Errorf("a stream that does not ask: Content-Encoding = %q; want gzip", got)
	}
}
