package e2e

import (
	"testing"

	"github.com/chromedp/chromedp/kb"
)

// TestResultsPaneResizesAndRemembers: at 1366x900, with a report under the
// editor, the divider between them moves by keyboard both ways, the editor
// never goes under a usable height (15rem, 240 px) however far the results
// grow, the column never overflows, Enter gives the results the whole
// column and its button brings the code back, and the share is kept in
// this browser across a reload.
// On a 390 px phone the results follow the editor down the page. axe-clean
// in both themes at both sizes.
func TestResultsPaneResizesAndRemembers(t *testing.T) {
	t.Parallel()
	const editorMin = 240
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	setViewport(t, ctx, 1366, 900)
	openWorkspace(t, ctx)
	check := func() {
		t.Helper()
		evalJS[bool](t, ctx, `(document.getElementById("check-button").click(), true)`)
		waitUntil(t, ctx, "the check's result", `document.querySelector("#check-report:not([hidden]) section.grade-report")`, gradeWait)
	}
	check()
	waitUntil(t, ctx, "the divider beside the report", `document.getElementById("ws-results-divider").checkVisibility()`)

	heights := func() (editor, results float64) {
		t.Helper()
		return boxOf(t, ctx, "[data-code-workspace] .cm-editor").Height, boxOf(t, ctx, "#ws-results").Height
	}
	e0, r0 := heights()
	// The page scrolls a little at the start (the footer under the
	// workspace); growing the results must not add to it.
	scroll0 := evalJS[float64](t, ctx, `document.documentElement.scrollHeight - innerHeight`)
	t.Logf("at 1366x900 with a check's report: editor %.0f px, results %.0f px (share %s%%)", e0, r0,
		evalJS[string](t, ctx, `document.getElementById("ws-results-divider").getAttribute("aria-valuenow")`))
	if e0 < editorMin {
		t.Errorf("the editor is %.0f px tall beside a report; want at least %d", e0, editorMin)
	}

	evalJS[bool](t, ctx, `(document.getElementById("ws-results-divider").focus(), true)`)
	for range 4 {
		pressKey(t, ctx, kb.ArrowUp)
	}
	e1, r1 := heights()
	t.Logf("after 4 × Arrow Up: editor %.0f px, results %.0f px", e1, r1)
	if r1 <= r0 || e1 < editorMin {
		t.Errorf("Arrow Up ×4: results from %.0f to %.0f px, editor %.0f px; want the results larger, the editor at least %d", r0, r1, e1, editorMin)
	}
	for range 3 {
		pressKey(t, ctx, kb.ArrowDown)
	}
	if _, rDown := heights(); rDown >= r1 {
		t.Errorf("Arrow Down ×3 left the results at %.0f px (were %.0f)", rDown, r1)
	}
	pressKey(t, ctx, kb.End)
	e2, r2 := heights()
	left := evalJS[string](t, ctx, `document.getElementById("ws-results-divider").getAttribute("aria-valuenow")`)
	t.Logf("after End: editor %.0f px, results %.0f px (share %s%%)", e2, r2, left)
	if e2 < editorMin {
		t.Errorf("with the results at their largest the editor is %.0f px; want at least %d", e2, editorMin)
	}
	if r2 < r1 {
		t.Errorf("End shrank the results from %.0f to %.0f px", r1, r2)
	}
	if over := evalJS[float64](t, ctx, `document.documentElement.scrollHeight - innerHeight`); over > scroll0+1 {
		t.Errorf("the page scrolls %.0f px (%.0f before): the column should hold editor and results", over, scroll0)
	}

	// Enter: the results take the whole column; the button brings the code back.
	pressKey(t, ctx, kb.Enter)
	if !evalJS[bool](t, ctx, `document.activeElement.id === "results-full" && document.activeElement.getAttribute("aria-pressed") === "true"`) {
		t.Errorf("after Enter on the divider focus is on %v; want the pressed full-height button", focused(t, ctx))
	}
	_, rFull := heights()
	t.Logf("full height: results %.0f px", rFull)
	if rFull < 700 || evalJS[bool](t, ctx, `document.querySelector("[data-code-workspace] .code-form").checkVisibility()`) {
		t.Errorf("full height: results %.0f px with the code form still shown; want the column (at least 700 px)", rFull)
	}
	for _, theme := range []string{"light", "dark"} {
		if theme == "dark" {
			emulateDark(t, ctx)
		} else {
			lightTheme(t, ctx)
		}
		checkAxe(t, ctx, "the results at full height, "+theme)
	}
	lightTheme(t, ctx)
	pressKey(t, ctx, kb.Enter) // the focused button: back to the code
	if e, _ := heights(); e < editorMin {
		t.Errorf("after Show the code again the editor is %.0f px; want at least %d", e, editorMin)
	}

	// Kept in this browser: after a reload the share is the one left.
	openWorkspace(t, ctx)
	if got := evalJS[string](t, ctx, `document.getElementById("ws-results-divider").getAttribute("aria-valuenow")`); got != left {
		t.Errorf("after a reload the results' share is %s%%; want the %s%% left", got, left)
	}
	check()
	e3, r3 := heights()
	t.Logf("after a reload and a check: editor %.0f px, results %.0f px", e3, r3)
	if r3 < r2-2 || e3 < editorMin {
		t.Errorf("after a reload: results %.0f px (were %.0f), editor %.0f px", r3, r2, e3)
	}
	for _, theme := range []string{"light", "dark"} {
		if theme == "dark" {
			emulateDark(t, ctx)
		} else {
			lightTheme(t, ctx)
		}
		checkAxe(t, ctx, "the results beside the editor, "+theme)
	}
	// On a phone the results follow the editor down the page: no divider,
	// no full-height button, nothing wider than the screen.
	lightTheme(t, ctx)
	setViewport(t, ctx, 390, 844)
	if evalJS[bool](t, ctx, `document.getElementById("ws-results-divider").checkVisibility() || document.getElementById("ws-results-bar").checkVisibility()`) {
		t.Error("the results' divider or full-height button shows on a 390 px phone")
	}
	if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
		t.Errorf("the page scrolls %.0f px sideways at 390 px", over)
	}
	// The code and its report on the phone: the editor keeps its usable
	// height above the report, which is shown whole, not in a slot.
	evalJS[bool](t, ctx, `(() => { const tab = document.querySelector("[data-code-tab]");
		if (tab && tab.checkVisibility() && tab.getAttribute("aria-selected") !== "true") tab.click(); return true })()`)
	if e, _ := heights(); e < editorMin {
		t.Errorf("at 390 px the editor is %.0f px tall above the report; want at least %d", e, editorMin)
	}
	if ed, res := boxOf(t, ctx, "[data-code-workspace] .cm-editor"), boxOf(t, ctx, "#ws-results"); res.Top < ed.Top+ed.Height-1 {
		t.Errorf("at 390 px the results (%+v) are not after the editor (%+v)", res, ed)
	}
	if evalJS[bool](t, ctx, `(() => { const r = document.getElementById("ws-results"); return r.scrollHeight > r.clientHeight + 1 && getComputedStyle(r).overflowY !== "visible" })()`) {
		t.Error("at 390 px the report is read through a scrolling slot; want it to follow the editor down the page")
	}
	checkAxeBothThemes(t, ctx, "the results after the editor at 390 px")
	requireNoPageExceptions(t, ctx)
}
