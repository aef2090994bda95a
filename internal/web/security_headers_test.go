package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/clientaddr"
)

var (
	cspNonce    = regexp.MustCompile(`'nonce-([A-Za-z0-9+/=]+)'`)
	scriptTag   = regexp.MustCompile(`<script\b[^>]*>`)
	styleTag    = regexp.MustCompile(`<style\b[^>]*>`)
	nonceAttr   = regexp.MustCompile(`\snonce="([^"]*)"`)
	styleAttr   = regexp.MustCompile(`<[a-zA-Z][^>]*\sstyle=`)
	handlerAttr = regexp.MustCompile(`<[a-zA-Z][^>]*\son[a-z]+=`)
)

// TestSecurityHeaders checks the headers every kind of response carries:
// pages, JSON answers, static files, error pages and the health probe.
func TestSecurityHeaders(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	b.get("/") // the cookie first, so the POSTs below are a known user's
	tests := []struct {
		name      string
		do        func() page
		wantType  string
		wantCache string // the whole Cache-Control value
		wantNonce bool   // a page, whose policy names a nonce
	}{
		{"home page", func() page { return b.get("/") }, "text/html", noStore, true},
		{"code problem page", func() page { return b.get("/problems/refund-bug") }, "text/html", noStore, true},
		{"question set with timed boxes", func() page { return b.get("/sets/rapid") }, "text/html", noStore, true},
		{"my practice", func() page { return b.get("/practice") }, "text/html", noStore, true},
		{"JSON answer to the script", func() page {
			return b.postCode("/problems/refund-bug/code", "package refund\n", true)
		}, "application/json", noStore, true},
		{"JSON error to the script", func() page {
			return b.postCode("/problems/refund-bug/grade", "package refund\n", true)
		}, "application/json", noStore, true},
		{"not found page", func() page { return b.get("/problems/nope") }, "text/html", noStore, true},
		{"unknown route", func() page { return b.get("/no/such/route") }, "text/html", noStore, true},
		{"bad form", func() page { return b.post("/problems/refund-bug/hints", url.Values{"part": {"x"}}) }, "text/html", noStore, true},
		{"static file", func() page { return b.get(ts.app.assets.url("site.css")) }, "text/css", "public, max-age=31536000, immutable", false},
		{"missing static file", func() page { return b.get("/static/nothing.css") }, "text/html", noStore, false},
		{"health probe", func() page { return b.get("/healthz") }, "text/plain", "no-store", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.do()
			h := p.header
			for name, want := range map[string]string{
				"X-Content-Type-Options": "nosniff",
				"X-Frame-Options":        "DENY",
				"Referrer-Policy":        "same-origin",
				"Cache-Control":          tt.wantCache,
			} {
				if got := h.Get(name); got != want {
					t.Errorf("%s = %q; want %q", name, got, want)
				}
			}
			if got := h.Get("Content-Type"); !strings.HasPrefix(got, tt.wantType) {
				t.Errorf("Content-Type = %q; want %s", got, tt.wantType)
			}
			if h.Get("Strict-Transport-Security") != "" {
				t.Error("HSTS sent over plain HTTP")
			}
			csp := h.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "object-src 'none'", "base-uri 'none'",
				"form-action 'self'", "frame-ancestors 'none'", "script-src 'self'", "style-src 'self'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-") || strings.Contains(csp, "*") {
				t.Errorf("Content-Security-Policy %q allows more than this site", csp)
			}
			if got := cspNonce.MatchString(csp); got != tt.wantNonce {
				t.Errorf("policy names a nonce: %v; want %v (%s)", got, tt.wantNonce, csp)
			}
			if strings.HasPrefix(h.Get("Content-Type"), "text/html") {
				checkInlineMarkup(t, csp, p.body)
			}
		})
	}
}

// checkInlineMarkup fails on anything in a page the policy would block:
// a script or style element without the response's nonce, a style=""
// attribute or an inline event handler.
func checkInlineMarkup(t *testing.T, csp, body string) {
	t.Helper()
	nonce := ""
	if m := cspNonce.FindStringSubmatch(csp); m != nil {
		nonce = m[1]
	}
	for _, re := range []*regexp.Regexp{scriptTag, styleTag} {
		for _, tag := range re.FindAllString(body, -1) {
			m := nonceAttr.FindStringSubmatch(tag)
			if m == nil || m[1] != nonce || nonce == "" {
				t.Errorf("%s does not carry the policy's nonce %q", tag, nonce)
			}
		}
	}
	if m := styleAttr.FindString(body); m != "" {
		t.Errorf("the page has a style attribute, which the policy blocks: %s", m)
	}
	if m := handlerAttr.FindString(body); m != "" {
		t.Errorf("the page has an inline event handler, which the policy blocks: %s", m)
	}
}

// TestPagesWithScriptsCarryTheNonce: the pages that load scripts have one
// nonce per response, on every script, and never the same twice.
func TestPagesWithScriptsCarryTheNonce(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	seen := map[string]bool{}
	for _, path := range []string{"/problems/refund-bug", "/problems/refund-bug", "/sets/rapid"} {
		p := b.get(path)
		tags := scriptTag.FindAllString(p.body, -1)
		if len(tags) == 0 {
			t.Fatalf("%s loads no script; the test needs one", path)
		}
		m := cspNonce.FindStringSubmatch(p.header.Get("Content-Security-Policy"))
		if m == nil {
			t.Fatalf("%s: no nonce in the policy", path)
		}
		if seen[m[1]] {
			t.Errorf("%s: nonce %q was already used", path, m[1])
		}
		seen[m[1]] = true
		checkInlineMarkup(t, p.header.Get("Content-Security-Policy"), p.body)
	}
}

// TestHSTSAndSecureCookieOnlyOverTLS: HSTS and the cookie's Secure flag go
// with a TLS connection, ours or a trusted proxy's, and never with a claim
// of one from a peer nobody vouched for. httptest requests come from
// 192.0.2.1.
func TestHSTSAndSecureCookieOnlyOverTLS(t *testing.T) {
	tests := []struct {
		name    string
		trusted string
		target  string
		proto   string // X-Forwarded-Proto; "" for none
		wantTLS bool
	}{
		{"plain HTTP", "", "http://faultline.test/", "", false},
		{"TLS to us", "", "https://faultline.test/", "", true},
		{"trusted proxy says https", "192.0.2.1", "http://faultline.test/", "https", true},
		{"trusted proxy range says https", "192.0.2.0/24", "http://faultline.test/", "https", true},
		{"trusted proxy says http", "192.0.2.1", "http://faultline.test/", "http", false},
		{"untrusted peer says https", "10.0.0.1", "http://faultline.test/", "https", false},
		{"no proxies trusted, header spoofed", "", "http://faultline.test/", "https", false},
		{"static file over TLS", "", "https://faultline.test/static/site.css", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proxies, err := clientaddr.Parse(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			app, _ := newTestApp(t, Config{Catalog: testCatalog(), Proxies: proxies})
			req := httptest.NewRequest(http.MethodGet, tt.target, nil)
			if tt.proto != "" {
				req.Header.Set("X-Forwarded-Proto", tt.proto)
				req.Header.Set("X-Forwarded-For", "198.51.100.7")
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d", rec.Code)
			}
			hsts := rec.Header().Get("Strict-Transport-Security")
			if tt.wantTLS && hsts != hstsMaxAge || !tt.wantTLS && hsts != "" {
				t.Errorf("Strict-Transport-Security = %q; want it only over TLS (%v)", hsts, tt.wantTLS)
			}
			if strings.HasPrefix(req.URL.Path, "/static/") {
				return // no cookie there
			}
			cookies := rec.Result().Cookies()
			if len(cookies) != 1 {
				t.Fatalf("cookies = %v; want one", cookies)
			}
			if cookies[0].Secure != tt.wantTLS {
				t.Errorf("cookie Secure = %v; want %v", cookies[0].Secure, tt.wantTLS)
			}
		})
	}
}
