package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestLiveRoom runs a live screen as its two people would, in two browser
// contexts (two cookie jars): the interviewer makes the room and opens
// their link, the candidate opens the invite; both type in the shared
// editor and see each other's text; a hint, the clock, a graded run
// shared with the candidate, notes and a score, then the end. axe-core
// checks both pages in both themes.
func TestLiveRoom(t *testing.T) {
	a := startApp(t)
	iv := newBrowser(t, a, withTimeout(3*time.Minute))
	visitOK(t, iv, "/rooms/new")
	checkAxe(t, iv, "the new-room page")
	evalJS[bool](t, iv, `(document.querySelector('input[value="screen:applied-ai-tech-screen"]').checked = true, true)`)
	clickAndLoad(t, iv, `form.room-new button[type="submit"]`)
	links := evalJS[[]string](t, iv, `[...document.querySelectorAll("input.room-link")].map(i => i.value)`)
	if len(links) != 2 || !strings.Contains(links[0], "/enter?key=") {
		t.Fatalf("the new room's links: %q", links)
	}
	checkAxe(t, iv, "the room-ready page")
	interviewerLink, candidateLink := links[0], links[1]

	open := func(ctx context.Context, link, role string) {
		t.Helper()
		visit(t, ctx, strings.TrimPrefix(link, a.URL))
		// The hop page refreshes to the room.
		waitUntilReloaded(t, ctx, `document.querySelector("#room[data-role=`+role+`]")`)
		if u := evalJS[string](t, ctx, `location.href`); strings.Contains(u, "key=") {
			t.Fatalf("the %s's address still holds the key: %s", role, u)
		}
		if evalJS[bool](t, ctx, `document.cookie.includes("fl_room")`) {
			t.Fatalf("the %s's page script can read the room cookie", role)
		}
		waitUntil(t, ctx, "the shared editor", `document.querySelector("#room .cm-content")`)
	}
	cand := newBrowser(t, a, withTimeout(3*time.Minute))
	open(iv, interviewerLink, "interviewer")
	open(cand, candidateLink, "candidate")
	if exists(t, cand, ".room-rubric") || strings.Contains(text(t, cand, "main"), "Model answer") {
		t.Fatal("the candidate's page shows the rubric or the model answer")
	}

	// Both type; each sees the other's text.
	typeInto := func(ctx context.Context, s string) {
		t.Helper()
		evalJS[bool](t, ctx, `(() => { const v = window.faultlineRoom.editor.view; v.focus(); v.dispatch({selection: {anchor: 0}}); return true })()`)
		typeKeys(t, ctx, s)
	}
	typeInto(cand, "// candidate was here ")
	waitUntil(t, iv, "the candidate's text on the interviewer's page",
		`document.querySelector("#room .cm-content").innerText.includes("candidate was here")`, 30*time.Second)
	typeInto(iv, "// interviewer too ")
	waitUntil(t, cand, "the interviewer's text on the candidate's page",
		`document.querySelector("#room .cm-content").innerText.includes("interviewer too")`, 30*time.Second)
	waitUntil(t, iv, "the candidate's cursor", `document.querySelector(".cm-faultline-peer-caret")`, 30*time.Second)

	click := func(ctx context.Context, sel string) {
		t.Helper()
		waitFor(t, ctx, sel)
		evalJS[bool](t, ctx, `(document.querySelector(`+jsString(sel)+`).click(), true)`)
	}
	// A hint and the clock reach the candidate without a reload.
	click(iv, `form[action$="/hints"] button`)
	waitUntil(t, cand, "the released hint", `document.querySelectorAll(".room-hints li").length === 1`, 30*time.Second)
	click(iv, `form[action$="/timer"] button`)
	waitUntil(t, cand, "the running clock", `document.querySelector(".room-clock[data-clock-phase=running]")`, 30*time.Second)

	// The grader runs on the shared code; the report is the interviewer's
	// until shared.
	click(iv, `form[action$="/run"] button`)
	waitUntil(t, iv, "the run's share button", `document.querySelector('form[action$="/share"] button')`, 90*time.Second)
	if exists(t, cand, ".room-run") {
		t.Fatal("the candidate sees a report before it was shared")
	}
	click(iv, `form[action$="/share"] button`)
	waitUntil(t, cand, "the shared report", `document.querySelector(".room-run")`, 30*time.Second)

	// Notes and a score, on the interviewer's page only.
	click(iv, "#pane-notes-tab")
	evalJS[bool](t, iv, `(document.getElementById("room-notes-text").value = "Strong on **idempotency**", true)`)
	click(iv, `form[action$="/notes"] button`)
	waitUntil(t, iv, "the notes rendered", `document.querySelector(".room-notes-html strong")`, 30*time.Second)
	click(iv, "#pane-rubric-tab")
	click(iv, `form.room-score button`)
	waitUntil(t, iv, "the saved score", `document.querySelector(".room-score .meta")`, 30*time.Second)

	for _, theme := range []string{"light", "dark"} {
		for _, p := range []struct {
			ctx  context.Context
			name string
		}{{iv, "interviewer"}, {cand, "candidate"}} {
			if theme == "dark" {
				emulateDark(t, p.ctx)
			} else {
				lightTheme(t, p.ctx)
			}
			checkAxe(t, p.ctx, "the "+p.name+"'s room page, "+theme)
		}
	}

	// The next step, a question: both pages move to it; the candidate's
	// answer reaches the interviewer as they type.
	click(iv, `form[action$="/next"] button`)
	for _, ctx := range []context.Context{iv, cand} {
		waitUntilReloaded(t, ctx, `document.querySelector("#room[data-item='1']")`)
	}
	waitFor(t, cand, "#room-answer-text")
	evalJS[bool](t, cand, `(document.getElementById("room-answer-text").focus(), true)`)
	typeKeys(t, cand, "Idempotency keys make retries safe")
	waitUntil(t, iv, "the candidate's answer on the interviewer's page",
		`(document.querySelector(".room-cand-answer") || {}).textContent === "Idempotency keys make retries safe"`, 30*time.Second)
	checkAxe(t, iv, "the interviewer's room page on a question")
	checkAxe(t, cand, "the candidate's room page on a question")

	endRoom(t, iv)
	waitUntil(t, cand, "the end on the candidate's page", `document.body.innerText.includes("ended the room")`, 30*time.Second)
	requireNoPageExceptions(t, iv)
	requireNoPageExceptions(t, cand)

	// Loaded again, the candidate's page says plainly that it is over,
	// with no way into the interviewer's record.
	if status := visit(t, cand, evalJS[string](t, cand, `location.pathname`)); status != 410 {
		t.Fatalf("the ended room's page for the candidate answered %d; want 410", status)
	}
	if got := text(t, cand, "main"); !strings.Contains(got, "The interview is over") || strings.Contains(got, "scorecard") {
		t.Fatalf("the candidate's page of the ended room says %q", shorten(got))
	}
	checkAxe(t, cand, "the candidate's page of the ended room, dark") // the loop above left the dark theme on
	lightTheme(t, cand)
	checkAxe(t, cand, "the candidate's page of the ended room, light")
}

// waitUntilReloaded waits for expr across a navigation the page starts by
// itself (a refresh, a reload), which ends the script context a plain
// wait polls in; so each try is a fresh evaluation.
func waitUntilReloaded(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+expr+")"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s after a navigation: %v", expr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
