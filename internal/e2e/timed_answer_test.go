package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/problems"
)

// shortTimerSet is a question set with a five-second limit, so a test sees
// the box run out without waiting two minutes.
const shortTimerSet = `---
slug: short-timer
title: A five-second question
---

One question with a five-second limit, so a test can watch the box run out.

## What makes a retried create safe?

### Model answer

SHORT-MODEL-ANSWER: the same idempotency key on every attempt of one operation.

### Key points

- The same key on every attempt
- The key is stored before the first send

### Time limit

5s
`

const (
	timedProblem = "/problems/idempotent-create-client"
	shortSetPath = "/sets/short-timer"
	shortBox     = "#answer-what-makes-a-retried-create-safe-box"
	shortField   = "#answer-what-makes-a-retried-create-safe"
)

// boxState is the data-state of the timed box sel ("" when there is none).
func boxState(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return evalJS[string](t, ctx, fmt.Sprintf(`(() => { const b = document.querySelector(%s); return b ? b.dataset.state : "" })()`, jsString(sel)))
}

func waitBoxState(t *testing.T, ctx context.Context, sel, state string, timeout ...time.Duration) {
	t.Helper()
	waitUntil(t, ctx, sel+" in state "+state, fmt.Sprintf(`(() => { const b = document.querySelector(%s); return b && b.dataset.state === %s })()`,
		jsString(sel), jsString(state)), timeout...)
}

// focusAndType focuses the element sel as a click would and types text.
func focusAndType(t *testing.T, ctx context.Context, sel, text string) {
	t.Helper()
	evalJS[bool](t, ctx, fmt.Sprintf(`(() => { document.querySelector(%s).focus(); return true })()`, jsString(sel)))
	typeKeys(t, ctx, text)
}

// clockSeconds reads the countdown m:ss of the box sel as seconds.
func clockSeconds(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	s := strings.TrimSpace(text(t, ctx, sel+" [data-timer-clock]"))
	m, sec, ok := strings.Cut(s, ":")
	mi, err1 := strconv.Atoi(m)
	si, err2 := strconv.Atoi(sec)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("the clock of %s reads %q; want m:ss", sel, s)
	}
	return mi*60 + si
}

// TestTimerStartsOnTheFirstKeyAndSurvivesAReload: loading the page starts
// nothing, however long it stays open; the first keystroke starts the
// server's clock; after a reload the text is back and the countdown shows
// the time the server says is left.
func TestTimerStartsOnTheFirstKeyAndSurvivesAReload(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	const box = "#answer-text-box"
	visitOK(t, ctx, timedProblem)
	waitFor(t, ctx, box+" [data-timer-clock]") // shown by the script
	if got := count(t, ctx, "[data-timed-box]"); got != 1 {
		t.Fatalf("%d timed boxes on %s; want 1", got, timedProblem)
	}
	if s, c := boxState(t, ctx, box), text(t, ctx, box+" [data-timer-clock]"); s != "idle" || c != "2:00" {
		t.Fatalf("on load the box is %q with the clock at %q; want idle at 2:00", s, c)
	}
	checkAxe(t, ctx, timedProblem+" before the first keystroke")

	time.Sleep(1500 * time.Millisecond)
	if s, c := boxState(t, ctx, box), text(t, ctx, box+" [data-timer-clock]"); s != "idle" || c != "2:00" {
		t.Fatalf("1.5 s after load the box is %q with the clock at %q; want still idle at 2:00", s, c)
	}
	if session := evalJS[string](t, ctx, `document.querySelector("[data-timer-session]").value`); session != "" {
		t.Fatalf("a session %q exists before any keystroke", session)
	}

	focusAndType(t, ctx, "#answer-text", "R")
	typed := time.Now()
	waitUntil(t, ctx, "the server to record the start", `document.querySelector("[data-timer-session]").value !== ""`)
	if s := boxState(t, ctx, box); s != "running" {
		t.Fatalf("after the first key the box is %q; want running", s)
	}
	waitUntil(t, ctx, "the countdown to move", `document.querySelector("[data-timer-clock]").textContent.trim() !== "2:00"`, 3*time.Second)
	const answer = "Retry with one key per operation, stored before the first send."
	typeKeys(t, ctx, answer[1:])
	checkAxe(t, ctx, timedProblem+" while the clock runs")

	pressTab(t, ctx, 1) // leaving the box saves it
	waitUntil(t, ctx, "the draft to be saved", `document.querySelector("[data-timed-box]").hasAttribute("data-saved-at")`)
	time.Sleep(time.Second)

	visitOK(t, ctx, timedProblem) // the reload
	waitFor(t, ctx, box+" [data-timer-clock]")
	elapsed := time.Since(typed)
	if got := evalJS[string](t, ctx, `document.getElementById("answer-text").value`); got != answer {
		t.Fatalf("after the reload the box holds %q; want %q", got, answer)
	}
	if s := boxState(t, ctx, box); s != "running" {
		t.Fatalf("after the reload the box is %q; want running", s)
	}
	remaining := time.Duration(evalJS[int](t, ctx, `Number(document.querySelector("[data-timed-box]").dataset.remainingMs)`)) * time.Millisecond
	// The server recorded the start a little after the key went down, so
	// it may give a little more time than the test measured, never less.
	want := 2*time.Minute - elapsed
	if remaining < want-500*time.Millisecond || remaining > want+3*time.Second {
		t.Errorf("after the reload %v are left by the server's clock; the test measured %v since the first key, so want about %v",
			remaining, elapsed.Round(time.Millisecond), want.Round(time.Millisecond))
	}
	if secs := clockSeconds(t, ctx, box); secs > 119 || secs < int(want/time.Second)-3 {
		t.Errorf("after the reload the clock shows %d s; want about %d", secs, int(want/time.Second))
	}
	requireNoPageExceptions(t, ctx)
}

// TestExpiryLocksTheBoxAndStoresTheAnswer: at zero the box locks (even
// while the connection is down, which the box says), and the answer is
// stored as soon as the connection is back; the model answer and key points
// then replace the box. axe checks the box locked and submitted.
func TestExpiryLocksTheBoxAndStoresTheAnswer(t *testing.T) {
	t.Parallel()
	a := startApp(t, withContentFile("sets/short-timer.md", shortTimerSet))
	ctx := newBrowser(t, a)
	visitOK(t, ctx, shortSetPath)
	waitFor(t, ctx, shortBox+" [data-timer-clock]")
	if c := text(t, ctx, shortBox+" [data-timer-clock]"); c != "0:05" {
		t.Fatalf("the five-second box shows %q before starting; want 0:05", c)
	}
	// Record every state the box passes through, and whether the textarea
	// was read-only when it locked.
	evalJS[bool](t, ctx, `(() => {
		window.e2eStates = [];
		new MutationObserver(ms => ms.forEach(m => {
			const el = m.target;
			if (!el.matches("[data-timed-box]")) return;
			const ta = el.querySelector("textarea");
			window.e2eStates.push(el.dataset.state + (ta && ta.readOnly ? ":readonly" : ""));
		})).observe(document.body, {attributes: true, subtree: true, attributeFilter: ["data-state"]});
		return true })()`)

	focusAndType(t, ctx, shortField, "Same key")
	waitUntil(t, ctx, "the server to record the start", fmt.Sprintf(`document.querySelector(%s).value !== ""`, jsString(shortBox+" [data-timer-session]")))
	pressTab(t, ctx, 1)
	waitUntil(t, ctx, "the draft to be saved", fmt.Sprintf(`document.querySelector(%s).hasAttribute("data-saved-at")`, jsString(shortBox)))

	// The connection drops: every request the page makes fails.
	evalJS[bool](t, ctx, `(() => {
		window.e2eFetch = window.fetch;
		window.fetch = () => Promise.reject(new TypeError("Failed to fetch (the test is offline)"));
		return true })()`)
	waitBoxState(t, ctx, shortBox, "locked", 10*time.Second)
	if ro := evalJS[bool](t, ctx, fmt.Sprintf(`document.querySelector(%s).readOnly`, jsString(shortField))); !ro {
		t.Error("the locked box's textarea is not read-only")
	}
	if c := text(t, ctx, shortBox+" [data-timer-clock]"); c != "0:00" {
		t.Errorf("the locked box's clock shows %q; want 0:00", c)
	}
	if !exists(t, ctx, shortBox+" [data-timer-clock].warning") {
		t.Error("the clock under 30 s has no warning class")
	}
	waitUntil(t, ctx, "the expiry to be announced", fmt.Sprintf(`document.querySelector(%s).textContent.startsWith("Time is up")`,
		jsString(shortBox+" [data-timer-announce]")))
	waitUntil(t, ctx, "the connection notice", fmt.Sprintf(`document.querySelector(%s).textContent.includes("Connection lost")`,
		jsString(shortBox+" [data-timer-notice]")))
	checkAxe(t, ctx, shortSetPath+" locked, with the connection lost")

	// Back online within the grace: the submit goes through on time.
	evalJS[bool](t, ctx, `(() => { window.fetch = window.e2eFetch; window.dispatchEvent(new Event("online")); return true })()`)
	waitBoxState(t, ctx, shortBox, "submitted")
	states := evalJS[[]string](t, ctx, `window.e2eStates`)
	if strings.Join(states, " ") != "running locked:readonly" {
		t.Errorf("the box went through states %v before the submitted box replaced it; want [running locked:readonly]", states)
	}
	if got := text(t, ctx, shortBox+" .submitted-answer"); got != "Same key" {
		t.Errorf("the stored answer reads %q; want %q", got, "Same key")
	}
	if got := text(t, ctx, shortBox+" [data-answer-summary]"); got != "Timed: time ran out at 0:05 · 2 words" {
		t.Errorf("the answer summary reads %q", got)
	}
	if !pageTextContains(t, ctx, "SHORT-MODEL-ANSWER") {
		t.Error("the model answer is not shown after expiry")
	}
	checkAxe(t, ctx, shortSetPath+" after expiry")

	// Stored on the server, not only in this page.
	visitOK(t, ctx, shortSetPath)
	if got := text(t, ctx, shortBox+" .submitted-answer"); got != "Same key" {
		t.Errorf("after a reload the stored answer reads %q; want %q", got, "Same key")
	}
	requireNoPageExceptions(t, ctx)
}

// TestSubmitShowsModelAnswerAndKeyPoints: submitting replaces the box, with
// no page load, by the answer, the model answer and one checkbox per point of
// "What a strong answer covers"; saving the ticks says how many were covered.
// At 1366x900 and 390x844, axe-clean in both themes.
func TestSubmitShowsModelAnswerAndKeyPoints(t *testing.T) {
	t.Parallel()
	points := strongAnswerPoints(t, "idempotent-create-client")
	a := startApp(t)
	// Each size in a browser of its own: a new candidate, nothing answered.
	for _, size := range weblightSizes {
		t.Run(size.name, func(t *testing.T) {
			ctx := newBrowser(t, a)
			setViewport(t, ctx, size.width, size.height)
			const box = "#answer-text-box"
			visitOK(t, ctx, timedProblem)
			waitFor(t, ctx, box+" [data-timer-clock]")
			if exists(t, ctx, "#answer-material") || exists(t, ctx, "form[data-self-assessment]") {
				t.Fatal("the model answer or the self-assessment is in the page before any answer")
			}
			evalJS[bool](t, ctx, `(() => { window.e2eSamePage = true; return true })()`)
			focusAndType(t, ctx, "#answer-text", "Treat the timeout as unknown and retry with the same key.")
			waitUntil(t, ctx, "the server to record the start", `document.querySelector("[data-timer-session]").value !== ""`)
			evalJS[bool](t, ctx, `(() => { document.querySelector("[data-timed-box] button[type=submit]").click(); return true })()`)
			waitBoxState(t, ctx, box, "submitted")
			if !evalJS[bool](t, ctx, `window.e2eSamePage === true`) {
				t.Error("submitting loaded a new page; want the box replaced in place")
			}
			waitFor(t, ctx, "#answer-material")
			// Focus on the submitted box's heading, which is in view: the
			// candidate keeps their place.
			if !evalJS[bool](t, ctx, `(() => { const f = document.activeElement, r = f.getBoundingClientRect();
				return f.tagName === "H3" && !!f.closest("[data-timed-box]") && r.bottom > 0 && r.top < innerHeight })()`) {
				t.Errorf("after submitting focus is on %v; want the submitted box's heading, in view", focused(t, ctx))
			}
			if !pageTextContains(t, ctx, "Model answer") || !exists(t, ctx, box+" [data-compare-model]") {
				t.Error("no model answer beside the answer after submitting")
			}
			if exists(t, ctx, "#model-h") {
				t.Error("the answer material repeats the model answer the box already shows")
			}
			if got := count(t, ctx, `form[data-self-assessment] input[name="covered"]`); got != len(points) {
				t.Fatalf("the self-assessment has %d checkboxes; want one per key point (%d)", got, len(points))
			}
			if got := text(t, ctx, box+" [data-answer-summary]"); !strings.HasPrefix(got, "Timed: 0:") || !strings.Contains(got, "of 2:00 used · 11 words") {
				t.Errorf("the answer summary reads %q; want the time used and 11 words", got)
			}
			noSidewaysScroll(t, ctx, timedProblem+" after submitting at "+size.name)
			checkAxeBothThemes(t, ctx, timedProblem+" after submitting at "+size.name)

			evalJS[bool](t, ctx, `(() => {
				const boxes = document.querySelectorAll('form[data-self-assessment] input[name="covered"]');
				boxes[0].click(); boxes[2].click();
				document.querySelector("form[data-self-assessment] button[type=submit]").click();
				return true })()`)
			want := fmt.Sprintf("Saved: 2 of %d key points covered", len(points))
			waitUntil(t, ctx, want, fmt.Sprintf(`document.querySelector("[data-assessment-status]").textContent === %s`, jsString(want)))
			checkAxeBothThemes(t, ctx, timedProblem+" after saving the self-assessment at "+size.name)

			visitOK(t, ctx, timedProblem)
			if got := text(t, ctx, "[data-assessment-status]"); got != want {
				t.Errorf("after a reload the self-assessment says %q; want %q", got, want)
			}
			if got := count(t, ctx, `form[data-self-assessment] input[name="covered"]:checked`); got != 2 {
				t.Errorf("after a reload %d key points are ticked; want 2", got)
			}
			requireNoPageExceptions(t, ctx)

		})
	}
}

// TestKeyboardAloneCompletesATimedAnswer: choose the mode with the arrow
// keys, type, submit, tick a key point and save it, all from the keyboard,
// on the first question of the rapid-fire set.
func TestKeyboardAloneCompletesATimedAnswer(t *testing.T) {
	t.Parallel()
	set := shippedSet(t, "applied-ai-rapid-fire")
	q := set.Questions[0]
	field := "answer-" + q.ID
	box := "#" + field + "-box"
	a := startApp(t)
	ctx := newBrowser(t, a)
	visitOK(t, ctx, "/sets/"+set.Slug)
	waitFor(t, ctx, box+" [data-timer-clock]")

	tabUntil(t, ctx, "the timed-mode radio of question 1", 200, func(f focusedElement) bool { return f.ID == field+"-mode-timed" })
	pressKey(t, ctx, kb.ArrowDown)
	if id := activeElementID(t, ctx); id != field+"-mode-untimed" || !evalJS[bool](t, ctx, `document.activeElement.checked`) {
		t.Fatalf("ArrowDown on the mode radios focused %q; want %s-mode-untimed, checked", id, field)
	}
	if c := text(t, ctx, box+" [data-timer-clock]"); c != "no limit" {
		t.Errorf("with no limit chosen the clock reads %q; want \"no limit\"", c)
	}
	pressKey(t, ctx, kb.ArrowUp)
	if id := activeElementID(t, ctx); id != field+"-mode-timed" {
		t.Fatalf("ArrowUp went to %q; want back to the timed mode", id)
	}
	tabUntil(t, ctx, "the answer box", 5, func(f focusedElement) bool { return f.ID == field })
	typeKeys(t, ctx, "Running it twice leaves the same result as once.")
	waitUntil(t, ctx, "the server to record the start", fmt.Sprintf(`document.querySelector(%s).value !== ""`, jsString(box+" [data-timer-session]")))
	if m := evalJS[string](t, ctx, fmt.Sprintf(`document.querySelector(%s).dataset.mode`, jsString(box))); m != "timed" {
		t.Errorf("the box's mode is %q; want timed", m)
	}
	tabUntil(t, ctx, "Submit answer", 5, func(f focusedElement) bool { return f.Tag == "button" && f.Name == "Submit answer" })
	pressKey(t, ctx, kb.Enter)
	waitBoxState(t, ctx, box, "submitted")
	if inBox := evalJS[bool](t, ctx, fmt.Sprintf(`!!document.activeElement.closest(%s)`, jsString(box))); !inBox {
		t.Errorf("after submitting, focus is on %v, outside the new box", focused(t, ctx))
	}
	tabUntil(t, ctx, "the first key point", 10, func(f focusedElement) bool { return f.ID == field+"-kp-0" })
	pressKey(t, ctx, " ")
	if !evalJS[bool](t, ctx, `document.activeElement.checked`) {
		t.Fatal("Space did not tick the first key point")
	}
	tabUntil(t, ctx, "Save self-assessment", 20, func(f focusedElement) bool { return f.Tag == "button" && f.Name == "Save self-assessment" })
	pressKey(t, ctx, kb.Enter)
	want := fmt.Sprintf("Saved: 1 of %d key points covered", len(q.KeyPoints))
	waitUntil(t, ctx, want, fmt.Sprintf(`document.querySelector(%s).textContent === %s`, jsString(box+" [data-assessment-status]"), jsString(want)))
	requireNoPageExceptions(t, ctx)
}

func shippedCatalog(t *testing.T) *problems.Catalog {
	t.Helper()
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatalf("load the shipped content: %v", err)
	}
	return cat
}

func shippedSet(t *testing.T, slug string) *problems.QuestionSet {
	t.Helper()
	qs, ok := shippedCatalog(t).Set(slug)
	if !ok || len(qs.Questions) == 0 {
		t.Fatalf("no shipped question set %s with questions", slug)
	}
	return qs
}

func strongAnswerPoints(t *testing.T, slug string) []problems.Item {
	t.Helper()
	p, ok := shippedCatalog(t).Problem(slug)
	if !ok || len(p.StrongAnswer) < 3 {
		t.Fatalf("shipped problem %s has no strong-answer list of 3 or more points", slug)
	}
	return p.StrongAnswer
}

// TestKeystrokesTypedOfflineSurviveAReload: while the connection is down the
// box says so and keeps the text in the browser; a reload puts that text
// back, and it reaches the server once the connection is back.
func TestKeystrokesTypedOfflineSurviveAReload(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	const box = "#answer-text-box"
	visitOK(t, ctx, timedProblem)
	waitFor(t, ctx, box+" [data-timer-clock]")
	focusAndType(t, ctx, "#answer-text", "Saved online.")
	waitUntil(t, ctx, "the server to record the start", `document.querySelector("[data-timer-session]").value !== ""`)
	pressTab(t, ctx, 1)
	waitUntil(t, ctx, "the draft to be saved", `document.querySelector("[data-timed-box]").hasAttribute("data-saved-at")`)

	evalJS[bool](t, ctx, `(() => {
		window.fetch = () => Promise.reject(new TypeError("Failed to fetch (the test is offline)"));
		return true })()`)
	const full = "Saved online. Typed offline."
	focusAndType(t, ctx, "#answer-text", " Typed offline.")
	pressTab(t, ctx, 1) // the save on blur fails
	waitUntil(t, ctx, "the connection notice", `document.querySelector("[data-timer-notice]").textContent.includes("Connection lost")`)
	if got := evalJS[string](t, ctx, `document.getElementById("answer-text").value`); got != full {
		t.Fatalf("while offline the box holds %q; want %q", got, full)
	}

	visitOK(t, ctx, timedProblem) // the reload brings the connection back
	waitFor(t, ctx, box+" [data-timer-clock]")
	if got := evalJS[string](t, ctx, `document.getElementById("answer-text").value`); got != full {
		t.Fatalf("after the reload the box holds %q; want the text typed offline, %q", got, full)
	}
	waitUntil(t, ctx, "the recovered text to be saved", `document.querySelector("[data-timed-box]").hasAttribute("data-saved-at")`)
	evalJS[bool](t, ctx, `(() => { localStorage.clear(); return true })()`)
	visitOK(t, ctx, timedProblem)
	if got := evalJS[string](t, ctx, `document.getElementById("answer-text").value`); got != full {
		t.Fatalf("the server's draft is %q; want %q", got, full)
	}
	requireNoPageExceptions(t, ctx)
}

// TestStaleSaveIsNotTakenForSaved: another device whose clock runs ten
// minutes ahead saves text for the same box, so this tab's next save
// arrives with an older sequence number and the server keeps the other
// text (it answers "stale"). The box must not take that for saved: it
// says so, keeps what was typed here and saves it again, numbered after
// the other save, so a reload shows this tab's text.
func TestStaleSaveIsNotTakenForSaved(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	const box, field = "#answer-text-box", "#answer-text"
	visitOK(t, ctx, timedProblem)
	waitFor(t, ctx, box+" [data-timer-clock]")
	focusAndType(t, ctx, field, "Mine")
	waitUntil(t, ctx, "the server to record the start", `document.querySelector("[data-timer-session]").value !== ""`)
	pressTab(t, ctx, 1)
	waitUntil(t, ctx, "the draft to be saved", fmt.Sprintf(`document.querySelector(%s).hasAttribute("data-saved-at")`, jsString(box)))

	// The other device's save, with this browser's cookie.
	status := evalJS[int](t, ctx, fmt.Sprintf(`(async () => {
		const body = new URLSearchParams({session: document.querySelector("[data-timer-session]").value,
			seq: String(Date.now() + 600000), text: "THEIRS"});
		const resp = await fetch(%s + "/timer/draft", {method: "POST", body: body, headers: {"Accept": "application/json"}});
		return resp.status })()`, jsString(timedProblem)))
	if status != 200 {
		t.Fatalf("the other device's save answered %d", status)
	}

	focusAndType(t, ctx, field, " and more")
	pressTab(t, ctx, 1)
	waitUntil(t, ctx, "the box to say another save came first", fmt.Sprintf(`document.querySelector(%s).textContent.includes("Another tab or device")`,
		jsString(box+" [data-timer-notice]")))
	waitUntil(t, ctx, "this tab's text to be saved after all", `(async () => {
		const html = await (await fetch(location.pathname, {headers: {"Accept": "text/html"}})).text();
		const doc = new DOMParser().parseFromString(html, "text/html");
		return doc.getElementById("answer-text").value === "Mine and more" })()`)
	visitOK(t, ctx, timedProblem)
	if got := evalJS[string](t, ctx, `document.getElementById("answer-text").value`); got != "Mine and more" {
		t.Fatalf("after a reload the box holds %q; want this tab's text", got)
	}
	requireNoPageExceptions(t, ctx)
}

// TestAnswerSitsBesideTheModelAnswer: after a submit, the answer and the
// model answer stand side by side at 1366 px with the key points beside
// them, and the form to answer again comes after all three; at 390 px they
// stack, in that order, without sideways scrolling. axe-core is clean both
// ways.
func TestAnswerSitsBesideTheModelAnswer(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	setViewport(t, ctx, 1366, 900)
	const box = "#answer-text-box"
	visitOK(t, ctx, timedProblem)
	waitFor(t, ctx, box+" [data-timer-clock]")
	focusAndType(t, ctx, "#answer-text", "Retry with the same key and treat a timeout as unknown.")
	waitUntil(t, ctx, "the server to record the start", `document.querySelector("[data-timer-session]").value !== ""`)
	evalJS[bool](t, ctx, `(() => { document.querySelector("[data-timed-box] button[type=submit]").click(); return true })()`)
	waitBoxState(t, ctx, box, "submitted")
	waitFor(t, ctx, box+" [data-answer-compare] [data-compare-model]")

	type rect struct{ Left, Top, Right, Bottom float64 }
	rects := func() (yours, model, points, again rect) {
		r := evalJS[[]rect](t, ctx, fmt.Sprintf(`(() => {
			const box = document.querySelector(%s);
			return [".compare-yours", ".compare-model", ".compare-points", "form[data-timed-form] textarea"].map(sel => {
				const r = box.querySelector(sel).getBoundingClientRect();
				return {Left: r.left, Top: r.top, Right: r.right, Bottom: r.bottom};
			}) })()`, jsString(box)))
		return r[0], r[1], r[2], r[3]
	}
	yours, model, points, again := rects()
	if model.Left < yours.Right || model.Top > yours.Top+1 || model.Top < yours.Top-1 {
		t.Errorf("at 1366 px the model answer %+v is not beside the answer %+v", model, yours)
	}
	if points.Left < model.Right || points.Top > model.Top+1 {
		t.Errorf("at 1366 px the key points %+v are not beside the model answer %+v", points, model)
	}
	if again.Top < max(yours.Bottom, model.Bottom, points.Bottom) {
		t.Errorf("the box to answer again (top %.0f) is not below the comparison", again.Top)
	}
	if label := text(t, ctx, `label[for="answer-text"]`); label != "Answer again" {
		t.Errorf("the box's label reads %q; want \"Answer again\"", label)
	}
	checkAxe(t, ctx, timedProblem+" after submitting, at 1366 px")

	setViewport(t, ctx, 390, 844)
	visitOK(t, ctx, timedProblem)
	waitFor(t, ctx, box+" [data-answer-compare]")
	yours, model, points, again = rects()
	if model.Top < yours.Bottom || points.Top < model.Bottom || again.Top < points.Bottom {
		t.Errorf("at 390 px the parts do not stack in order: answer %+v, model %+v, key points %+v, answer again %+v", yours, model, points, again)
	}
	if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
		t.Errorf("the answered problem scrolls %.0f px sideways at 390 px", over)
	}
	checkAxe(t, ctx, timedProblem+" after submitting, at 390 px")
	requireNoPageExceptions(t, ctx)
}
