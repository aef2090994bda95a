package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// oneMinuteScreen is a screen of the shipped refund problem with a clock
// of one minute, so a test can see its time run out on the problem.
const oneMinuteScreen = `---
slug: one-minute-screen
title: One-minute screen
summary: The refund problem against a one-minute clock.
minutes: 1
items:
  - problem: async-refund
    minutes: 1
---

A screen short enough to watch its clock run out.
`

// TestScreenClockOnTheProblem practises a screen whose current step is the
// code problem: the workspace shows the screen's clock on the problem's
// side of its header, ticking, without moving the editor or Grade at
// 1366x900 (measured before the practice and during it), without sideways
// scroll at 390 px, axe-clean in both themes, leading back to the step.
// When the time runs out the page says so and offers the summary, the
// editor still takes text, and the summary ends the step at the deadline.
func TestScreenClockOnTheProblem(t *testing.T) {
	t.Parallel()
	a := startApp(t, withContentFile("screens/one-minute-screen.md", oneMinuteScreen))
	ctx := newBrowser(t, a, withTimeout(3*defaultTestTimeout))
	setViewport(t, ctx, 1366, 900)
	openWorkspace(t, ctx)
	if exists(t, ctx, "[data-screen-strip]") {
		t.Fatal("the problem shows a screen's clock before any screen is practised")
	}
	editor0, grade0 := boxOf(t, ctx, "[data-code-workspace] .cm-editor"), boxOf(t, ctx, "#grade-button")

	const screen = "/screens/one-minute-screen"
	visitOK(t, ctx, screen)
	clickAndLoad(t, ctx, "[data-practise-screen]")
	openWorkspace(t, ctx)
	editor, grade := boxOf(t, ctx, "[data-code-workspace] .cm-editor"), boxOf(t, ctx, "#grade-button")
	t.Logf("at 1366x900 without the screen's clock: editor top %.0f px, width %.0f px; Grade bottom %.0f px", editor0.Top, editor0.Width, grade0.Bottom)
	t.Logf("at 1366x900 with the screen's clock:    editor top %.0f px, width %.0f px; Grade bottom %.0f px", editor.Top, editor.Width, grade.Bottom)
	if editor.Top != editor0.Top || editor.Width != editor0.Width || grade.Bottom != grade0.Bottom {
		t.Errorf("the screen's clock moved the editor or Grade: %+v, %+v before; %+v, %+v with it", editor0, grade0, editor, grade)
	}
	strip := boxOf(t, ctx, "[data-screen-strip]")
	if title := boxOf(t, ctx, "#ws-title"); strip.Top < title.Bottom || strip.Top > title.Bottom+60 || strip.Height > 60 {
		t.Errorf("the screen's clock %+v is not a short line under the title %+v", strip, title)
	}

	start := readClock(t, ctx, "[data-screen-strip] [data-clock-text]")
	if start < 50 || start > 60 {
		t.Fatalf("the problem shows the screen's clock at %d s; want about 60", start)
	}
	evalJS[bool](t, ctx, `(window.__sameDocument = true)`)
	waitUntil(t, ctx, "the screen's clock to tick on the problem",
		`document.querySelector("[data-screen-strip] [data-clock-text]").textContent !== "`+clockString(start)+`"`, 5*time.Second)
	if ticked := readClock(t, ctx, "[data-screen-strip] [data-clock-text]"); ticked >= start || !evalJS[bool](t, ctx, `window.__sameDocument === true`) {
		t.Errorf("the screen's clock read %d s, then %d s; want it lower in the same document", start, ticked)
	}
	if got := text(t, ctx, "[data-screen-strip] a"); got != "One-minute screen, step 1 of 1" {
		t.Errorf("the screen's clock links with %q", got)
	}
	checkAxe(t, ctx, "the problem while practising a screen")
	emulateDark(t, ctx)
	checkAxe(t, ctx, "the problem while practising a screen, dark")
	lightTheme(t, ctx)
	setViewport(t, ctx, 390, 844)
	if scroll := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); scroll > 0 {
		t.Errorf("with the screen's clock the problem scrolls %.0f px sideways at 390 px", scroll)
	}
	setViewport(t, ctx, 1366, 900)

	waitUntil(t, ctx, "the screen's time to run out on the problem",
		`document.querySelector("[data-screen-strip]").getAttribute("data-clock-state") === "up"`, 75*time.Second)
	waitUntil(t, ctx, "the clock's live region to say the time is up",
		`document.querySelector("[data-screen-strip] [data-clock-announce]").textContent === "The screen's time is up."`, 2*time.Second)
	if !evalJS[bool](t, ctx, `document.querySelector("[data-screen-strip] [data-clock-up-note]").checkVisibility()`) {
		t.Error("at zero the problem does not say the screen's time is up")
	}
	if !evalJS[bool](t, ctx, `document.querySelector("[data-code-workspace] .cm-content").isContentEditable`) {
		t.Error("the screen's time locked the editor; the code is the candidate's")
	}
	checkAxe(t, ctx, "the problem after the screen's time ran out")
	clickAndLoad(t, ctx, "[data-clock-up-note] a")
	if path := evalJS[string](t, ctx, `location.pathname`); path != screen+"/practice/summary" {
		t.Fatalf("the time-up note led to %s", path)
	}
	if got := text(t, ctx, "[data-step-time]"); !strings.Contains(got, "1:00") {
		t.Errorf("the summary's step time reads %q; want the minute, ending at the deadline", got)
	}
	requireNoPageExceptions(t, ctx)
}

// clockString is s seconds as m:ss.
func clockString(s int) string {
	sec := strconv.Itoa(s % 60)
	if len(sec) == 1 {
		sec = "0" + sec
	}
	return strconv.Itoa(s/60) + ":" + sec
}
