package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// watchCSP records every Content-Security-Policy violation of the tab's
// pages in window.cspViolations, from before the page's own scripts run.
func watchCSP(t *testing.T, ctx context.Context) {
	t.Helper()
	const watcher = `window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
	window.cspViolations.push(e.effectiveDirective + " blocked " + (e.blockedURI || "?") +
		" at " + (e.sourceFile || document.URL) + ":" + e.lineNumber + (e.sample ? " (" + e.sample + ")" : ""));
});`
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watcher}); err != nil {
		t.Fatalf("e2e: install the CSP watcher: %v", err)
	}
}

// requireNoCSPViolations fails the test on any violation the page has
// reported since it loaded.
func requireNoCSPViolations(t *testing.T, ctx context.Context, when string) {
	t.Helper()
	got := evalJS[[]string](t, ctx, `window.cspViolations || ["the CSP watcher is not installed"]`)
	if len(got) > 0 {
		t.Errorf("%s: %d Content-Security-Policy violations:\n  %s", when, len(got), strings.Join(got, "\n  "))
	}
}

// TestNoCSPViolations: under the server's policy (no 'unsafe-inline'),
// the code workspace works without a single violation: CodeMirror's
// injected <style> elements carry the nonce (the comparison bundle's
// too), the report and the lint
// gutter's markers (data: images) render, and the other pages with
// scripts are clean too. A style element without the nonce is refused,
// so the policy is really in force and the watcher really hears it.
func TestNoCSPViolations(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	watchCSP(t, ctx)

	openWorkspace(t, ctx)
	// Unstyled, CodeMirror's root would be a block, not its flex column.
	if d := evalJS[string](t, ctx, `getComputedStyle(document.querySelector(".cm-editor")).display`); d != "flex" {
		t.Errorf(".cm-editor display = %q; want flex, from CodeMirror's injected styles", d)
	}
	requireNoCSPViolations(t, ctx, "the editor mounted")

	gradeAndWait(t, ctx)
	evalJS[bool](t, ctx, `(() => { const d = document.querySelector("#grade-report .grade-fail details"); if (d) d.open = true; return !!d })()`)
	requireNoCSPViolations(t, ctx, "after grading the starter")

	// The comparison bundle is loaded on first use and styles the editor
	// through the same CodeMirror, so its styles need the nonce too.
	starter := contentFile(t, "problems/async-refund/starter/refund.go")
	setCode(t, ctx, strings.Replace(starter, "for i := 0; i < 3; i++ {", "for i := 0; i < 5; i++ {", 1))
	evalJS[bool](t, ctx, `(document.getElementById("diff-starter").click(), true)`)
	waitFor(t, ctx, ".cm-editor .cm-deletedChunk")
	requireNoCSPViolations(t, ctx, "comparing with the starter")
	evalJS[bool](t, ctx, `(document.getElementById("diff-starter").click(), true)`)
	waitUntil(t, ctx, "the comparison to go", `!document.querySelector(".cm-editor .cm-deletedChunk")`)

	setCode(t, ctx, `package refund

func RefundMoney() { undefinedHelper() }
`)
	gradeAndWait(t, ctx)
	waitFor(t, ctx, ".cm-editor .cm-lintRange-error")
	waitFor(t, ctx, ".cm-editor .cm-lint-marker-error")
	if img := evalJS[string](t, ctx, `getComputedStyle(document.querySelector(".cm-lint-marker-error")).content`); !strings.Contains(img, "data:") {
		t.Errorf("the gutter's error marker content = %q; want CodeMirror's data: image", img)
	}
	requireNoCSPViolations(t, ctx, "after a compile error was marked")

	for _, path := range []string{"/sets/applied-ai-rapid-fire", "/problems/idempotent-create-client", "/practice", "/"} {
		visitOK(t, ctx, path)
		requireNoCSPViolations(t, ctx, path)
	}

	evalJS[bool](t, ctx, `(() => { const s = document.createElement("style"); s.textContent = "body { color: red }"; document.head.append(s); return true })()`)
	waitUntil(t, ctx, "a violation for a style element without the nonce", `window.cspViolations.some(v => v.startsWith("style-src"))`)
	requireNoPageExceptions(t, ctx)
}
