package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// makeRoom makes a room from source on the interviewer's browser and
// returns its two links.
func makeRoom(t *testing.T, a *app, iv context.Context, source string) (interviewerLink, candidateLink string) {
	t.Helper()
	visitOK(t, iv, "/rooms/new")
	evalJS[bool](t, iv, `(document.querySelector('input[value=`+jsString(source)+`]').checked = true, true)`)
	clickAndLoad(t, iv, `form.room-new button[type="submit"]`)
	links := evalJS[[]string](t, iv, `[...document.querySelectorAll("input.room-link")].map(i => i.value)`)
	if len(links) != 2 {
		t.Fatalf("the new room's links: %q", links)
	}
	return strings.TrimPrefix(links[0], a.URL), strings.TrimPrefix(links[1], a.URL)
}

// enterRoom opens a room's link and waits for the room's page.
func enterRoom(t *testing.T, ctx context.Context, link, role string) {
	t.Helper()
	visit(t, ctx, link)
	waitUntilReloaded(t, ctx, `document.querySelector("#room[data-role=`+role+`]")`)
}

// TestRoomCandidateWorkspace: the candidate's page in a live room is the
// solo problem page's workspace (the problem beside the shared editor,
// the parts as tabs, the divider, released hints in their part, shared
// reports under the code), laid out as issue 10 measured it; on a
// question it is the timed answer box, whose countdown the interviewer's
// pause stops and resume carries on.
func TestRoomCandidateWorkspace(t *testing.T) {
	a := startApp(t)
	iv := newBrowser(t, a, withTimeout(3*time.Minute))
	ilink, clink := makeRoom(t, a, iv, "screen:applied-ai-tech-screen")
	cand := newBrowser(t, a, withTimeout(3*time.Minute))
	setViewport(t, cand, 1366, 900)
	enterRoom(t, iv, ilink, "interviewer")
	enterRoom(t, cand, clink, "candidate")
	waitUntil(t, cand, "the shared editor in the workspace", `document.querySelector("[data-workspace][data-tabs-ready] #ws-code .cm-editor")`)

	// The layout at 1366x900, as the solo workspace is held to.
	editor := boxOf(t, cand, "#ws-code .cm-editor")
	problem := boxOf(t, cand, "#ws-problem")
	t.Logf("candidate's room page at 1366x900: editor top %.0f px, left %.0f px, width %.0f px, height %.0f px; problem side %.0f px wide",
		editor.Top, editor.Left, editor.Width, editor.Height, problem.Width)
	if editor.Top >= 900 || editor.Width < 600 || editor.Height < 300 {
		t.Errorf("the editor at 1366x900: top %.0f, width %.0f, height %.0f; want in the first screen, at least 600 px wide and 300 px tall",
			editor.Top, editor.Width, editor.Height)
	}
	if editor.Left < problem.Left+problem.Width {
		t.Errorf("the editor (left %.0f) is not beside the problem (right %.0f)", editor.Left, problem.Left+problem.Width)
	}
	if scroll := evalJS[float64](t, cand, `document.documentElement.scrollWidth - innerWidth`); scroll > 0 {
		t.Errorf("the candidate's workspace scrolls %.0f px sideways at 1366 px", scroll)
	}
	tabs := evalJS[[]string](t, cand, `[...document.querySelectorAll('[role="tab"]')].filter(t => t.checkVisibility()).map(t => t.textContent.trim())`)
	if strings.Join(tabs, ",") != "Problem,Part 1,Part 2" {
		t.Errorf("the candidate's tabs at 1366 px: %q; want the problem and its parts (the reference staged)", tabs)
	}
	if strings.Contains(text(t, cand, "main"), "Model answer") || exists(t, cand, ".room-rubric") {
		t.Fatal("the candidate's workspace shows the rubric or the model answer")
	}

	// The divider moves by keyboard, and the editor follows.
	before := editor.Width
	if err := chromedp.Do(cand, chromedp.Focus(chromedp.CSS("#ws-divider"))); err != nil {
		t.Fatal(err)
	}
	pressKey(t, cand, kb.ArrowRight)
	pressKey(t, cand, kb.ArrowRight)
	if after := boxOf(t, cand, "#ws-code .cm-editor").Width; after >= before {
		t.Errorf("ArrowRight on the divider: the editor went from %.0f to %.0f px; want narrower", before, after)
	}

	// The editor's settings are the workspace's, kept in this browser.
	evalJS[bool](t, cand, `(document.getElementById("wrap-toggle").click(), true)`)
	waitUntil(t, cand, "the shared editor wrapping lines", `document.querySelector("#ws-code .cm-content.cm-lineWrapping") &&
		document.getElementById("wrap-toggle").getAttribute("aria-pressed") === "true"`)
	evalJS[bool](t, cand, `(document.getElementById("wrap-toggle").click(), true)`)

	// The candidate types in the workspace's editor; the interviewer sees it.
	evalJS[bool](t, cand, `(() => { const v = window.faultlineRoom.editor.view; v.focus(); v.dispatch({selection: {anchor: 0}}); return true })()`)
	typeKeys(t, cand, "// typed in the workspace ")
	waitUntil(t, iv, "the candidate's text on the interviewer's page",
		`document.querySelector("#room .cm-content").innerText.includes("typed in the workspace")`, 30*time.Second)

	// A released hint reaches Part 1's panel; the tabs stay as they were.
	openTab(t, cand, "part-1-tab")
	evalJS[bool](t, iv, `(document.querySelector('form[action$="/hints"] button').click(), true)`)
	waitUntil(t, cand, "the released hint in Part 1", `document.querySelectorAll("#part-1-room-hints li").length === 1`, 30*time.Second)
	if !evalJS[bool](t, cand, `document.getElementById("part-1-tab").getAttribute("aria-selected") === "true" && document.getElementById("part-1").checkVisibility()`) {
		t.Error("the hint's arrival changed the candidate's tab")
	}
	waitUntil(t, cand, "the hint announced", `document.getElementById("room-announce").textContent.includes("hint")`)

	for _, theme := range []string{"light", "dark"} {
		if theme == "dark" {
			emulateDark(t, cand)
		} else {
			lightTheme(t, cand)
		}
		checkAxe(t, cand, "the candidate's workspace in a room, "+theme)
	}
	lightTheme(t, cand)
	setViewport(t, cand, 390, 844)
	if over := evalJS[float64](t, cand, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
		t.Errorf("the candidate's workspace scrolls %.0f px sideways at 390 px", over)
	}
	if !evalJS[bool](t, cand, `document.getElementById("ws-code-tab").checkVisibility()`) {
		t.Error("at 390 px the code is not a tab of its own")
	}
	setViewport(t, cand, 1366, 900)

	// The question: the timed answer box, on the interviewer's clock.
	evalJS[bool](t, iv, `(document.querySelector('form[action$="/next"] button').click(), true)`)
	for _, ctx := range []context.Context{iv, cand} {
		waitUntilReloaded(t, ctx, `document.querySelector("#room[data-item='1']")`)
	}
	waitFor(t, cand, `[data-timed-box][data-room-clock="idle"]`)
	if n := evalJS[int](t, cand, `[...document.querySelectorAll(".room-clock, [data-timer-clock]")].filter(e => e.checkVisibility()).length`); n != 1 {
		t.Errorf("the candidate's question page shows %d clocks; want one, the answer box's", n)
	}
	if exists(t, cand, "[data-timer-modes]") {
		t.Error("the room's answer box offers a practice mode; the interviewer's clock is its mode")
	}
	clockText := func() string { return text(t, cand, "[data-timer-clock]") }
	startText := clockText()
	waitFor(t, cand, "#room-answer-text")
	evalJS[bool](t, cand, `(document.getElementById("room-answer-text").focus(), true)`)
	typeKeys(t, cand, "Keys make retries safe")
	waitUntil(t, iv, "the answer on the interviewer's page",
		`(document.querySelector(".room-cand-answer") || {}).textContent === "Keys make retries safe"`, 30*time.Second)
	time.Sleep(1500 * time.Millisecond)
	if got := clockText(); got != startText {
		t.Errorf("typing started the box's clock (%s, then %s): in a room the interviewer starts it", startText, got)
	}

	timerButton := func(label string) {
		t.Helper()
		waitUntil(t, iv, "the clock's "+label+" button", `[...document.querySelectorAll('form[action$="/timer"] button')].some(b => b.textContent === `+jsString(label)+`)`, 30*time.Second)
		evalJS[bool](t, iv, `([...document.querySelectorAll('form[action$="/timer"] button')].find(b => b.textContent === `+jsString(label)+`).click(), true)`)
	}
	timerButton("Start the clock")
	waitUntil(t, cand, "the box running", `document.querySelector("[data-timed-box]").dataset.state === "running"`, 30*time.Second)
	waitUntil(t, cand, "the countdown moving", `document.querySelector("[data-timer-clock]").textContent !== `+jsString(startText), 10*time.Second)

	timerButton("Pause")
	waitUntil(t, cand, "the box paused", `document.querySelector("[data-timed-box]").dataset.state === "paused"`, 30*time.Second)
	held := clockText()
	time.Sleep(2500 * time.Millisecond)
	if got := clockText(); got != held {
		t.Errorf("the countdown ran on while the interviewer had paused the clock: %s, then %s", held, got)
	}
	if !strings.Contains(text(t, cand, ".timer-help"), "paused") {
		t.Errorf("the box's help while paused: %q", text(t, cand, ".timer-help"))
	}
	checkAxe(t, cand, "the candidate's answer box in a room, paused")
	emulateDark(t, cand)
	checkAxe(t, cand, "the candidate's answer box in a room, paused, dark")
	lightTheme(t, cand)

	timerButton("Resume")
	waitUntil(t, cand, "the box running again", `document.querySelector("[data-timed-box]").dataset.state === "running"`, 30*time.Second)
	waitUntil(t, cand, "the countdown moving on from where it was held", `document.querySelector("[data-timer-clock]").textContent !== `+jsString(held), 10*time.Second)
	if got := clockText(); got > held {
		t.Errorf("after the resume the clock shows %s, more than the %s it was held at", got, held)
	}
	requireNoPageExceptions(t, iv)
	requireNoPageExceptions(t, cand)
}
