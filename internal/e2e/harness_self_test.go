package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// shortSetSlug is a question set the harness test adds to the content, with
// a time limit short enough to see expiry in a test.
const shortSetSlug = "e2e-short-timer"

const shortSet = `---
slug: e2e-short-timer
title: A question set with a five-second limit
summary: Added by the end-to-end tests to see a timed box expire.
minutes: 1
---

One question with a short limit, so a test can watch the box lock.

## What does an idempotency key protect against?

### Model answer

A repeated request creating a second object.

### Key points

- A retry after a timeout repeats the request.
- The server replays the first result for the same key.

### Time limit

5s
`

// TestHarness checks the harness itself: the server starts from a copy of
// the content plus an added file, the browser reaches it, and the helpers
// read the page.
func TestHarness(t *testing.T) {
	t.Parallel()
	a := startApp(t, withContentFile("sets/"+shortSetSlug+".md", shortSet))
	ctx := newBrowser(t, a)

	visitOK(t, ctx, "/")
	if got := text(t, ctx, "h1"); got == "" {
		t.Errorf("the catalogue has an empty h1")
	}
	if !exists(t, ctx, `a[href="/sets/`+shortSetSlug+`"]`) {
		t.Errorf("the catalogue does not link the set added to the content folder")
	}
	visitOK(t, ctx, "/sets/"+shortSetSlug)
	if got := text(t, ctx, "main"); !strings.Contains(got, "What does an idempotency key protect against?") {
		t.Errorf("the added set's page does not show its question; main reads:\n%s", got)
	}
	if status := visit(t, ctx, "/no-such-page"); status != http.StatusNotFound {
		t.Errorf("GET /no-such-page: status %d, want 404", status)
	}

	// axe must see a violation planted in the page, or checkAxe proves
	// nothing: an image with no text alternative is "critical".
	visitOK(t, ctx, "/")
	evalJS[chromedp.Void](t, ctx, `document.querySelector("main").append(Object.assign(document.createElement("img"), {src: "/static/none.png", id: "planted"}))`)
	var planted bool
	for _, v := range runAxe(t, ctx) {
		if v.ID == "image-alt" && v.Impact == "critical" && strings.Contains(v.String(), "#planted") {
			planted = true
		}
	}
	if !planted {
		t.Errorf("axe-core did not report the planted image without alt text")
	}
	requireNoPageExceptions(t, ctx)
}
