package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestRoomRecord is what an interviewer does after a screen: the room is
// ended, then its replay is scrubbed with the keyboard (the slider's
// keys, the "next edit" link) and its scorecard opened and exported.
// axe-core checks both pages in both themes.
func TestRoomRecord(t *testing.T) {
	a := startApp(t)
	iv := newBrowser(t, a, withTimeout(3*time.Minute))
	visitOK(t, iv, "/rooms/new")
	evalJS[bool](t, iv, `(document.querySelector('input[value="problem:async-refund"]').checked = true, true)`)
	clickAndLoad(t, iv, `form.room-new button[type="submit"]`)
	link := evalJS[string](t, iv, `document.querySelector("input.room-link").value`)
	visit(t, iv, strings.TrimPrefix(link, a.URL))
	deadline := time.Now().Add(defaultWaitTimeout)
	for {
		ok, err := chromedp.Run(iv, chromedp.Evaluate[bool](`!!document.querySelector("#room[data-role=interviewer] .cm-content")`))
		if err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the interviewer's link did not lead to the room's editor: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	base := evalJS[string](t, iv, `location.pathname`)

	evalJS[bool](t, iv, `(() => { const v = window.faultlineRoom.editor.view; v.focus(); v.dispatch({selection: {anchor: 0}}); return true })()`)
	typeKeys(t, iv, "// replayed ")
	// The keystrokes are in the log once the editor has no update left
	// to push: the replay below reads the log.
	waitUntil(t, iv, "the typing pushed", `fetch(`+jsString(base+"/code/0/pull?since=0")+`, {headers: {Accept: "application/json"}}).then(r => r.json()).then(b => JSON.stringify(b).includes("replayed"))`, 30*time.Second)
	evalJS[bool](t, iv, `(document.getElementById("room-notes-text").value = "Calm under **pressure**", true)`)
	evalJS[bool](t, iv, `(document.querySelector('form[action$="/notes"] button').click(), true)`)
	waitUntil(t, iv, "the notes rendered", `document.querySelector(".room-notes-html strong")`, 30*time.Second)
	if !exists(t, iv, `a[href="`+base+`/replay"]`) || !exists(t, iv, `a[href="`+base+`/scorecard"]`) {
		t.Fatal("the interviewer's page does not link the replay and the scorecard")
	}
	endRoom(t, iv)

	// The room's own page now says it has ended and leads to the record.
	if status := visit(t, iv, base); status != 410 {
		t.Fatalf("the ended room's page answered %d; want 410", status)
	}
	if !exists(t, iv, `a#room-closed-scorecard[href="`+base+`/scorecard"]`) || !exists(t, iv, `a#room-closed-replay[href="`+base+`/replay"]`) {
		t.Fatal("the ended room's page does not lead to the scorecard and the replay")
	}
	checkAxe(t, iv, "the ended room's page, light")
	emulateDark(t, iv)
	checkAxe(t, iv, "the ended room's page, dark")
	lightTheme(t, iv)

	// The replay of the ended room.
	visitOK(t, iv, base+"/replay")
	code := func() string { return text(t, iv, `[data-code-item="0"]`) }
	if !strings.Contains(code(), "// replayed") {
		t.Fatalf("the replay's last moment lacks the typed text: %q", shorten(code()))
	}
	moment := func() string { return text(t, iv, "#replay-moment") }
	if !strings.Contains(moment(), "Room ended") {
		t.Fatalf("the last moment is %q; want the room's end", moment())
	}
	evalJS[bool](t, iv, `(document.getElementById("replay-at").focus(), true)`)
	pressKey(t, iv, kb.Home)
	waitUntil(t, iv, "the first moment", `document.getElementById("replay-moment").textContent.includes("Room opened")`)
	if strings.Contains(code(), "replayed") {
		t.Fatal("the first moment shows text typed later")
	}
	// The next edit, by its link, from the keyboard.
	evalJS[bool](t, iv, `(document.querySelector('[data-nav="next-edit"]').focus(), true)`)
	pressKey(t, iv, kb.Enter)
	waitUntil(t, iv, "the first edit", `document.getElementById("replay-moment").textContent.includes("Code edited")`)
	first := code()
	if !strings.HasPrefix(first, "/") || strings.Contains(first, "replayed") {
		t.Fatalf("after the first edit the code starts %q", shorten(first))
	}
	evalJS[bool](t, iv, `(document.getElementById("replay-at").focus(), true)`)
	pressKey(t, iv, kb.ArrowRight)
	waitUntil(t, iv, "one more keystroke", `document.querySelector('[data-code-item="0"]').textContent.startsWith("//")`)
	waitUntil(t, iv, "the interviewer's cursor drawn in the code", `document.querySelector('[data-code-item="0"] .replay-caret-interviewer')`)
	waitUntil(t, iv, "the code highlighted as Go", `[...document.querySelectorAll('[data-code-item="0"] .c1')].some(function (c) { return c.textContent.startsWith("// Package refund") })`)
	if u := evalJS[string](t, iv, `location.search`); !strings.HasPrefix(u, "?at=") {
		t.Fatalf("the address does not name the moment: %q", u)
	}
	// Play from the first moment at 16x: the moments go by by
	// themselves to the room's end; Pause stops them.
	evalJS[bool](t, iv, `(document.getElementById("replay-at").focus(), true)`)
	pressKey(t, iv, kb.Home)
	waitUntil(t, iv, "the first moment again", `document.getElementById("replay-moment").textContent.includes("Room opened")`)
	evalJS[bool](t, iv, `(document.getElementById("replay-speed").value = "16", true)`)
	evalJS[bool](t, iv, `(document.getElementById("replay-play-button").click(), true)`)
	waitUntil(t, iv, "the replay playing", `document.getElementById("replay-play-button").getAttribute("aria-pressed") === "true" && Number(document.getElementById("replay-seq").textContent) > 3`)
	waitUntil(t, iv, "the replay played to the end", `document.getElementById("replay-moment").textContent.includes("Room ended") && document.getElementById("replay-play-button").textContent === "Play"`, 60*time.Second)
	if !strings.Contains(code(), "// replayed") {
		t.Fatalf("after playing to the end the code is %q", shorten(code()))
	}
	end := evalJS[string](t, iv, `document.getElementById("replay-seq").textContent`)
	evalJS[bool](t, iv, `(document.getElementById("replay-play-button").click(), true)`)
	waitUntil(t, iv, "playing again from the start", `Number(document.getElementById("replay-seq").textContent) < `+end+` && document.getElementById("replay-play-button").textContent === "Pause"`)
	evalJS[bool](t, iv, `(document.getElementById("replay-play-button").click(), true)`)
	paused := evalJS[string](t, iv, `document.getElementById("replay-seq").textContent`)
	time.Sleep(time.Second)
	if now := evalJS[string](t, iv, `document.getElementById("replay-seq").textContent`); now != paused {
		t.Errorf("paused at moment %s, the replay went on to %s", paused, now)
	}
	for _, theme := range []string{"light", "dark"} {
		if theme == "dark" {
			emulateDark(t, iv)
		} else {
			lightTheme(t, iv)
		}
		checkAxe(t, iv, "the replay page, "+theme)
	}

	// The scorecard, and its exports.
	visitOK(t, iv, base+"/scorecard")
	if !exists(t, iv, ".scorecard-notes strong") {
		t.Fatal("the scorecard does not show the notes rendered")
	}
	if !exists(t, iv, ".scorecard-summary tbody tr") || !strings.Contains(evalJS[string](t, iv, `document.querySelector(".scorecard-code pre").textContent`), "// replayed") {
		t.Fatal("the scorecard has no summary, or not the step's final code")
	}
	for _, theme := range []string{"light", "dark"} {
		if theme == "dark" {
			emulateDark(t, iv)
		} else {
			lightTheme(t, iv)
		}
		checkAxe(t, iv, "the scorecard page, "+theme)
	}
	if v := evalJS[float64](t, iv, `fetch(document.querySelector('a[href$="/scorecard.json"]').href).then(r => r.json()).then(s => s.version)`); v != 1 {
		t.Fatalf("the JSON export's version = %v; want 1", v)
	}
	md := evalJS[string](t, iv, `fetch(document.querySelector('a[href$="/scorecard.md"]').href).then(r => r.text())`)
	if !strings.HasPrefix(md, "# Scorecard: ") || !strings.Contains(md, "Calm under **pressure**") {
		t.Fatalf("the Markdown export starts %q", shorten(md))
	}
	requireNoPageExceptions(t, iv)
}
