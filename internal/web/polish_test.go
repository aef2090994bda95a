package web

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

var faviconLink = regexp.MustCompile(`<link rel="icon" type="image/svg\+xml" href="(/static/favicon\.svg\?v=[0-9a-f]+)">`)

// TestFaviconOnEveryPage: every page, error pages too, links the SVG icon,
// and the link serves it as SVG.
func TestFaviconOnEveryPage(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	var href string
	for _, path := range []string{"/", "/problems/refund-bug", "/sets/rapid", "/screens/tech-screen", "/practice", "/no/such/page"} {
		m := faviconLink.FindStringSubmatch(b.get(path).body)
		if m == nil {
			t.Errorf("GET %s: no favicon link", path)
			continue
		}
		href = m[1]
	}
	if href == "" {
		t.Fatal("no page links the favicon")
	}
	icon := b.get(href)
	if icon.status != http.StatusOK || icon.header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(icon.body, "<svg") {
		t.Errorf("GET %s = %d %q, %.60q; want an SVG", href, icon.status, icon.header.Get("Content-Type"), icon.body)
	}
}

var h1Text = regexp.MustCompile(`<h1>([^<]*)</h1>`)

// TestNotFoundHasOneHeading: a 404 says "Page not found" once, as its only
// heading, with a sentence under it; the bare "Not Found" of a route
// nobody serves is not repeated under the heading.
func TestNotFoundHasOneHeading(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	tests := []struct{ path, sentence string }{
		{"/no/such/page", "There is nothing at this address."},
		{"/problems/nope", "There is no problem called nope."},
		{"/screens/tech-screen/practice/9", "has no step 9"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p := b.get(tt.path)
			if p.status != http.StatusNotFound {
				t.Fatalf("status %d, want 404", p.status)
			}
			if hs := h1Text.FindAllStringSubmatch(p.body, -1); len(hs) != 1 || hs[0][1] != "Page not found" {
				t.Errorf("headings %q; want one h1, \"Page not found\"", hs)
			}
			p.mustContain(t, tt.sentence)
			p.mustNotContain(t, "<p>Not Found</p>")
		})
	}
}
