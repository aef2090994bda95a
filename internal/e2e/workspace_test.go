package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// setViewport sizes the tab's viewport in CSS pixels, as a window of that
// size would show the page.
func setViewport(t *testing.T, ctx context.Context, width, height int64) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		t.Fatalf("e2e: emulate a %dx%d viewport: %v", width, height, err)
	}
}

// openTab clicks the workspace tab with the given id and waits for its
// panel to show.
func openTab(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	waitFor(t, ctx, "#"+id)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID(id), chromedp.NodeVisible)); err != nil {
		t.Fatalf("e2e: click the tab #%s: %v", id, err)
	}
	waitUntil(t, ctx, "the panel of #"+id+" to show", `(() => { const tab = document.getElementById(`+jsString(id)+`);
		const panel = document.getElementById(tab.getAttribute("aria-controls"));
		return tab.getAttribute("aria-selected") === "true" && panel && panel.checkVisibility() })()`)
}

// openTabByKeyboard selects the workspace tab named label as a keyboard
// user does: Tab to the tab list, then arrow keys along it.
func openTabByKeyboard(t *testing.T, ctx context.Context, label string) {
	t.Helper()
	selected := `(() => { const el = document.activeElement; return el && el.getAttribute("role") === "tab" &&
		el.getAttribute("aria-selected") === "true" && el.textContent.trim() === ` + jsString(label) + ` })()`
	waitFor(t, ctx, `[role="tablist"]`)
	tabUntil(t, ctx, "the workspace's tab list", 40, func(f focusedElement) bool {
		return evalJS[bool](t, ctx, `document.activeElement.getAttribute("role") === "tab"`)
	})
	for range 10 {
		if evalJS[bool](t, ctx, selected) {
			return
		}
		pressKey(t, ctx, kb.ArrowRight)
	}
	t.Fatalf("arrow keys along the tab list did not reach the tab %q", label)
}

// box is an element's place on the page: top and bottom from the top of
// the document (not the viewport), in CSS pixels.
type box struct {
	Top    float64 `json:"top"`
	Bottom float64 `json:"bottom"`
	Left   float64 `json:"left"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

func boxOf(t *testing.T, ctx context.Context, sel string) box {
	t.Helper()
	b := evalJS[*box](t, ctx, `(() => { const el = document.querySelector(`+jsString(sel)+`); if (!el) return null;
		const r = el.getBoundingClientRect();
		return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left + scrollX, width: r.width, height: r.height} })()`)
	if b == nil {
		t.Fatalf("no element matches %s", sel)
	}
	return *b
}

// TestWorkspaceFitsTheFirstScreen: at 1366x900 a candidate sees the editor
// and Grade without scrolling, and the editor is wide enough for the code.
func TestWorkspaceFitsTheFirstScreen(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	setViewport(t, ctx, 1366, 900)
	openWorkspace(t, ctx)

	editor := boxOf(t, ctx, "[data-code-workspace] .cm-editor")
	grade := boxOf(t, ctx, "#grade-button")
	t.Logf("at 1366x900: editor top %.0f px, width %.0f px, height %.0f px; Grade top %.0f px, bottom %.0f px",
		editor.Top, editor.Width, editor.Height, grade.Top, grade.Bottom)
	if editor.Top >= 900 {
		t.Errorf("the editor starts %.0f px down: below the first screen of 900 px", editor.Top)
	}
	if editor.Width < 600 {
		t.Errorf("the editor is %.0f px wide; want at least 600 px at 1366 px", editor.Width)
	}
	if grade.Bottom > 900 {
		t.Errorf("Grade ends %.0f px down: not visible without scrolling in 900 px", grade.Bottom)
	}
	if editor.Height < 300 {
		t.Errorf("the editor is %.0f px tall; want it to fill most of the screen", editor.Height)
	}
	if scroll := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); scroll > 0 {
		t.Errorf("the page scrolls %.0f px sideways at 1366 px", scroll)
	}
	requireNoPageExceptions(t, ctx)
}

// TestDividerMovesByKeyboard: the divider between problem and code is a
// focusable separator whose arrow keys move it, and the editor follows.
func TestDividerMovesByKeyboard(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	setViewport(t, ctx, 1366, 900)
	openWorkspace(t, ctx)

	sep := `#ws-divider[role="separator"]`
	waitFor(t, ctx, sep)
	before := evalJS[string](t, ctx, `document.querySelector(`+jsString(sep)+`).getAttribute("aria-valuenow")`)
	width := boxOf(t, ctx, "[data-code-workspace] .cm-editor").Width
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(sep))); err != nil {
		t.Fatal(err)
	}
	if f := focused(t, ctx); f.ID != "ws-divider" || !f.indicated() {
		t.Fatalf("focus on the divider: %v with outline %q; want #ws-divider with a focus ring", f, f.Outline)
	}
	for range 3 {
		pressKey(t, ctx, kb.ArrowRight)
	}
	after := evalJS[string](t, ctx, `document.querySelector(`+jsString(sep)+`).getAttribute("aria-valuenow")`)
	widthAfter := boxOf(t, ctx, "[data-code-workspace] .cm-editor").Width
	t.Logf("divider %s%% -> %s%% after three ArrowRight; editor %.0f px -> %.0f px", before, after, width, widthAfter)
	if after == before {
		t.Fatalf("aria-valuenow stayed %s after three ArrowRight presses", before)
	}
	if widthAfter >= width {
		t.Errorf("the editor stayed %.0f px wide (was %.0f) after the divider moved right", widthAfter, width)
	}
	pressKey(t, ctx, kb.Home)
	if v := evalJS[string](t, ctx, `document.querySelector(`+jsString(sep)+`).getAttribute("aria-valuenow")`); v != evalJS[string](t, ctx, `document.querySelector(`+jsString(sep)+`).getAttribute("aria-valuemin")`) {
		t.Errorf("Home moved the divider to %s, not to its minimum", v)
	}
	// The position is kept for the next visit.
	pressKey(t, ctx, kb.ArrowRight)
	kept := evalJS[string](t, ctx, `document.querySelector(`+jsString(sep)+`).getAttribute("aria-valuenow")`)
	openWorkspace(t, ctx)
	if v := evalJS[string](t, ctx, `document.querySelector(`+jsString(sep)+`).getAttribute("aria-valuenow")`); v != kept {
		t.Errorf("after a reload the divider is at %s; it was left at %s", v, kept)
	}
	requireNoPageExceptions(t, ctx)
}

// TestNoSidewaysScrollOnAPhone: at 390 px no page scrolls sideways.
func TestNoSidewaysScrollOnAPhone(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	setViewport(t, ctx, 390, 844)

	// A run page needs a run: grade the starter first, without waiting
	// for the report (the run page shows progress until then).
	// On a phone the code is a tab of its own.
	visitOK(t, ctx, codeProblem)
	waitFor(t, ctx, "[data-code-tab]")
	evalJS[bool](t, ctx, `(document.querySelector("[data-code-tab]").click(), true)`)
	waitFor(t, ctx, "[data-code-workspace] .cm-editor[data-editor]")
	if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
		t.Errorf("the code tab scrolls %.0f px sideways at 390 px", over)
	}
	evalJS[bool](t, ctx, `(document.getElementById("grade-button").click(), true)`)
	waitForReport(t, ctx)

	pages := []struct {
		name, path string
		status     int
	}{
		{"catalogue", "/", http.StatusOK},
		{"code problem", codeProblem, http.StatusOK},
		{"timed-answer problem", "/problems/idempotent-create-client", http.StatusOK},
		{"rapid-fire set", "/sets/applied-ai-rapid-fire", http.StatusOK},
		{"rapid-fire run", "/sets/applied-ai-rapid-fire/rapid", http.StatusOK},
		{"rapid-fire summary", "/sets/applied-ai-rapid-fire/rapid/summary", http.StatusOK},
		{"screen", "/screens/applied-ai-tech-screen", http.StatusOK},
		{"screen step", "/screens/applied-ai-tech-screen/practice/1", http.StatusOK},
		{"new live screen", "/rooms/new", http.StatusOK},
		{"my practice", "/practice", http.StatusOK},
		{"run page", codeProblem + "/runs/1", http.StatusOK},
		{"unknown page (404)", "/no/such/page", http.StatusNotFound},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			if status := visit(t, ctx, p.path); status != p.status {
				t.Fatalf("GET %s: status %d, want %d", p.path, status, p.status)
			}
			over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`)
			if over > 0 {
				wide := evalJS[[]string](t, ctx, `[...document.querySelectorAll("body *")].filter(el => {
					const r = el.getBoundingClientRect(); return r.right > document.documentElement.clientWidth + 1 && r.width > 0 &&
						!el.closest("pre, .table-scroll, .cm-scroller, .seq-scroll") })
					.slice(0, 8).map(el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className ? "." + String(el.className).split(" ").join(".") : ""))`)
				t.Errorf("%s scrolls %.0f px sideways at 390 px; too wide: %v", p.path, over, wide)
			}
			if p.path != codeProblem {
				return
			}
			// Each of the workspace's tabs, the staged reference with its
			// tables included.
			openTab(t, ctx, "part-2-tab")
			for _, id := range evalJS[[]string](t, ctx, `[...document.querySelectorAll('[role="tab"]')].filter(b => b.checkVisibility()).map(b => b.id)`) {
				openTab(t, ctx, id)
				if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
					t.Errorf("the tab #%s scrolls %.0f px sideways at 390 px", id, over)
				}
			}
		})
	}
	requireNoPageExceptions(t, ctx)
}

// TestCtrlEnterRunsCheck: Ctrl-Enter in the editor runs a quick Check: its
// result shows beside the code (after it on a phone), the text is left as
// it was, focus stays in the editor and nothing joins the grading
// history. At 1366x900 and 390x844, axe-clean in both themes.
func TestCtrlEnterRunsCheck(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	// Each size in a browser of its own: a new candidate, no history yet.
	for _, size := range weblightSizes {
		t.Run(size.name, func(t *testing.T) {
			ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
			setViewport(t, ctx, size.width, size.height)
			openCode(t, ctx, size.width < 600)
			if exists(t, ctx, "#grade-checks:not([hidden])") {
				t.Error("the grader's checks are on the page before any result")
			}
			before := evalJS[string](t, ctx, `document.getElementById("code-editor-textarea").faultlineEditor.getValue()`)
			evalJS[bool](t, ctx, `(document.getElementById("code-editor-textarea").faultlineEditor.focus(), true)`)
			pressKey(t, ctx, kb.Enter, chromedp.ModifierCtrl)
			waitUntil(t, ctx, "the check's result", `document.querySelector("#check-report:not([hidden]) section.grade-report")`, gradeWait)

			if got := text(t, ctx, "#grade-progress"); !strings.HasPrefix(got, "Checked:") {
				t.Errorf("#grade-progress after Check = %q; want the check's summary", got)
			}
			if n := count(t, ctx, "#check-report .grade-scenario"); n == 0 || n > 6 {
				t.Errorf("the check shows %d scenarios; want a few", n)
			}
			// A Check of the untouched starter is headed as a Check, lists what it
			// ran, and says nothing of defects or of an earlier version.
			if got := text(t, ctx, "#check-report h2"); !strings.HasPrefix(got, "Check: ") {
				t.Errorf("the check's heading reads %q; want it to say Check", got)
			}
			if n, ran := count(t, ctx, "#check-report .grade-scenario"), count(t, ctx, "#check-report .check-ran li"); ran != n {
				t.Errorf("the check lists %d scenarios it ran; its report has %d", ran, n)
			}
			if got := text(t, ctx, "#check-report"); strings.Contains(got, "defects of the original fixed") || strings.Contains(got, "earlier version") {
				t.Errorf("the check speaks of defects or an earlier version: %.300s", got)
			}
			if got := evalJS[string](t, ctx, `document.getElementById("code-editor-textarea").faultlineEditor.getValue()`); got != before {
				t.Errorf("Ctrl-Enter changed the code (the editor's own Mod-Enter ran too)")
			}
			if !evalJS[bool](t, ctx, `!!document.activeElement.closest(".cm-editor")`) {
				t.Errorf("focus left the editor for %v", focused(t, ctx))
			}
			if !evalJS[bool](t, ctx, `document.querySelector("#check-report h2").checkVisibility()`) {
				t.Error("the check's report is not shown")
			}
			waitFor(t, ctx, "#grade-checks")
			noSidewaysScroll(t, ctx, codeProblem+" with a check's result at "+size.name)
			checkAxeBothThemes(t, ctx, codeProblem+" with a check's result at "+size.name)

			visitOK(t, ctx, "/practice")
			if exists(t, ctx, "table.runs") {
				t.Error("the check was kept in the grading history")
			}
			requireNoPageExceptions(t, ctx)
		})
	}
}

// TestEditorSettingsAndComparison: the editor wraps long lines on demand,
// changes its text size, and shows the code's changes from the starter
// with a bundle it loads only when first asked.
func TestEditorSettingsAndComparison(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	setViewport(t, ctx, 1366, 900)
	openWorkspace(t, ctx)

	// Wrapping: a long line takes several rows once wrapped, one before.
	setCode(t, ctx, "package refund\n\n// "+strings.Repeat("a long comment that runs on ", 12)+"\n")
	rows := `(() => { const line = document.querySelectorAll(".cm-content .cm-line")[2];
		return Math.round(line.getBoundingClientRect().height / parseFloat(getComputedStyle(line).lineHeight)) })()`
	if n := evalJS[int](t, ctx, rows); n != 1 {
		t.Fatalf("before wrapping the long line takes %d rows; want 1", n)
	}
	evalJS[bool](t, ctx, `(document.getElementById("wrap-toggle").click(), true)`)
	waitUntil(t, ctx, "the long line to wrap", rows+` > 1`)
	if p := evalJS[string](t, ctx, `document.getElementById("wrap-toggle").getAttribute("aria-pressed")`); p != "true" {
		t.Errorf("the wrap button says aria-pressed=%q after turning wrapping on", p)
	}

	// Text size.
	size := `parseFloat(getComputedStyle(document.querySelector(".cm-content")).fontSize)`
	evalJS[bool](t, ctx, `(() => { const s = document.getElementById("font-size"); s.value = "18"; s.dispatchEvent(new Event("change")); return true })()`)
	if px := evalJS[float64](t, ctx, size); px != 18 {
		t.Errorf("the code is %.1f px after choosing 18 px", px)
	}

	// The comparison: not loaded with the page; on first use it marks
	// what changed from the starter.
	if exists(t, ctx, `script[src*="editor-merge"]`) {
		t.Fatal("the comparison bundle was loaded before anyone asked for it")
	}
	starter := contentFile(t, "problems/async-refund/starter/refund.go")
	setCode(t, ctx, strings.Replace(starter, "for i := 0; i < 3; i++ {", "for i := 0; i < 5; i++ {", 1))
	evalJS[bool](t, ctx, `(document.getElementById("diff-starter").click(), true)`)
	waitFor(t, ctx, ".cm-editor .cm-deletedChunk")
	if n := count(t, ctx, ".cm-editor .cm-changedLine"); n != 1 {
		t.Errorf("%d changed lines marked; one line differs from the starter", n)
	}
	if got := text(t, ctx, "#diff-status"); !strings.Contains(got, "from the starter") {
		t.Errorf("#diff-status = %q", got)
	}
	checkAxe(t, ctx, codeProblem+" comparing with the starter")
	evalJS[bool](t, ctx, `(document.getElementById("diff-starter").click(), true)`)
	waitUntil(t, ctx, "the comparison to go", `!document.querySelector(".cm-editor .cm-deletedChunk")`)
	requireNoPageExceptions(t, ctx)
}

// emulateDark makes the tab report prefers-color-scheme: dark, as a system
// set to dark would.
func emulateDark(t *testing.T, ctx context.Context) {
	t.Helper()
	_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
	if err != nil {
		t.Fatalf("e2e: emulate a dark system: %v", err)
	}
}

// luminance is the relative luminance (WCAG) of a computed CSS colour.
const luminanceJS = `((c) => { const m = c.match(/[\d.]+/g).map(Number);
	const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4) };
	return 0.2126 * lin(m[0]) + 0.7152 * lin(m[1]) + 0.0722 * lin(m[2]) })`

// TestDarkMode: with the system set to dark, every page and the editor
// turn dark, and axe-core (colour contrast included) finds nothing serious.
func TestDarkMode(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	setViewport(t, ctx, 1366, 900)
	emulateDark(t, ctx)

	dark := func(t *testing.T, what, sel, prop string) {
		t.Helper()
		l := evalJS[float64](t, ctx, luminanceJS+`(getComputedStyle(document.querySelector(`+jsString(sel)+`)).`+prop+`)`)
		if l > 0.05 {
			t.Errorf("%s (%s %s) has luminance %.2f in dark mode; want a dark colour", what, sel, prop, l)
		}
	}
	pages := []struct {
		name, path string
		status     int
	}{
		{"catalogue", "/", http.StatusOK},
		{"timed-answer problem", "/problems/idempotent-create-client", http.StatusOK},
		{"rapid-fire set", "/sets/applied-ai-rapid-fire", http.StatusOK},
		{"rapid-fire run", "/sets/applied-ai-rapid-fire/rapid", http.StatusOK},
		{"screen", "/screens/applied-ai-tech-screen", http.StatusOK},
		{"screen step", "/screens/applied-ai-tech-screen/practice/1", http.StatusOK},
		{"new live screen", "/rooms/new", http.StatusOK},
		{"my practice", "/practice", http.StatusOK},
		{"unknown page (404)", "/no/such/page", http.StatusNotFound},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			if status := visit(t, ctx, p.path); status != p.status {
				t.Fatalf("GET %s: status %d, want %d", p.path, status, p.status)
			}
			dark(t, "the page", "body", "backgroundColor")
			checkAxe(t, ctx, p.path+" in dark mode")
		})
	}
	t.Run("code workspace", func(t *testing.T) {
		openWorkspace(t, ctx)
		dark(t, "the page", "body", "backgroundColor")
		dark(t, "the editor", ".cm-editor", "backgroundColor")
		dark(t, "the statement's code", "#ws-statement pre", "backgroundColor")
		checkAxe(t, ctx, codeProblem+" in dark mode")
		openTab(t, ctx, "part-2-tab")
		openTab(t, ctx, "ws-reference-tab")
		checkAxe(t, ctx, codeProblem+" reference tab in dark mode")

		// A check's report and the comparison, in dark.
		evalJS[bool](t, ctx, `(document.getElementById("code-editor-textarea").faultlineEditor.focus(), true)`)
		pressKey(t, ctx, kb.Enter, chromedp.ModifierCtrl)
		waitUntil(t, ctx, "the check's result", `document.querySelector("#check-report:not([hidden]) section.grade-report")`, gradeWait)
		setCode(t, ctx, strings.Replace(contentFile(t, "problems/async-refund/starter/refund.go"), "i < 3", "i < 5", 1))
		evalJS[bool](t, ctx, `(document.getElementById("diff-starter").click(), true)`)
		waitFor(t, ctx, ".cm-editor .cm-deletedChunk")
		checkAxe(t, ctx, codeProblem+" with a check's report and the comparison in dark mode")
	})
	requireNoPageExceptions(t, ctx)
}

// TestReferenceWaitsForPartTwo: before anything is written the harness
// reference (which names the claim and the lease) is not among the tabs;
// opening Part 2, or starting on the code, brings it, and it stays.
func TestReferenceWaitsForPartTwo(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	visible := `(() => { const b = document.getElementById("ws-reference-tab"); return !!b && b.checkVisibility() })()`
	for _, how := range []string{"part 2", "the code"} {
		t.Run(how, func(t *testing.T) {
			ctx := newBrowser(t, a)
			setViewport(t, ctx, 1366, 900)
			openWorkspace(t, ctx)
			if evalJS[bool](t, ctx, visible) || evalJS[bool](t, ctx, `document.getElementById("ws-reference").checkVisibility()`) {
				t.Fatal("the reference is shown before Part 2 or the code")
			}
			if how == "part 2" {
				openTab(t, ctx, "part-2-tab")
			} else {
				evalJS[bool](t, ctx, `(document.getElementById("code-editor-textarea").faultlineEditor.focus(), true)`)
			}
			waitUntil(t, ctx, "the reference tab to appear", visible)
			openTab(t, ctx, "ws-reference-tab")
			if !strings.Contains(text(t, ctx, "#ws-reference"), "Claim(ctx, id, lease)") {
				t.Error("the reference tab does not hold the harness's Claim")
			}
			openWorkspace(t, ctx)
			if !evalJS[bool](t, ctx, visible) {
				t.Error("after a reload the reference is held back again")
			}
			requireNoPageExceptions(t, ctx)
		})
	}
}
