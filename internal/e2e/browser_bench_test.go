package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// BenchmarkBrowserStartup measures what the shared browser saves each test:
// starting Chromium with the tests' flags and a fresh profile, up to its
// first tab, then closing it.
func BenchmarkBrowserStartup(b *testing.B) {
	requireBrowser(b)
	for b.Loop() {
		_, stop, _, err := startBrowser(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		stop()
	}
}

// BenchmarkNewTab measures what each test pays instead: a tab in a fresh
// browser context of the running browser.
func BenchmarkNewTab(b *testing.B) {
	requireBrowser(b)
	browserCtx, stop, _, err := startBrowser(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	for b.Loop() {
		tabCtx, closeTab := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
		if err := chromedp.Do(tabCtx, chromedp.Navigate("about:blank")); err != nil {
			b.Fatal(err)
		}
		closeTab()
	}
}
