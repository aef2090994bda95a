package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"
)

// TestRoomInterviewerLayout is the interviewer's page as issue 26 measured
// it: at 1366x900 the shared code and the controls are in the first
// screen; Run brings the report into its pane without moving the page;
// nothing scrolls sideways, at desktop or phone widths; the side pane's
// tabs work from the keyboard; End asks first, then lands on the
// scorecard while the candidate's page says the room has ended. axe-core
// checks the page in both themes.
func TestRoomInterviewerLayout(t *testing.T) {
	a := startApp(t)
	iv := newBrowser(t, a, withTimeout(4*time.Minute))
	ilink, clink := makeRoom(t, a, iv, "problem:async-refund")

	// The links page, with its copy buttons, opens again.
	links := evalJS[string](t, iv, `location.pathname`)
	if !strings.HasSuffix(links, "/links") || count(t, iv, "button[data-copy]:not([hidden])") != 2 {
		t.Fatalf("after making the room: %s with %d copy buttons; want the links page with 2", links, count(t, iv, "button[data-copy]:not([hidden])"))
	}
	evalJS[bool](t, iv, `(document.querySelector('button[data-copy="clink"]').click(), true)`)
	waitUntil(t, iv, "the copy's outcome", `document.getElementById("room-copy-status").textContent !== ""`)
	visitOK(t, iv, links)
	if again := evalJS[[]string](t, iv, `[...document.querySelectorAll("input.room-link")].map(i => i.value)`); len(again) != 2 || !strings.HasSuffix(again[0], ilink) || !strings.HasSuffix(again[1], clink) {
		t.Fatalf("the links page opened again shows %q; want %q and %q", again, ilink, clink)
	}
	checkAxe(t, iv, "the room's links page")
	cand := newBrowser(t, a, withTimeout(4*time.Minute))
	setViewport(t, iv, 1366, 900)
	enterRoom(t, iv, ilink, "interviewer")
	enterRoom(t, cand, clink, "candidate")
	waitUntil(t, iv, "the shared editor and the tabs", `document.querySelector("#room[data-tabs-ready] .cm-editor")`)

	sideways := func(ctx context.Context, when string) {
		t.Helper()
		sw := evalJS[float64](t, ctx, `document.documentElement.scrollWidth`)
		cw := evalJS[float64](t, ctx, `document.documentElement.clientWidth`)
		if sw > cw {
			wide := evalJS[string](t, ctx, `[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(-3).map(e => e.tagName + "." + e.className).join(", ")`)
			t.Errorf("%s: the page is %.0f px wide in a %.0f px window (widest: %s)", when, sw, cw, wide)
		}
	}
	inFirstScreen := func(sel string) {
		t.Helper()
		b := boxOf(t, iv, sel)
		if b.Top < 0 || b.Top+min(b.Height, 40) > 900 || b.Left+b.Width > 1366 {
			t.Errorf("%s is at top %.0f, left %.0f (%.0f x %.0f); want it in the first 1366x900 screen", sel, b.Top, b.Left, b.Width, b.Height)
		}
	}
	height := evalJS[float64](t, iv, `document.documentElement.scrollHeight`)
	editor := boxOf(t, iv, ".cm-editor")
	t.Logf("the interviewer's page at 1366x900: %.0f px tall; the editor at top %.0f, %.0f x %.0f px", height, editor.Top, editor.Width, editor.Height)
	for _, sel := range []string{".cm-editor", ".room-clock", `form[action$="/hints"] button`, `form[action$="/run"] button`, `form[action$="/end"] button`, "#pane-report-tab", "#pane-rubric-tab", "#pane-notes-tab", "#pane-timeline-tab"} {
		inFirstScreen(sel)
	}
	if editor.Height < 400 {
		t.Errorf("the editor is %.0f px tall at 1366x900; want at least 400", editor.Height)
	}
	sideways(iv, "before a run")

	// The candidate types: their cursor shows on the interviewer's side.
	waitUntil(t, cand, "the candidate's editor", `window.faultlineRoom && window.faultlineRoom.editor && document.querySelector("#room .cm-content")`)
	evalJS[bool](t, cand, `(() => { const v = window.faultlineRoom.editor.view; v.focus(); v.dispatch({selection: {anchor: 0}}); return true })()`)
	typeKeys(t, cand, "// hello ")
	waitUntil(t, iv, "the candidate's cursor", `document.querySelector(".cm-faultline-peer-caret")`, 30*time.Second)

	// Run: the report shows in its pane, the page does not move.
	evalJS[bool](t, iv, `(document.querySelector('form[action$="/run"] button').click(), true)`)
	waitUntil(t, iv, "the report in its pane", `(() => { const d = document.querySelector("#pane-report:not([hidden]) .room-run details[open] .grade-report"); return d && d.getBoundingClientRect().height > 0 })()`, 90*time.Second)
	if y := evalJS[float64](t, iv, `scrollY`); y != 0 {
		t.Errorf("after Run the page scrolled to %.0f; want it where it was", y)
	}
	inFirstScreen(".room-run")
	sideways(iv, "after a run")
	after := evalJS[float64](t, iv, `document.documentElement.scrollHeight`)
	t.Logf("after a run: %.0f px tall", after)
	if after > 1200 {
		t.Errorf("after a run the page is %.0f px tall at 1366x900; want the panes to scroll, not the page", after)
	}

	// A second run: the first report, already on the page, stays as it
	// is; opened afresh, the page brings only the newest report's body,
	// and an older one loads when it is opened and stays loaded when the
	// room's next event swaps the pane.
	evalJS[bool](t, iv, `(document.querySelector('form[action$="/run"] button').click(), true)`)
	waitUntil(t, iv, "the second report", `document.querySelectorAll("#room-iv-reports details[data-report-run]").length === 2 && !!document.querySelector("#room-iv-reports details[data-report-run][open] .grade-report")`, 90*time.Second)
	visitOK(t, iv, evalJS[string](t, iv, `location.pathname`))
	waitUntil(t, iv, "the room again, the older report folded", `!!document.querySelector("#room[data-tabs-ready] .cm-editor") && document.querySelectorAll("#room-iv-reports details[data-report-src]").length === 1`)
	setViewport(t, iv, 1366, 900)
	evalJS[bool](t, iv, `(document.querySelector("#room-iv-reports details[data-report-src] summary").click(), true)`)
	const older = `document.querySelectorAll("#room-iv-reports details[data-report-run]")[1]`
	waitUntil(t, iv, "the first report loaded in place", `(() => { const d = `+older+`; return d.open && !d.hasAttribute("data-report-src") && !!d.querySelector(".grade-report .grade-scenario") })()`, 30*time.Second)
	evalJS[bool](t, iv, `(`+older+`.querySelector(".grade-report").dataset.e2eMark = "kept", true)`)
	hints := evalJS[int](t, iv, `document.querySelectorAll("#room-iv-step li").length`)
	evalJS[bool](t, iv, `(document.querySelector('form[action$="/hints"] button').click(), true)`)
	waitUntil(t, iv, "the hint's event swapped the panel", `document.querySelectorAll("#room-iv-step li").length > `+strconv.Itoa(hints), 30*time.Second)
	if !evalJS[bool](t, iv, `(() => { const d = `+older+`; return d.open && !!d.querySelector('.grade-report[data-e2e-mark="kept"]') })()`) {
		t.Error("the report loaded when opened was lost (or closed) when the room's next event swapped the pane")
	}

	// The tabs from the keyboard: arrows move between them.
	evalJS[bool](t, iv, `(document.getElementById("pane-report-tab").focus(), true)`)
	pressKey(t, iv, kb.ArrowRight)
	waitUntil(t, iv, "the rubric's pane", `document.activeElement.id === "pane-rubric-tab" && !document.getElementById("pane-rubric").hidden && document.getElementById("pane-report").hidden`)
	sideways(iv, "the rubric after a run")
	for _, theme := range []string{"light", "dark"} {
		if theme == "dark" {
			emulateDark(t, iv)
		} else {
			lightTheme(t, iv)
		}
		for _, pane := range []string{"pane-step", "pane-report", "pane-rubric", "pane-notes", "pane-timeline"} {
			evalJS[bool](t, iv, `(document.getElementById(`+jsString(pane+"-tab")+`).click(), true)`)
			checkAxe(t, iv, "the interviewer's room, "+pane+", "+theme)
		}
	}
	lightTheme(t, iv)
	if got := text(t, iv, "#room-iv-timeline"); strings.Contains(got, "timer.") || strings.Contains(got, "run.started") || !strings.Contains(got, "grader started") {
		t.Errorf("the timeline does not name its events for people: %q", shorten(got))
	}

	// A phone: one column, nothing sideways.
	setViewport(t, iv, 390, 844)
	evalJS[bool](t, iv, `(document.getElementById("pane-report-tab").click(), true)`)
	sideways(iv, "on a phone")
	t.Logf("the interviewer's page at 390x844: %.0f px tall", evalJS[float64](t, iv, `document.documentElement.scrollHeight`))
	setViewport(t, iv, 1366, 900)

	// End asks first; keeping the room open keeps it.
	evalJS[bool](t, iv, `(document.querySelector('form[action$="/end"] button').click(), true)`)
	waitUntil(t, iv, "the end's confirmation", `document.getElementById("room-end-dialog").open`)
	checkAxe(t, iv, "the end's confirmation")
	pressKey(t, iv, kb.Escape)
	waitUntil(t, iv, "the confirmation closed", `!document.getElementById("room-end-dialog").open`)
	if exists(t, cand, ".room-ended-note") {
		t.Fatal("the room ended though the interviewer kept it open")
	}
	endRoom(t, iv)
	waitUntil(t, cand, "the end on the candidate's page", `(document.querySelector("#room-status .room-ended-note") || {}).textContent.includes("ended the room")`, 30*time.Second)
	if !evalJS[bool](t, cand, `window.faultlineRoom.editor.view.contentDOM.getAttribute("contenteditable") === "false"`) {
		t.Error("the candidate can still type in the ended room")
	}
	requireNoPageExceptions(t, iv)
	requireNoPageExceptions(t, cand)
}

// endRoom ends the room from the interviewer's page, confirming, and
// waits for the scorecard.
func endRoom(t *testing.T, iv context.Context) {
	t.Helper()
	evalJS[bool](t, iv, `(document.querySelector('form[action$="/end"] button').click(), true)`)
	waitUntil(t, iv, "the end's confirmation", `document.getElementById("room-end-dialog").open`)
	evalJS[bool](t, iv, `(document.getElementById("room-end-confirm").click(), true)`)
	waitUntilReloaded(t, iv, `location.pathname.endsWith("/scorecard") && document.readyState === "complete" && document.querySelector("h1")`)
}
