package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestScreenshots writes the README's pictures: the timed answer box
// running, the code workspace wide and narrow in light and dark, and a
// grading report of the starter code. It
// runs only when FAULTLINE_SCREENSHOTS names a folder (relative to the
// module root), e.g.
//
//	FAULTLINE_SCREENSHOTS=docs/screenshots go test ./internal/e2e -run Screenshots
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("FAULTLINE_SCREENSHOTS")
	if dir == "" {
		t.Skip("set FAULTLINE_SCREENSHOTS=DIR to write the README screenshots")
	}
	requireBrowser(t)
	if !filepath.IsAbs(dir) {
		root, err := moduleRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a := startApp(t)

	t.Run("timed answer box", func(t *testing.T) {
		ctx := newBrowser(t, a)
		visitOK(t, ctx, "/problems/idempotent-create-client")
		waitFor(t, ctx, `[data-timed-box][data-state="idle"]`)
		if err := chromedp.Do(ctx, chromedp.Focus(chromedp.ID("answer-text"))); err != nil {
			t.Fatal(err)
		}
		typeKeys(t, ctx, "It is unknown, not failed. Keep the same idempotency key for every retry of this operation, "+
			"store it with the pending record before the first send, and reconcile by searching on our reference where the vendor has no keys.")
		waitUntil(t, ctx, "the box to run after typing", `document.querySelector("[data-timed-box]").dataset.state === "running"`)
		// Let the clock visibly count down from 2:00.
		waitUntil(t, ctx, "the clock to pass 1:57", `(() => { const c = document.querySelector("[data-timer-clock]"); return c && c.textContent.trim() <= "1:57" })()`, 10*time.Second)
		scrollToTop(t, ctx, "[data-timed-box]")
		screenshotTo(t, ctx, "[data-timed-box]", filepath.Join(dir, "timed-answer.png"))
	})

	// The workspace in each size and theme the README shows.
	for _, shot := range []struct {
		name          string
		width, height int64
		dark          bool
	}{
		{"workspace-wide-light.png", 1366, 900, false},
		{"workspace-wide-dark.png", 1366, 900, true},
		{"workspace-narrow-light.png", 390, 844, false},
		{"workspace-narrow-dark.png", 390, 844, true},
	} {
		t.Run(shot.name, func(t *testing.T) {
			ctx := newBrowser(t, a)
			setViewport(t, ctx, shot.width, shot.height)
			if shot.dark {
				emulateDark(t, ctx)
			}
			visitOK(t, ctx, "/problems/async-refund")
			if shot.width < 600 {
				// On a phone the code is a tab; show the problem's tab.
				waitFor(t, ctx, "#ws-statement")
			} else {
				waitFor(t, ctx, "[data-code-workspace] .cm-editor")
				// CodeMirror measures line heights once the editor is on
				// screen; until then its line numbers sit at estimated heights.
				waitUntil(t, ctx, "the line numbers to line up with the code", `(() => {
					const nums = [...document.querySelectorAll(".cm-lineNumbers .cm-gutterElement")].filter(e => e.textContent === "10");
					const line = document.querySelectorAll(".cm-content .cm-line")[9];
					return nums.length === 1 && line && Math.abs(nums[0].getBoundingClientRect().top - line.getBoundingClientRect().top) < 2 })()`)
			}
			screenshotTo(t, ctx, "", filepath.Join(dir, shot.name))
		})
	}

	t.Run("grading report", func(t *testing.T) {
		ctx := newBrowser(t, a, withTimeout(4*time.Minute))
		setViewport(t, ctx, 1366, 900)
		visitOK(t, ctx, "/problems/async-refund")
		waitFor(t, ctx, "[data-code-workspace] .cm-editor")
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("grade-button"), chromedp.NodeVisible)); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, ctx, "the report of the starter code", `document.querySelector("#grade-report section.grade-report")`, 3*time.Minute)
		// The report as it first reads, every failure closed.
		clipShot(t, ctx, "#grade-report section.grade-report", filepath.Join(dir, "grade-report.png"))
	})
	if !t.Failed() {
		t.Logf("screenshots written to %s", dir)
	}
}

// scrollToTop scrolls the page so the element sel starts at the top of the
// viewport, with a little room above it.
func scrollToTop(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	evalJS[bool](t, ctx, `(() => { const el = document.querySelector(`+jsString(sel)+`);
		scrollTo(0, el.getBoundingClientRect().top + scrollY - 16); return true })()`)
}
