package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// readClock reads an m:ss clock in the page as seconds.
func readClock(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	raw := text(t, ctx, sel)
	m, s, ok := strings.Cut(raw, ":")
	mi, err1 := strconv.Atoi(m)
	si, err2 := strconv.Atoi(s)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("%s reads %q; want m:ss", sel, raw)
	}
	return mi*60 + si
}

// lightTheme puts the tab back on a light system after emulateDark.
func lightTheme(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}}); err != nil {
		t.Fatalf("e2e: emulate a light system: %v", err)
	}
}

// TestScreenClock practises the shipped screen against its clock as a
// candidate would: the button starts a 60:00 clock, which ticks in the
// page without a reload, a reload draws it again from the server's clock
// with no time given back, moving on is a POST the server counts, and the
// summary shows the time on each step. axe-core is clean on the step and
// the summary, in light and dark.
func TestScreenClock(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	const screen = "/screens/applied-ai-tech-screen"
	visitOK(t, ctx, screen)
	if got := text(t, ctx, "[data-practise-screen]"); got != "Practise this screen" {
		t.Fatalf("the screen's start reads %q", got)
	}
	if !pageTextContains(t, ctx, "A 60:00 clock starts when you press the button") {
		t.Error("the screen page does not say when its clock starts")
	}
	clickAndLoad(t, ctx, "[data-practise-screen]")
	start := readClock(t, ctx, "[data-clock-text]")
	if start < 59*60+55 || start > 60*60 {
		t.Fatalf("just after the start the screen's clock reads %d s; want about 3600", start)
	}
	// It ticks in the page: the same document, a lower reading.
	evalJS[bool](t, ctx, `(window.__sameDocument = true)`)
	waitUntil(t, ctx, "the screen's clock to tick", `Number(document.querySelector("[data-clock-text]").textContent.split(":")[1]) !== `+strconv.Itoa(start%60), 5*time.Second)
	ticked := readClock(t, ctx, "[data-clock-text]")
	if !evalJS[bool](t, ctx, `window.__sameDocument === true`) || ticked >= start {
		t.Fatalf("the clock read %d s, then %d s; want it lower in the same document", start, ticked)
	}
	step := readClock(t, ctx, "[data-step-clock]")
	if step < 1 {
		t.Errorf("the step's clock reads %d s after the overall clock ticked; want it counting up", step)
	}
	t.Logf("in the page the screen's clock went %d s -> %d s left, the step's to %d s used", start, ticked, step)
	checkAxe(t, ctx, "a step of the screen with its clock")
	emulateDark(t, ctx)
	checkAxe(t, ctx, "a step of the screen with its clock, dark")
	lightTheme(t, ctx)

	before := readClock(t, ctx, "[data-clock-text]")
	visitOK(t, ctx, screen+"/practice/1") // the reload
	after := readClock(t, ctx, "[data-clock-text]")
	if after > before || after < before-5 {
		t.Errorf("the clock read %d s before a reload and %d s after; want no time given back and little lost", before, after)
	}
	t.Logf("a reload: %d s left before, %d s after (drawn by the server)", before, after)

	clickAndLoad(t, ctx, "[data-next-step]")
	if got := text(t, ctx, "[data-screen-progress]"); got != "Step 2 of 2" {
		t.Fatalf("after Next the page says %q", got)
	}
	if got := readClock(t, ctx, "[data-step-clock]"); got > 2 {
		t.Errorf("step 2's clock reads %d s just after moving there; want it counting from 0", got)
	}
	// The step opens the set's run, which shows the screen's clock too.
	clickAndLoad(t, ctx, "[data-step-start]")
	strip := readClock(t, ctx, "[data-screen-strip] [data-clock-text]")
	if strip > after || strip < after-10 {
		t.Errorf("the set's run shows the screen's clock at %d s; the step page showed %d s", strip, after)
	}
	t.Logf("on the set's run the screen's clock read %d s left", strip)
	checkAxe(t, ctx, "a question of the set while practising the screen")
	clickAndLoad(t, ctx, "[data-screen-strip] a")
	if got := text(t, ctx, "[data-screen-progress]"); got != "Step 2 of 2" {
		t.Fatalf("the screen's clock on the set led back to %q", got)
	}
	waitUntil(t, ctx, "a second on step 2", `document.querySelector("[data-step-clock]").textContent !== "0:00"`, 5*time.Second)
	clickAndLoad(t, ctx, "[data-screen-done]")
	if path := evalJS[string](t, ctx, `location.pathname`); path != screen+"/practice/summary" {
		t.Fatalf("finishing led to %s", path)
	}
	times := evalJS[[]string](t, ctx, `[...document.querySelectorAll("[data-step-time]")].map(e => e.textContent.replace(/\s+/g, " ").trim())`)
	if len(times) != 2 {
		t.Fatalf("the summary shows %d step times; want 2: %q", len(times), times)
	}
	for i, tm := range times {
		if !strings.HasPrefix(tm, "Time on this step: 0:") || strings.HasPrefix(tm, "Time on this step: 0:00") {
			t.Errorf("step %d's time reads %q; want a few seconds", i+1, tm)
		}
	}
	total := text(t, ctx, "[data-screen-total]")
	if !strings.Contains(total, "used of 60:00") {
		t.Errorf("the summary's total reads %q", total)
	}
	t.Logf("summary: %q, %q", times, total)
	checkAxe(t, ctx, "the screen's summary")
	emulateDark(t, ctx)
	checkAxe(t, ctx, "the screen's summary, dark")
	lightTheme(t, ctx)
	setViewport(t, ctx, 390, 844)
	if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
		t.Errorf("the screen's summary scrolls %.0f px sideways at 390 px", over)
	}
	requireNoPageExceptions(t, ctx)
}

// twoQuickQuestions is a set whose whole run is 8 s: long enough to see
// the whole set's clock tick, short enough to let it run out.
const twoQuickQuestions = `---
slug: two-quick
title: Two quick questions
---

Two questions against one clock.

## What does a lost reply look like?

### Model answer

QUICK-ONE-MODEL: a timeout.

### Key points

- A timeout

### Time limit

4s

## What makes a retry safe?

### Model answer

QUICK-TWO-MODEL: the same key.

### Key points

- The same key

### Time limit

4s
`

// TestWholeSetClockTicksAndRunsOut runs a set as one timed sequence: the
// whole set's clock ticks in the page, and when it reaches zero on a
// question not begun, the page says so, the box locks, and the next step
// is offered, as the server judges it.
func TestWholeSetClockTicksAndRunsOut(t *testing.T) {
	t.Parallel()
	a := startApp(t, withContentFile("sets/two-quick.md", twoQuickQuestions))
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	visitOK(t, ctx, "/sets/two-quick/rapid?q=1")
	clickAndLoad(t, ctx, "[data-run-whole]")
	start := readClock(t, ctx, "[data-run-clock] [data-clock-text]")
	if start < 6 || start > 8 {
		t.Fatalf("just after the start the whole set's clock reads %d s; want about 8", start)
	}
	waitUntil(t, ctx, "the whole set's clock to tick", `document.querySelector("[data-run-clock] [data-clock-text]").textContent !== "0:0`+strconv.Itoa(start)+`"`, 5*time.Second)
	ticked := readClock(t, ctx, "[data-run-clock] [data-clock-text]")
	if ticked >= start {
		t.Fatalf("the whole set's clock read %d s, then %d s; want it lower", start, ticked)
	}
	checkAxe(t, ctx, "a question of a whole-set run")
	// Nothing typed: question 1's own clock never starts, so it is the
	// whole set's clock that locks the box and offers the way on.
	waitUntil(t, ctx, "the whole set's time to run out", `document.querySelector("[data-run-clock]").getAttribute("data-clock-state") === "up"`, 15*time.Second)
	waitUntil(t, ctx, "the way on after the run's time", `!!document.querySelector("[data-rapid-next]")`, 10*time.Second)
	if state := evalJS[string](t, ctx, `document.querySelector("[data-timed-box]").getAttribute("data-state")`); state != "locked" {
		t.Errorf("after the whole set's time the box is %q; want locked", state)
	}
	if !evalJS[bool](t, ctx, `document.querySelector("[data-timed-box] textarea").readOnly`) {
		t.Error("after the whole set's time the box still takes text")
	}
	waitUntil(t, ctx, "the clock's live region to say the time is up",
		`document.querySelector("[data-run-clock] [data-clock-announce]").textContent === "The whole set's time is up."`, 2*time.Second)
	if got := text(t, ctx, "[data-run-clock] [data-clock-text]"); got != "0:00" {
		t.Errorf("the run-out clock reads %q", got)
	}
	t.Logf("the whole set's clock: %d s, then %d s in the page, then 0:00 and the box locked", start, ticked)
	emulateDark(t, ctx)
	checkAxe(t, ctx, "a question after the whole set's time ran out, dark")
	lightTheme(t, ctx)
	// The server agrees: the reloaded page has the clock up and the box locked.
	visitOK(t, ctx, "/sets/two-quick/rapid?q=2")
	if !exists(t, ctx, "[data-clock-up]") || !exists(t, ctx, `[data-timed-box][data-state="locked"]`) {
		t.Error("after a reload question 2 is not shown locked with the whole set's time up")
	}
	requireNoPageExceptions(t, ctx)
}
